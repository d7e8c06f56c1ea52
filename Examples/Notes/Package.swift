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
    ]
)
