import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// The assets resource: `assets/upload` (the upload and download URLs it hands out are `registerAssetRoutes`').
    static let assetOperations = [Operation(.assetsUpload) { try $0.assetsUpload($1) }]

    /// `assets/upload`: one upload URL per requested field. POSTing the bytes there answers the `singleFile`
    /// dictionary that becomes the field's ASSETID value in `records/modify`.
    func assetsUpload(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard let tokens = try ctx.body.array("tokens"), !tokens.isEmpty else { throw StratusError.badRequest("assets/upload needs tokens: [{recordType, fieldName}]") }
        guard tokens.count <= 200 else { throw StratusError(.limitExceeded, "at most 200 tokens per assets/upload") }
        guard let user = ctx.auth.userRecordName else {
            var e = StratusError.authenticationRequired("uploading assets needs a signed-in user")
            e.redirectURL = signInURL(ctx.request, container: ctx.container, environment: ctx.environment)
            throw e
        }
        let base = baseURL(ctx.request)
        let env = try env(ctx)
        return jsonList("tokens", tokens) { t, w in
            w.beginObject()
            w.field("recordName", t["recordName"]?.string ?? "")
            w.field("fieldName", t["fieldName"]?.string ?? "")
            w.field("url", base + HandedOutPaths.assetUpload(ctx.container, ctx.environment,
                                                             ticket: env.assets.uploadTicket(user: user)))
            w.endObject()
        }
    }

    func baseURL(_ req: HTTPRequest) -> String { req.baseURL }

    /// Routes outside `/database/1`: the upload targets and download URLs that `assets/upload` and fetched
    /// records hand out. An upload's ticket is checked before its body (up to 50 MB) is read.
    func registerAssetRoutes(_ router: inout Router) {
        let api = self
        router.add(.post, HandedOutPaths.assetUploadRoute, bodyLimit: 50 * 1024 * 1024,
                   admit: { req in await api.admitUpload(req) }) { req in
            try await api.receiveUpload(req)
        }
        router.add(.get, HandedOutPaths.assetDownloadRoute) { req in await api.serveAsset(req) }
    }

    /// The environment an upload URL names, if it exists.
    private func uploadTarget(_ req: HTTPRequest) throws -> EnvironmentStore {
        try store.environment(try ContainerID(req.parameters["container"] ?? ""),
                              try ContainerEnvironment(parsing: req.parameters["environment"] ?? ""))
    }

    static let unusableTicket = StratusError(.authenticationFailed,
                                             "this upload URL is unknown, used or expired: ask assets/upload for a new one")

    func admitUpload(_ req: HTTPRequest) async -> BodyAdmission {
        let api = self
        let ticket = req.parameters["ticket"] ?? ""
        let live = (try? await blocking.run { try api.uploadTarget(req).assets.uploadTicketIsLive(ticket) }) ?? false
        return live ? .admitted(credential: "upload ticket \(ticket.prefix(16))") : .refused(envelope(Self.unusableTicket))
    }

    /// An upload to a ticket `assets/upload` handed out; what goes wrong is the handout group's to answer (CloudKit's
    /// envelope).
    func receiveUpload(_ req: HTTPRequest) async throws -> HTTPResponse {
        let api = self
        return try await blocking.run {
            let env = try api.uploadTarget(req)
            guard let user = try env.assets.redeemUploadTicket(req.parameters["ticket"] ?? "") else { throw Self.unusableTicket }
            let asset = try env.assets.uploadAsset(req.body, uploader: user)
            return api.json { w in
                w.beginObject()
                w.key("singleFile")
                w.beginObject()
                w.field("wrappingKey", "")
                w.field("fileChecksum", asset.fileChecksum)
                w.field("receipt", asset.receipt ?? "")
                w.field("referenceChecksum", asset.referenceChecksum ?? asset.fileChecksum)
                w.field("size", asset.size)
                w.endObject()
                w.endObject()
            }
        }
    }

    func serveAsset(_ req: HTTPRequest) async -> HTTPResponse {
        let notFound = envelope(StratusError(.notFound, "no such asset, or the link expired"))
        guard let container = try? ContainerID(req.parameters["container"] ?? ""), let environment = ContainerEnvironment(rawValue: req.parameters["environment"] ?? ""),
              let hex = req.parameters["hex"], hex.utf8.count == 64, let bytes = ASCIIHex.decode(hex),
              let expires = req.query("e").flatMap(Int64.init), let sig = req.query("s") else { return notFound }
        let checksum = Data(bytes).base64EncodedString()
        let api = self
        let content: Data?? = try? await blocking.run {
            let env = try api.store.environment(container, environment)
            guard env.assets.downloadIsSigned(hex: hex, expires: expires, signature: sig) else { return nil }
            return env.assets.assetContent(checksum: checksum)
        }
        guard let found = content, let data = found else { return notFound }
        var h = HTTPHeaders()
        h["content-type"] = "application/octet-stream"
        h["cache-control"] = "private, max-age=3600"
        h["x-content-type-options"] = "nosniff"
        return HTTPResponse(status: .ok, headers: h, body: data)
    }
}
