import StratusHTTP

/// Settings: API tokens and server-to-server keys.
struct SettingsPages: ScopedPageGroup { let console: Console }
