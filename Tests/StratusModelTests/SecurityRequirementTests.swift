import StratusModel
import Testing

/// `SecurityPolicy.require` refuses with ACCESS_DENIED exactly what `allows` does not allow.
@Suite struct SecurityRequirementTests {
    static let grants: [String: Permission] = [SecurityRole.world: .read, SecurityRole.authenticated: .create, SecurityRole.creator: .write,
                                               "Editor": .write]

    /// (permission, caller, the record's creator, allowed).
    static let cases: [(Permission, Caller, String?, Bool)] = [
        (.read, .anonymous, "_a", true),
        (.create, .anonymous, nil, false),
        (.create, Caller(userRecordName: "_a"), nil, true),
        (.write, Caller(userRecordName: "_a"), "_a", true),
        (.write, Caller(userRecordName: "_b"), "_a", false),
        (.write, Caller(userRecordName: "_b", roles: ["Editor"]), "_a", true),
        (.write, Caller(userRecordName: nil, roles: ["Editor"]), "_a", false),
        (.write, .anonymous, nil, false),
    ]

    @Test(arguments: cases)
    func permissionsAddUpFromTheCallersRoles(_ p: Permission, _ caller: Caller, _ creator: String?, _ allowed: Bool) {
        #expect(SecurityPolicy.allows(p, grants: Self.grants, caller: caller, creator: creator) == allowed)
        do {
            try SecurityPolicy.require(p, recordType: "Note", grants: Self.grants, caller: caller, creator: creator, recordName: "r")
            #expect(allowed)
        } catch {
            #expect(!allowed && error.code == .accessDenied && error.recordName == "r")
        }
    }
}
