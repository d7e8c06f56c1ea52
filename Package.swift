// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Stratus",
    platforms: [.macOS(.v15), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .executable(name: "stratus", targets: ["stratus"]),
        .executable(name: "stratus-bench", targets: ["stratus-bench"]),
        // CloudKit's own Swift API over CloudKit Web Services, for apps: Foundation and swift-crypto only.
        .library(name: "StratusKit", targets: ["StratusKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // The wire JSON: one value type, its strict parser and its writer, for the server and StratusKit alike.
        .target(name: "StratusJSON"),
        // Pure domain: identifiers, records, values, schema, queries, errors. Foundation and the wire JSON only.
        .target(name: "StratusModel", dependencies: ["StratusJSON"]),
        // The only importer of GRDB and of StratusPostgres: storage on either backend, schema DDL, query compiler, change log, deploy, assets.
        .target(
            name: "StratusStore",
            dependencies: [
                "StratusModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the one loop that reads rows' columns in place (RowStreamer).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // The PostgreSQL backend (`--database-url`).
                "StratusPostgres",
            ]
        ),
        // libpq, PostgreSQL's own C client: the PostgreSQL backend without SwiftNIO. Loaded (dlopen) from libpq.so.5
        // when a PostgreSQL URL is first used, with its ABI declared in the target's own headers: nothing of libpq is
        // needed to build or link, and a machine without it runs everything but PostgreSQL.
        .target(name: "CLibPQ"),
        // Connections, a bounded pool and LISTEN/NOTIFY over libpq: the only importer of CLibPQ.
        .target(name: "StratusPostgres", dependencies: ["CLibPQ"]),
        // zlib for gzip responses; deflateInit2 is a macro, wrapped in shim.h.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // libcurl (libcurl.so.4, with nghttp2) behind three C functions: the HTTP/2 client APNs needs, which URLSession on
        // Linux cannot be pointed at a test's own certificate authority for. Loaded (dlopen) when the first push is sent,
        // with the part of its ABI it uses declared in the target's own header: no libcurl headers to build, no link.
        .target(name: "CHTTP2"),
        // epoll and eventfd for StratusHTTP's event loop (Glibc's module does not export sys/epoll.h).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // Push to Apple devices: APNs provider tokens (ES256 JWT), pushes and what APNs' answers mean.
        .target(name: "StratusPush", dependencies: ["CHTTP2", "StratusModel", .product(name: "Crypto", package: "swift-crypto")]),
        // HTTP/1.1 codec, router, static files and gzip on FlyingSocks: the only importer of FlyingSocks.
        .target(
            name: "StratusHTTP",
            dependencies: [
                "CZlib", "CEpoll",
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The small mustache renderer the server's pages are drawn with (Templates/): the console's, and the API's
        // sign-in and share pages.
        .target(name: "StratusTemplates", dependencies: ["StratusHTTP"]),
        // CloudKit Web Services: endpoints, wire JSON, authentication.
        .target(name: "StratusAPI", dependencies: ["StratusModel", "StratusStore", "StratusHTTP", "StratusTemplates", .product(name: "Crypto", package: "swift-crypto"),
                                                   // RSA, for OpenID providers' RS256 identity tokens.
                                                   .product(name: "CryptoExtras", package: "swift-crypto"),
                                                   .product(name: "Logging", package: "swift-log")]),
        // The web console: pages, sessions, CSRF, login, drawn from Templates/.
        // The console imports and exports records with the API's record lines (StratusAPI's RecordLines and RecordImporter).
        .target(name: "StratusConsole", dependencies: ["StratusModel", "StratusStore", "StratusHTTP", "StratusAPI", "StratusTemplates", .product(name: "Logging", package: "swift-log")]),
        // CloudKit's Swift API (CKContainer, CKDatabase, CKRecord, the operations, CKError) talking to Stratus over
        // CloudKit Web Services. It imports no server module, so an app that uses it pulls in no GRDB and no server.
        .target(name: "StratusKit", dependencies: ["StratusJSON", .product(name: "Crypto", package: "swift-crypto")]),
        // Composition root: configuration, routes, wiring. A library, so tests start the real server.
        .target(
            name: "StratusServer",
            dependencies: ["StratusModel", "StratusStore", "StratusHTTP", "StratusAPI", "StratusConsole", "StratusTemplates", "StratusPush", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "stratus",
            dependencies: [
                "StratusModel", "StratusStore", "StratusServer", "StratusAPI", "StratusHTTP", .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "stratus-bench",
            dependencies: [
                "StratusKit", "StratusModel", "StratusStore", "StratusServer", "StratusAPI", "StratusHTTP", .product(name: "Logging", package: "swift-log"),
                // PostgreSQL's own counters (pg_stat_wal) beside the PostgreSQL figures.
                "StratusPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Feeds mutated inputs to every parser a client's bytes reach, and to the whole server, in a child process of
        // FuzzTests (a trap is reported with its input instead of stopping `swift test`).
        .executableTarget(
            name: "stratus-fuzz",
            dependencies: [
                "StratusModel", "StratusHTTP", "StratusAPI", "StratusConsole", "StratusStore", "StratusServer",
                .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "StratusKitTests", dependencies: ["StratusKit", "StratusServer", "StratusStore", "StratusModel", "StratusHTTP", "StratusTestSupport",
                                                            .product(name: "Crypto", package: "swift-crypto")]),
        // CloudKit's documented declarations, spelled as typed references and as apps call them: it only has to
        // compile, and a warning (a deprecation, an unused result) fails it as an error would.
        .testTarget(name: "StratusKitConformanceTests", dependencies: ["StratusKit"], swiftSettings: [.treatAllWarnings(as: .error)]),
        .testTarget(name: "StratusModelTests", dependencies: ["StratusModel"]),
        .testTarget(name: "StratusPostgresTests", dependencies: ["StratusPostgres", "StratusTestSupport"]),
        // A plain POSIX-socket HTTP client that sends exactly the bytes a test wants (malformed, oversized, slow).
        // The stand-in OpenID provider serves over StratusHTTP and signs with swift-crypto's keys.
        .target(name: "StratusTestSupport", dependencies: ["StratusHTTP", "StratusJSON", .product(name: "GRDB", package: "GRDB.swift"),
                                                           .product(name: "Crypto", package: "swift-crypto"),
                                                           .product(name: "CryptoExtras", package: "swift-crypto")],
                path: "Tests/StratusTestSupport"),
        .testTarget(name: "StratusHTTPTests", dependencies: ["StratusHTTP", "StratusTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "StratusAPITests", dependencies: ["StratusAPI", "StratusServer", "StratusHTTP", "StratusStore", "StratusModel", "StratusTestSupport",
                                                            .product(name: "CryptoExtras", package: "swift-crypto"),
                                                            .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "StratusConsoleTests", dependencies: ["StratusConsole", "StratusTemplates", "StratusServer", "StratusHTTP", "StratusStore", "StratusModel", "StratusTestSupport",
                                                                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "StratusServerTests", dependencies: ["StratusServer", "StratusHTTP", "StratusStore", "StratusModel", "StratusTestSupport"]),
        .testTarget(name: "StratusStoreTests", dependencies: ["StratusModel", "StratusStore", "StratusServer", "StratusTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                                                              .product(name: "Crypto", package: "swift-crypto")]),
        // The command-line and crash tests run the built executables, so they depend on them to get them built.
        .testTarget(name: "StratusCLITests", dependencies: ["stratus", "stratus-bench", "stratus-fuzz", "StratusStore", "StratusModel", "StratusServer", "StratusTestSupport",
                                                           .product(name: "Crypto", package: "swift-crypto")]),
    ]
)
