// StratusModel's modules see the wire JSON (StratusJSON) as their own.
@_exported import StratusJSON
import Foundation

extension JSON {
    /// Parses a request body; an empty body is an empty object (GET endpoints, bodyless POSTs).
    public static func parse(_ data: Data) throws(StratusError) -> JSON {
        if data.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return .object([:]) }
        do { return try JSONParser.parse(data) } catch {
            throw StratusError.badRequest("the request body is not valid JSON")
        }
    }
}
