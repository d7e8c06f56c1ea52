import Foundation

extension NSCoder {
    /// An object that may be absent. Foundation on Linux treats decoding a missing key as corrupt data (and, by
    /// default, aborts), so optional keys are checked first.
    func optionalObject<T: NSObject & NSCoding>(of type: T.Type, forKey key: String) -> T? {
        containsValue(forKey: key) ? decodeObject(of: type, forKey: key) : nil
    }
}
