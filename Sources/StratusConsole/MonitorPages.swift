import StratusHTTP

/// Monitor: the home page, subscriptions, notifications, webhooks, sharing, query shapes, logs, telemetry and faults.
struct MonitorPages: ScopedPageGroup { let console: Console }
