import StratusHTTP

/// Schema: record types, fields, indexes, security roles, and resetting Development.
struct SchemaPages: ScopedPageGroup { let console: Console }
