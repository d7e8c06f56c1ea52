import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Sharing: every share of the environment (owner, what it shares, public permission, participants) with a link
/// to its URL; an admin can revoke a share, which is audited. Acting as a user, the page lists the shares that
/// user owns or takes part in, and the shared database shows what they see through them.
extension MonitorPages {
    func sharingPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let users = Dictionary(((try? store.accounts.users(container: scope.container)) ?? []).map { ($0.userRecordName,
                $0.email) }, uniquingKeysWith: { a, _ in a })
        let mask = UserDataMask(scope)
        func who(_ user: String) -> String {
            if user.hasPrefix("@") { return "\(mask.email(String(user.dropFirst()))) (invited; no account yet)" }
            return users[user].map { "\(mask.email($0)) (\(user))" } ?? user
        }
        // Acting as a user: the shares they own or take part in.
        let acting = scope.actingAs?.userRecordName
        if let acting { try console.auditUserDataRead(r, "shares of \(acting)") }
        let shares = try scope.env.sharing.allSharesByID().filter { (_, share) in
            acting == nil || share.owner?.userRecordName == acting || share.participants.contains { $0.userRecordName == acting && $0.acceptanceStatus != .removed }
        }.map { (id, share) in
            let members = share.participants.filter { $0.type != .owner }
            return SharingView.Share(
                name: mask.recordName(share.recordName), owner: who(share.owner?.userRecordName ?? ""), zone: share.zoneID.zoneName,
                shares: share.rootRecordName.map { "record \(mask.recordName($0)) and its children" } ?? "the whole zone",
                publicPermission: share.publicPermission.rawValue, participantCount: members.filter { $0.acceptanceStatus != .removed }.count,
                created: ValueDisplay.utcString(share.created.timestamp), url: mask.shareURL(HandedOutPaths.share(share.shortGUID)),
                revokeAction: scope.paths.revokeShare(id),
                participants: members.map { p in .init(who: who(p.userRecordName), permission: p.permission.rawValue,
                                                       type: p.type.rawValue, status: p.acceptanceStatus.rawValue) },
                hasParticipants: !members.isEmpty,
                sharedViewHref: scope.userDataBrowsable ? scope.paths.database(.shared,
                        as: members.first?.userRecordName ?? "").zones() : nil)
        }
        let json = ["shares": shares.map { SharingView.ShareJSON(name: $0.name, zone: $0.zone,
                                                                 publicPermission: $0.publicPermission,
                participants: $0.participantCount) }]
        return page(r, tab: .sharing, "sharing", title: "Sharing", SharingView(shares: shares,
                hasShares: !shares.isEmpty, message: req.query("done")), json: json)
    }

    /// `sharing.mustache`: every share of the environment, with its participants.
    struct SharingView: Encodable {
        struct Participant: Encodable { let who, permission, type, status: String }
        struct Share: Encodable {
            let name, owner, zone, shares, publicPermission: String
            let participantCount: Int
            let created: String
            /// Nil where users' data may not be shown: a share's URL lets whoever holds it join.
            let url: String?
            /// The revoke form's action: the share by its number, never by its URL (the form is in the page).
            let revokeAction: String
            let participants: [Participant]
            let hasParticipants: Bool
            /// A participant's view of the share (none where users' data may not be browsed).
            let sharedViewHref: String?
        }
        struct ShareJSON: Encodable { let name, zone, publicPermission: String; let participants: Int }
        let shares: [Share]
        let hasShares: Bool
        let message: String?
    }

    func revokeShare(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let id = Int64(req.parameters["id"] ?? "") else { throw StratusError(.notFound,
                "There is no such share.") }
        let share = try scope.env.sharing.revokeShare(id: id)
        try audit(s, scope, "revoke share",
                  "\(share.recordName) in zone \(share.zoneID.zoneName) of \(share.owner?.userRecordName ?? "")")
        return .redirect(to: scope.paths.sharing(done: "Revoked share \(share.recordName); its participants lost access."))
    }
}
