/// The URLs the server hands out, made in one place beside the routes that answer them (as `ConsolePaths` is for
/// the console): asset uploads and downloads, web courier polls, share pages. Each is a path; the API puts its base
/// (`CloudKitAPI.baseURL`) in front. Containers and environments are validated names and tokens, tickets, hex
/// checksums and short GUIDs are URL-safe by construction, so nothing here needs escaping.
public enum HandedOutPaths {
    public static let assetUploadRoute = "/-/assets/upload/{container}/{environment}/{ticket}"
    public static let assetDownloadRoute = "/-/assets/{container}/{environment}/{hex}"
    public static let webCourierRoute = "/-/webcourier/{container}/{environment}/{token}"
    public static let shareRoute = "/share/{guid}"

    /// Where `assets/upload` tells a client to POST a file's bytes.
    public static func assetUpload(_ container: ContainerID, _ environment: ContainerEnvironment,
                                   ticket: String) -> String {
        "/-/assets/upload/\(container.rawValue)/\(environment.rawValue)/\(ticket)"
    }

    /// An asset's content for whoever has the URL until `expires` (signed: `signature`).
    public static func assetDownload(_ container: ContainerID, _ environment: ContainerEnvironment, hex: String,
                                     expires: Int64, signature: String) -> String {
        "/-/assets/\(container.rawValue)/\(environment.rawValue)/\(hex)?e=\(expires)&s=\(signature)"
    }

    /// The web courier poll `tokens/create` hands CloudKit JS.
    public static func webCourier(_ container: ContainerID, _ environment: ContainerEnvironment,
                                  token: String) -> String {
        "/-/webcourier/\(container.rawValue)/\(environment.rawValue)/\(token)"
    }

    /// The page a share's URL opens.
    public static func share(_ shortGUID: String) -> String { "/share/\(shortGUID)" }
}
