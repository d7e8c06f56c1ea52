import StratusHTTP

/// Settings: API tokens and server-to-server keys, and how the container's users sign in.
struct SettingsPages: ScopedPageGroup { let console: Console }
