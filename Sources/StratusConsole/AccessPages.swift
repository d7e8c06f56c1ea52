import StratusHTTP

/// Access: the container's users, acting as one, signing them out and purging their data.
struct AccessPages: ScopedPageGroup { let console: Console }
