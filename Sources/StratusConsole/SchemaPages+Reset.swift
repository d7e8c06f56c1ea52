import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Resetting Development: its data goes and its schema becomes Production's again, after a typed confirmation.
extension SchemaPages {
    func resetPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let scope = r.scope
        guard !scope.isProduction else { throw StratusError(.notFound, "Only Development can be reset.") }
        return page(r, tab: .reset, "confirm", title: "Reset Development", ConfirmView(
            heading: "Reset Development?",
            warning: "This deletes every record, zone and asset in Development, and puts Development's schema back to Production's. Production is not touched. It cannot be undone. (\(try scope.env.records.recordCount()) records now.)",
            action: scope.paths.reset(), confirmLabel: "Type the container's identifier to confirm",
            expected: scope.container.rawValue, button: "Reset Development", cancelHref: scope.paths.home()))
    }

    func reset(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard !scope.isProduction else { throw StratusError(.notFound, "Only Development can be reset.") }
        guard formValue(req, "confirm") == scope.container.rawValue else {
            throw StratusError.badRequest("The identifier you typed does not match the container's; nothing was reset.")
        }
        try store.lifecycle.resetDevelopment(scope.container)
        try audit(s, scope, "reset development", "")
        return .redirect(to: scope.paths.schema(done: "Development was reset."))
    }
}
