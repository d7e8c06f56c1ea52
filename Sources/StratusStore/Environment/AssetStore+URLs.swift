import Foundation
import StratusModel

/// Upload tickets and download signatures for asset content, signed with the environment's secret (kept in its
/// database), so that a URL one server hands out works on every server of the same database and after a restart.
/// A ticket is good for 15 minutes (CloudKit's upload URL lifetime) and once; a download URL for an hour, for
/// the one asset it names.
extension AssetStore {
    static let uploadTicketKind: UInt8 = 0x55
    public static let uploadLifetime: Int64 = 15 * 60 * 1000
    public static let downloadLifetime: Int64 = 60 * 60 * 1000

    /// A ticket for one upload by `user`.
    public func uploadTicket(user: String, now: Int64 = WallClock.nowMillis()) -> String {
        var payload = withUnsafeBytes(of: (now + Self.uploadLifetime).bigEndian, Array.init)
        payload += Secrets.randomBytes(16)
        payload += Array(user.utf8)
        return signer.sign(kind: Self.uploadTicketKind, payload)
    }

    /// Who a ticket is for and its nonce, if it is this environment's and has not expired (used or not).
    func openTicket(_ ticket: String, now: Int64) -> (user: String, nonce: String, expires: Int64)? {
        guard let payload = try? signer.verify(kind: Self.uploadTicketKind, ticket,
                                               what: "upload ticket"), payload.count >= 24 else { return nil }
        let expires = payload.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard expires > now else { return nil }
        return (String(decoding: payload.dropFirst(24), as: UTF8.self), Secrets.hex(payload[8..<24]), expires)
    }

    /// Whether a ticket would be taken now: checked before an upload's body is read.
    public func uploadTicketIsLive(_ ticket: String, now: Int64 = WallClock.nowMillis()) -> Bool {
        guard let t = openTicket(ticket, now: now) else { return false }
        return (try? read { s, _ in try !UsedUploadTickets.isUsed(t.nonce, s) }) ?? false
    }

    /// Takes a ticket (once): the user the upload is for, or nil for a ticket that is forged, expired or used.
    public func redeemUploadTicket(_ ticket: String,
                                   now: Int64 = WallClock.nowMillis()) throws(StratusError) -> String? {
        guard let t = openTicket(ticket, now: now) else { return nil }
        let taken = try write { s, _ in try UsedUploadTickets.take(t.nonce, expiresAt: t.expires, now: now, s) }
        return taken ? t.user : nil
    }

    /// `/-/assets/{container}/{environment}/{hex}?e=…&s=…`: the asset's content for an hour, for whoever has the URL.
    public func assetDownloadPath(checksum: String, now: Int64 = WallClock.nowMillis()) -> String? {
        guard let d = Data(base64Encoded: checksum), d.count == 32 else { return nil }
        let hex = Secrets.hex(d)
        let expires = now + Self.downloadLifetime
        return HandedOutPaths.assetDownload(container, environment, hex: hex, expires: expires,
                                            signature: downloadSignature(hex, expires))
    }

    /// Whether a download URL's signature and expiry hold.
    public func downloadIsSigned(hex: String, expires: Int64, signature: String,
                                 now: Int64 = WallClock.nowMillis()) -> Bool {
        guard expires > now else { return false }
        return Secrets.constantTimeEquals(signature, downloadSignature(hex, expires))
    }

    private func downloadSignature(_ hex: String, _ expires: Int64) -> String {
        Secrets.hex(signer.tag(Array("asset download|\(hex)|\(expires)".utf8)))
    }
}
