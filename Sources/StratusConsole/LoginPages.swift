import StratusHTTP

/// Outside any container: signing in and out, the first administrator's setup, and the theme.
struct LoginPages: ConsolePageGroup { let console: Console }
