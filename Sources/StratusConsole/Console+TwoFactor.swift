import StratusHTTP
import StratusModel

extension Console {
    /// Where a session goes before its page, for the second factor: a password sign-in of an administrator with a
    /// second factor reaches only the second step until it passes; with `--require-two-factor`, an administrator
    /// without one reaches only its enrolment. Nil: on to the page.
    func twoFactorDetour(_ session: Session, _ need: ConsoleNeed) throws -> HTTPResponse? {
        if session.secondStepPending {
            return need == .secondStep ? nil : .redirect(to: ConsolePaths.twoFactor)
        }
        guard requireTwoFactor, need != .secondStep, need != .enrolment,
              try !store.admins.twoFactor.hasSecondFactor(session.admin) else { return nil }
        return .redirect(to: ConsolePaths.twoFactor)
    }
}
