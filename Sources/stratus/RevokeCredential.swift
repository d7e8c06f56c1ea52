import ArgumentParser

/// `stratus token revoke ID` and `stratus key revoke KEY_ID`: the credential stops working on every node of the
/// container at once (both environments), and the audit log says who revoked which.
struct RevokeCredential<Credential: ManagedCredential>: ContainerWideCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "revoke",
                             abstract: "Revoke one of a container's \(Credential.noun)s by its \(Credential.idName).")
    }
    @OptionGroup var target: ContainerOptions
    @Argument(help: ArgumentHelp(valueName: Credential.idName.lowercased().replacingOccurrences(of: " ",
            with: "-"))) var id: Credential.ID

    func run(_ t: ContainerTarget) throws {
        try Credential.revoke(id, t)
        try t.audit("revoke \(Credential.noun)", Credential.auditName(id))
        print("revoked \(id)")
    }
}
