import StratusModel

/// The banner every page of a container environment shows while the admin acts as one of its users: who (name and
/// email: the admin chose them from the Users list, which shows both), and the form that stops.
struct ActingBanner: Encodable {
    let name, email, userRecordName, stopAction, chooseHref: String

    init(_ user: ContainerUser, paths: ConsolePaths) {
        let full = "\(user.firstName) \(user.lastName)".trimmingCharacters(in: .whitespaces)
        name = full.isEmpty ? user.email : full
        email = user.email
        userRecordName = user.userRecordName
        stopAction = paths.stopActing()
        chooseHref = paths.actAs()
    }
}
