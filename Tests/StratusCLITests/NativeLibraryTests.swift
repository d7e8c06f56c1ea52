import Foundation
import Testing
import StratusModel
import StratusTestSupport

/// PostgreSQL's client (libpq) and the HTTP/2 client (libcurl) are loaded when they are used, not linked: the
/// embedded default builds with SQLite's and zlib's headers only. Their ABI is declared in the project's own headers,
/// checked here against the installed ones when those are present.
@Suite struct NativeLibraryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let cc = Prerequisites.executable("cc") ?? Prerequisites.executable("clang")
    static let libpqHeaders = FileManager.default.fileExists(atPath: "/usr/include/postgresql/libpq-fe.h")
    static let curlHeaders = ["/usr/include/x86_64-linux-gnu/curl/curl.h", "/usr/include/aarch64-linux-gnu/curl/curl.h", "/usr/include/curl/curl.h"]
        .contains { FileManager.default.fileExists(atPath: $0) }

    /// Nothing in Sources includes libpq's or libcurl's headers, and nothing in the package links them.
    @Test func theBuildNeedsNeitherHeadersNorLibraries() throws {
        var offenders: [String] = []
        let sources = Self.root.appendingPathComponent("Sources")
        for case let url as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! {
            guard ["c", "h", "swift", "modulemap"].contains(url.pathExtension), let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let t = line.trimmingCharacters(in: .whitespaces)
                let including = t.hasPrefix("#include") && (t.contains("libpq-fe.h") || t.contains("curl/curl.h"))
                let linking = t.hasPrefix("link ") && (t.contains("\"pq\"") || t.contains("\"curl\""))
                if including || linking { offenders.append("\(url.lastPathComponent): \(t)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!package.contains(#"linkedLibrary("curl")"#) && !package.contains(#"linkedLibrary("pq")"#) && !package.contains("libpq-dev"))
    }

    /// The `stratus` binary's own direct dependencies (ELF NEEDED) name neither library.
    @Test(.enabled(if: Prerequisites.available(Prerequisites.executable("readelf") != nil), "readelf (binutils) is not installed"))
    func theBinaryDoesNotNeedThem() throws {
        let r = try Tools.run("readelf", ["-d", Executables.url("stratus").path])
        #expect(r.status == 0)
        let needed = r.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty && !needed.contains { $0.contains("libpq") || $0.contains("libcurl") }, "\(needed)")
    }

    /// Without libpq, a PostgreSQL URL fails at once with one line naming the package; SQLite serves as always.
    @Test func withoutLibpqPostgreSQLSaysWhatToInstallAndSQLiteStillServes() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let missing = ["STRATUS_LIBPQ_PATH": "/nonexistent/libpq.so.5"]
        #expect(try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Local", "--data", data.path], environment: missing).status == 0)
        for args in [["container", "list", "--database-url", "postgres://stratus@127.0.0.1:1/none"],
                     ["migrate", "--from-data", data.path, "--to", "postgres://stratus@127.0.0.1:1/none"]] {
            let r = try await Executables.run("stratus", args, environment: missing)
            let lines = r.stderr.split(separator: "\n").filter { !$0.isEmpty }
            #expect(r.status != 0 && lines.count == 1 && lines[0].contains("apt-get install libpq5"), "\(args[0]): \(r.stderr)")
        }
        let serve = try await Executables.offPool { () throws -> (Int32, String) in
            let p = ChildProcess()
            p.executableURL = Executables.url("stratus")
            p.arguments = ["serve", "--port", "0", "--database-url", "postgres://stratus@127.0.0.1:1/none"]
            p.environment = ProcessInfo.processInfo.environment.merging(missing) { $1 }
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let text = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: text, as: UTF8.self))
        }
        #expect(serve.0 != 0 && serve.1.contains("apt-get install libpq5"), "\(serve.1)")
        // SQLite, the console, everything else: as always.
        let server = try await ServeProcess(arguments: ["--data", data.path, "--demo"], environment: missing)
        defer { server.stop() }
        let health = try await Executables.offPool { try Tools.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.url + "-/health"]).output }
        #expect(health == "200")
    }

    /// libpq's types and functions as the project declares them are the installed libpq-fe.h's: a function declared
    /// differently does not compile, and every enum value, size and offset prints the same.
    @Test(.enabled(if: Prerequisites.available(cc != nil && libpqHeaders), "libpq-dev or a C compiler is not installed"))
    func libpqDeclarationsMatchTheInstalledHeaders() throws {
        let include = Self.root.appendingPathComponent("Sources/CLibPQ/include").path
        let body = """
            #include <stdio.h>
            #include <stddef.h>
            int main(void) {
                printf("%zu %zu %zu %zu %zu\\n", sizeof(PGnotify), offsetof(PGnotify, relname), offsetof(PGnotify, be_pid), offsetof(PGnotify, extra), offsetof(PGnotify, next));
                printf("%d %d %d %d\\n", CONNECTION_OK, CONNECTION_BAD, CONNECTION_CHECK_STANDBY, (int)sizeof(ConnStatusType));
                printf("%d %d %d %d %d %d %d\\n", PGRES_EMPTY_QUERY, PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_FATAL_ERROR, PGRES_SINGLE_TUPLE, PGRES_PIPELINE_SYNC, PGRES_PIPELINE_ABORTED);
                printf("%d %d %zu %zu\\n", PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE_PRIMARY, sizeof(Oid), sizeof(ExecStatusType));
                return 0;
            }
            """
        let installed = try Self.compileAndRun("#include <postgresql/libpq-fe.h>\n#include \"\(include)/libpq_functions.h\"\n" + body)
        let ours = try Self.compileAndRun("#include \"\(include)/libpq_types.h\"\n#include \"\(include)/libpq_functions.h\"\n" + body)
        #expect(installed == ours && !installed.isEmpty, "installed:\n\(installed)\nours:\n\(ours)")
    }

    /// libcurl's options, infos and function types as http2_client.c uses them are the installed curl.h's.
    @Test(.enabled(if: Prerequisites.available(cc != nil && curlHeaders), "libcurl4-openssl-dev or a C compiler is not installed"))
    func curlDeclarationsMatchTheInstalledHeaders() throws {
        let dir = Self.root.appendingPathComponent("Sources/CHTTP2").path
        let body = """
            #include <stdio.h>
            #include <stddef.h>
            int main(void) {
                printf("%d %d %d %d %d %d %d %d\\n", CURLOPT_WRITEDATA, CURLOPT_URL, CURLOPT_ERRORBUFFER, CURLOPT_WRITEFUNCTION, CURLOPT_POSTFIELDS,
                       CURLOPT_HTTPHEADER, CURLOPT_HEADERDATA, CURLOPT_POST);
                printf("%d %d %d %d %d %d %d %d\\n", CURLOPT_CAINFO, CURLOPT_HEADERFUNCTION, CURLOPT_HTTP_VERSION, CURLOPT_NOSIGNAL,
                       CURLOPT_POSTFIELDSIZE_LARGE, CURLOPT_TIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS, CURLOPT_PROTOCOLS_STR);
                printf("%d %d %d %d %d\\n", CURLINFO_RESPONSE_CODE, CURLINFO_HTTP_VERSION, CURL_HTTP_VERSION_2_0, CURL_HTTP_VERSION_2TLS, CURLE_OK);
                printf("%d %d %zu %zu %zu %zu\\n", (int)CURL_GLOBAL_DEFAULT, CURL_ERROR_SIZE, sizeof(curl_off_t), sizeof(CURLcode),
                       sizeof(struct curl_slist), offsetof(struct curl_slist, next));
                return 0;
            }
            """
        // The function types are assigned the installed functions: a type that differs is an error.
        let assign = """
            static void check(void) {
                stratus_curl_global_init_fn a = curl_global_init; stratus_curl_easy_init_fn b = curl_easy_init;
                stratus_curl_easy_cleanup_fn c = curl_easy_cleanup; stratus_curl_easy_reset_fn d = curl_easy_reset;
                stratus_curl_easy_setopt_fn e = curl_easy_setopt; stratus_curl_easy_perform_fn f = curl_easy_perform;
                stratus_curl_easy_getinfo_fn g = curl_easy_getinfo; stratus_curl_easy_strerror_fn h = curl_easy_strerror;
                stratus_curl_slist_append_fn i = curl_slist_append; stratus_curl_slist_free_all_fn j = curl_slist_free_all;
                (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h; (void)i; (void)j;
            }
            """
        let installed = try Self.compileAndRun("#include <curl/curl.h>\n#include \"\(dir)/curl_functions.h\"\n" + assign + "\n" + body, link: ["-lcurl"])
        let ours = try Self.compileAndRun("#include \"\(dir)/curl_types.h\"\n#include \"\(dir)/curl_functions.h\"\n" + body)
        #expect(installed == ours && !installed.isEmpty, "installed:\n\(installed)\nours:\n\(ours)")
    }

    /// Compiles a C program with every warning about types an error, runs it, and returns what it printed.
    static func compileAndRun(_ source: String, link: [String] = []) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-abi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("check.c"), binary = dir.appendingPathComponent("check")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let built = try Tools.run(cc!, ["-Werror=incompatible-pointer-types", "-Werror=implicit-function-declaration", "-o", binary.path, file.path] + link)
        guard built.status == 0 else { return "did not compile: \(built.output)" }
        return try Tools.run(binary.path, []).output
    }
}
