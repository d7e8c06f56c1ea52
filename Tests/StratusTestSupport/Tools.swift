import Foundation

/// Runs a command-line tool from PATH (openssl, curl, nginx) to the end: its status and its output, stdout and
/// stderr together.
public enum Tools {
    public static func run(_ tool: String, _ args: [String], env: [String: String] = [:], stdin: Data? = nil) throws -> (status: Int32, output: String) {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        p.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
        let out = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A self-signed certificate for 127.0.0.1 and localhost (`cert.pem`, `key.pem` in `directory`), a day long.
    public static func selfSignedCertificate(in directory: URL) throws -> (cert: URL, key: URL) {
        let cert = directory.appendingPathComponent("cert.pem"), key = directory.appendingPathComponent("key.pem")
        let openssl = try run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", cert.path,
                                          "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        guard openssl.status == 0 else { throw ToolFailure(message: "openssl: \(openssl.output)") }
        return (cert, key)
    }

    public struct ToolFailure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }
}
