/// The page that asks before something cannot be undone (`confirm.mustache`): what happens, and with `expected`,
/// the name the administrator must type to go ahead.
struct ConfirmView: Encodable {
    let heading, warning, action: String
    var confirmLabel, expected: String?
    let button, cancelHref: String
}
