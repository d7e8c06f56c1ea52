import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel

/// `stratus remote …`: what CI changes on a server it cannot open the data of, through the admin API with a scoped
/// admin token (`stratus admin token create`): Development's schema, and the deploy to Production. The token's
/// role decides; a refusal prints the server's reason and exits 1.
struct RemoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote", abstract: "Change a running server through its admin API, with an admin token.",
        subcommands: [SchemaImport.self, Deploy.self])

    struct Target: ParsableArguments {
        @Option(help: "The server's URL (https://ck.example.com).") var url: String
        @Option(name: .customLong("token-file"), help: "A file holding the admin token (its first line).")
        var tokenFile: String
        @Option var container: String

        /// POSTs `body` to `path` (under `/-/admin/containers/{container}/`): the answer's changes, one per line.
        func post(_ path: String, body: Data) async throws {
            guard let token = try? String(contentsOfFile: tokenFile, encoding: .utf8)
                .split(separator: "\n").first.map(String.init), !token.isEmpty else {
                throw ValidationError("cannot read a token from \(tokenFile)")
            }
            let container = try ContainerID(container)
            guard let base = URL(string: url.hasSuffix("/") ? url : url + "/"),
                  let target = URL(string: "-/admin/containers/\(container.rawValue)/\(path)", relativeTo: base) else {
                throw ValidationError("--url is not a URL")
            }
            var request = URLRequest(url: target)
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let answer = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            guard status == 200 else {
                let reason = answer?["reason"] as? String ?? String(decoding: data.prefix(500), as: UTF8.self)
                FileHandle.standardError.write(Data("error: \(reason) (HTTP \(status))\n".utf8))
                throw ExitCode(1)
            }
            let changes = answer?["changes"] as? [String] ?? []
            print(changes.isEmpty ? "no changes" : changes.joined(separator: "\n"))
        }
    }

    struct SchemaImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schema-import", abstract: "Import a .ckdb schema into the container's Development.")
        @OptionGroup var target: Target
        @Option(help: "The .ckdb file.") var file: String

        func run() async throws {
            guard let schema = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            try await target.post("development/schema", body: schema)
        }
    }

    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deploy the container's Development schema to Production (an admin's or owner's token).")
        @OptionGroup var target: Target

        func run() async throws { try await target.post("deploy", body: Data()) }
    }
}
