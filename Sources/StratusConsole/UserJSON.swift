/// A user in a page's JSON variant.
struct UserJSON: Encodable { let userRecordName, email: String }
