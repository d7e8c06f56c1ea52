import Testing
import StratusModel

/// Container identifiers as CloudKit names them: `iCloud.` and dot-separated segments of letters, digits, `-`, `_`.
@Suite struct ContainerIDTests {
    @Test(arguments: ["iCloud.com.example.App", "iCloud.a", "iCloud.com.example-app.My_App2", "iCloud." + String(repeating: "a", count: 248)])
    func identifiersAppsUseAreTaken(_ s: String) { #expect(ContainerID.isValid(s), "\(s)") }

    @Test(arguments: ["", "iCloud.", "iCloud..a", "iCloud.a.", "iCloud.a..b", "icloud.a", "iCloud", "iCloud.a b", "iCloud.é",
                      "iCloud.a/b", "xiCloud.a", "iCloud." + String(repeating: "a", count: 249)])
    func anythingElseIsNot(_ s: String) { #expect(!ContainerID.isValid(s), "\(s)") }
}
