import ArgumentParser
import StratusModel
import StratusStore

extension AuthCommand {
    struct SignUpCommand: ContainerWideCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-up",
            abstract: "Print, or choose, the ways new accounts are made in a container.",
            discussion: """
                password: an email and a password on the sign-in page (the default, with provider). provider: a first \
                sign-in with an OpenID provider the container trusts (stratus auth provider add). none: only the \
                accounts that exist, and those an operator makes. Accounts that exist keep signing in.
                """)
        @OptionGroup var target: ContainerOptions
        @Option(help: "The ways, comma-separated: password, provider, or none.") var allow: String?

        func run(_ t: ContainerTarget) throws {
            if let allow {
                let ways = try SignUpWay.parse(allow)
                try t.store.accounts.setSignUpWays(ways, container: t.container)
                try t.audit("choose sign-up ways", SignUpWay.spelled(ways))
            }
            print(SignUpWay.spelled(try t.store.accounts.signUpWays(container: t.container)))
        }
    }
}
