import Foundation
import StratusModel
import StratusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One running `stratus serve --port 0` with the given arguments, and the URL it says it serves.
final class ServeProcess: @unchecked Sendable {
    let process = ChildProcess()
    let url: String

    /// `environment` is added to this process's own for the child only (never `setenv`: tests share the process).
    /// `descriptorLimit`: the child's descriptor limit, soft and hard (a server that cannot raise it further).
    init(arguments: [String], environment: [String: String] = [:], descriptorLimit: Int? = nil) async throws {
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", Executables.url("stratus").path, "serve", "--port", "0"] + arguments
        } else {
            process.executableURL = Executables.url("stratus")
            process.arguments = ["serve", "--port", "0"] + arguments
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        let reader = out.fileHandleForReading
        url = try await Executables.offPool {
            var buffer = ""
            while true {
                let chunk = reader.availableData
                guard !chunk.isEmpty else { throw StratusError(.internalError, "stratus serve ended before serving: \(buffer)") }
                buffer += String(decoding: chunk, as: UTF8.self)
                if let line = buffer.split(separator: "\n").first(where: { $0.hasPrefix("Stratus is serving ") }) {
                    return String(line.dropFirst("Stratus is serving ".count))
                }
            }
        }
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
