import Foundation

/// Mirrors `CKOperationGroup`: several operations of one user action, for the server's logs (each request carries
/// the group's ID) and a configuration its operations share. Grouping does not make operations atomic.
public class CKOperationGroup: NSObject, @unchecked Sendable {
    /// Mirrors `CKOperationGroup.TransferSize`, with CloudKit's raw values.
    public enum TransferSize: Int, Sendable {
        case unknown = 0, kilobytes, megabytes, tensOfMegabytes, hundredsOfMegabytes, gigabytes, tensOfGigabytes, hundredsOfGigabytes
    }

    /// Mirrors `CKOperationGroup.operationGroupID`: chosen by the system, unique to this group.
    public let operationGroupID: String
    /// Mirrors `CKOperationGroup.defaultConfiguration`: what an operation of the group uses unless it sets its own.
    public var defaultConfiguration: CKOperation.Configuration!
    /// Mirrors `CKOperationGroup.name`.
    public var name: String?
    /// Mirrors `CKOperationGroup.quantity`: how many operations the app expects in the group.
    public var quantity: Int = 0
    /// Mirrors `CKOperationGroup.expectedSendSize`.
    public var expectedSendSize: TransferSize = .unknown
    /// Mirrors `CKOperationGroup.expectedReceiveSize`.
    public var expectedReceiveSize: TransferSize = .unknown

    /// Mirrors `CKOperationGroup()`.
    public override init() {
        operationGroupID = Secrets.hexID()
        defaultConfiguration = CKOperation.Configuration()
        super.init()
    }

    /// Mirrors `CKOperationGroup(coder:)`: the group's ID, name and sizes.
    public init?(coder aDecoder: NSCoder) {
        operationGroupID = aDecoder.decodeObject(forKey: "operationGroupID") as? String ?? Secrets.hexID()
        defaultConfiguration = CKOperation.Configuration()
        name = aDecoder.decodeObject(forKey: "name") as? String
        quantity = aDecoder.decodeInteger(forKey: "quantity")
        expectedSendSize = TransferSize(rawValue: aDecoder.decodeInteger(forKey: "expectedSendSize")) ?? .unknown
        expectedReceiveSize = TransferSize(rawValue: aDecoder.decodeInteger(forKey: "expectedReceiveSize")) ?? .unknown
        super.init()
    }

    /// A short form for logs.
    public override var description: String { "<CKOperationGroup \(operationGroupID)\(name.map { " \"\($0)\"" } ?? "")>" }
}

private enum Secrets {
    static func hexID() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<8).map { _ in String(format: "%02X", UInt8.random(in: 0...255, using: &rng)) }.joined()
    }
}
