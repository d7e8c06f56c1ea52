import StratusHTTP

/// Data: records, zones, imports and asset downloads of a database.
struct DataPages: ScopedPageGroup { let console: Console }
