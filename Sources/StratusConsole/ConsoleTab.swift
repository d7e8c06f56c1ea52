/// The console tab a page belongs to: the header marks it current, and the records and zones tabs show the
/// database switch. `none` is a page under no tab (a confirmation, a container's deletion).
enum ConsoleTab: String, Sendable {
    case none = ""
    case home, records, zones, users, subscriptions, sharing, schema, shapes, roles, deploy, history
    case telemetry, logs, notifications, webhooks, tokens, faults, reset
    case signIn = "sign-in"
    case actAs = "act-as"
    case importRecords = "import"
}
