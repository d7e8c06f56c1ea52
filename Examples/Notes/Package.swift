// swift-tools-version: 6.0
import PackageDescription

// An app's package: it depends on Stratus by path and names only the StratusKit product, so it builds no server.
let package = Package(
    name: "Notes",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Stratus", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "Notes", dependencies: [.product(name: "StratusKit", package: "Stratus")]),
        // A command-line notes app that keeps a local JSON cache and syncs it through CKSyncEngine.
        .executableTarget(name: "notes-sync", dependencies: [.product(name: "StratusKit", package: "Stratus")], path: "Sources/NotesSync"),
    ]
)
