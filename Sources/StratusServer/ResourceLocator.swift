import Foundation

/// Finds the console's templates and static files without flags, wherever `stratus` runs from: beside the
/// executable or in a parent of it (a checkout's `.build/release/stratus` finds the checkout's `Templates/`), in
/// `share/stratus/` of an install prefix (`/usr/local/bin/stratus` → `/usr/local/share/stratus/Templates`), or
/// in the working directory. `--templates` and `--public` still override.
public enum ResourceLocator {
    /// The directory named `name` holding `marker`, or `name` in the working directory if none is found.
    public static func locate(_ name: String, marker: String) -> URL {
        for base in searchRoots() {
            for candidate in [base.appendingPathComponent(name),
                              base.appendingPathComponent("share/stratus").appendingPathComponent(name)] {
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(marker).path) { return candidate }
            }
        }
        return URL(fileURLWithPath: name)
    }

    public static var templates: URL { locate("Templates", marker: "containers.mustache") }
    public static var publicFiles: URL { locate("Public", marker: "console.css") }

    /// The executable's directory and each of its parents, then the working directory.
    static func searchRoots() -> [URL] {
        var roots: [URL] = []
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent().standardizedFileURL
        while dir.pathComponents.count > 1 {
            roots.append(dir)
            dir.deleteLastPathComponent()
        }
        roots.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        return roots
    }
}
