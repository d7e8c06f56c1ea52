import Foundation

extension CKContainer {
    /// What replaces the iCloud account: where Stratus is, which environment, and who is calling. Not in CloudKit,
    /// whose containers are configured by entitlements and the device's iCloud account.
    public struct Configuration: Sendable {
        /// Mirrors CloudKit's Development and Production environments.
        public enum Environment: String, Sendable {
            case development, production
        }

        /// Who the requests act for.
        public enum Credentials: Sendable {
            /// An API token only: the public database, read as an anonymous user.
            case none
            /// A signed-in user's web auth token (`ckWebAuthToken`), as CloudKit JS holds after sign-in.
            case webAuthToken(String)
            /// A server-to-server key: its key ID and its ECDSA P-256 private key in PEM. Acts on the public database.
            case serverToServerKey(keyID: String, privateKeyPEM: String)
        }

        /// Where Stratus answers, e.g. `https://stratus.example.com` (StratusKit's; CloudKit has one fixed server).
        public var serverURL: URL
        /// Development or Production, as CloudKit's container environments.
        public var environment: Environment
        /// An API token of the container environment (`ckAPIToken`); optional with a server-to-server key.
        public var apiToken: String?
        /// Who the requests act for: a signed-in user's web auth token, a server-to-server key, or no one.
        public var credentials: Credentials
        /// Every request's time limit, in seconds (CloudKit's `CKOperation.Configuration.timeoutIntervalForRequest`).
        public var timeoutIntervalForRequest: TimeInterval
        /// Why this configuration cannot be used (set by `fromEnvironment` when variables are missing); requests
        /// then fail with `.badContainer` and this text.
        public var problem: String?

        /// A configuration given in code (StratusKit's; see `fromEnvironment` for the `STRATUS_*` variables).
        public init(serverURL: URL, environment: Environment = .development, apiToken: String?,
                    credentials: Credentials = .none,
                    timeoutIntervalForRequest: TimeInterval = 60) {
            self.serverURL = serverURL
            self.environment = environment
            self.apiToken = apiToken
            self.credentials = credentials
            self.timeoutIntervalForRequest = timeoutIntervalForRequest
        }

        /// The configuration the `STRATUS_*` variables describe: `STRATUS_URL`, `STRATUS_ENVIRONMENT`
        /// (development|production), `STRATUS_API_TOKEN`, and `STRATUS_WEB_AUTH_TOKEN` for a signed-in user or
        /// `STRATUS_KEY_ID` + `STRATUS_PRIVATE_KEY_FILE` for a server-to-server key.
        public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            var problems: [String] = []
            let url = env["STRATUS_URL"].flatMap(URL.init(string:))
            if url == nil { problems.append("STRATUS_URL is not set to the server's URL") }
            let environment = Environment(rawValue: (env["STRATUS_ENVIRONMENT"] ?? "development").lowercased())
            if environment == nil { problems.append("STRATUS_ENVIRONMENT must be development or production") }
            var credentials = Credentials.none
            if let web = env["STRATUS_WEB_AUTH_TOKEN"], !web.isEmpty {
                credentials = .webAuthToken(web)
            } else if let key = env["STRATUS_KEY_ID"], !key.isEmpty {
                if let file = env["STRATUS_PRIVATE_KEY_FILE"], let pem = try? String(contentsOfFile: file,
                        encoding: .utf8) {
                    credentials = .serverToServerKey(keyID: key, privateKeyPEM: pem)
                } else {
                    problems.append("STRATUS_KEY_ID is set but STRATUS_PRIVATE_KEY_FILE does not name a readable PEM file")
                }
            }
            let apiToken = env["STRATUS_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            if apiToken == nil, case .serverToServerKey = credentials {} else if apiToken == nil { problems.append("STRATUS_API_TOKEN is not set") }
            var c = Configuration(serverURL: url ?? URL(string: "http://invalid.invalid")!,
                                  environment: environment ?? .development,
                                  apiToken: apiToken, credentials: credentials)
            c.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
            return c
        }
    }
}
