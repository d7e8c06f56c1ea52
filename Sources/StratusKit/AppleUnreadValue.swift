import Foundation

/// A value of an Apple archive that StratusKit does not read (a reference, a location): decoded as nothing, so the
/// values beside it are still read.
final class AppleUnreadValue: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    init?(coder: NSCoder) {}
    func encode(with coder: NSCoder) {}
}
