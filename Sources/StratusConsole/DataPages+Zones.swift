import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Zones of a database: change tokens and record counts; custom zones created and deleted (private/shared only).
extension DataPages {
    func zonesPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard let db = scope.databaseID else { return try AccessPages(console: console).chooseUserPage(r, tab: .zones) }
        let counts = try scope.env.records.recordCountsByZone(in: db)
        let custom = db.scope.allowsCustomZones
        let zones = try scope.env.zones.all(in: db).map { z in
            let name = z.zoneID.zoneName
            return ZonesView.Zone(name: name, syncToken: z.syncToken, count: counts[name] ?? 0, atomic: z.atomic,
                                  recordsHref: scope.db.records([("zone", name)]),
                                  deleteHref: (custom && !z.zoneID.isDefault) ? scope.db.deleteZone(name) : nil)
        }
        let view = ZonesView(zones: zones, canCreate: custom, createAction: scope.db.zones(),
                             message: req.query("done"))
        let json = ["zones": zones.map { ZonesView.ZoneJSON(zoneName: $0.name, syncToken: $0.syncToken,
                                                            recordCount: $0.count, atomic: $0.atomic) }]
        return page(r, tab: .zones, "zones", title: "Zones", view,
                    crumbs: [Crumb(href: scope.db.zones(),
                                   label: "\(scope.database?.rawValue ?? "public") zones")], json: json)
    }

    /// `zones.mustache`.
    struct ZonesView: Encodable {
        struct Zone: Encodable {
            let name, syncToken: String
            let count: Int
            let atomic: Bool
            let recordsHref: String
            let deleteHref: String?
        }
        /// A zone in the page's JSON variant.
        struct ZoneJSON: Encodable { let zoneName, syncToken: String; let recordCount: Int; let atomic: Bool }
        let zones: [Zone]
        let canCreate: Bool
        let createAction: String
        let message: String?
    }

    func createZone(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let db = scope.databaseID else { throw StratusError.badRequest("Choose a user first.") }
        let name = (formValue(req, "zoneName") ?? "").trimmingCharacters(in: .whitespaces)
        try scope.env.zones.createZone(ZoneID(zoneName: name, ownerRecordName: db.ownerRecordName), in: db)
        try audit(s, scope, "create zone", "\(db.scope.rawValue) database of \(db.ownerRecordName): \(name)")
        return .redirect(to: scope.db.zones([("done", "Created zone \(name).")]))
    }

    func deleteZonePage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard let db = scope.databaseID else { throw StratusError.badRequest("Choose a user first.") }
        let name = req.parameters["zone"] ?? ""
        let zone = try scope.env.zones.lookupZone(ZoneID(zoneName: name), in: db)
        let count = try scope.env.records.recordCountsByZone(in: db)[name] ?? 0
        return page(r, tab: .zones, "confirm", title: "Delete zone \(name)", ConfirmView(
            heading: "Delete zone \(zone.zoneID.zoneName)?",
            warning: "This deletes the zone and its \(count) record\(count == 1 ? "" : "s"). Devices that sync it see the zone deleted. It cannot be undone.",
            action: scope.db.deleteZone(name), confirmLabel: "Type the zone's name to confirm", expected: name, button: "Delete zone",
            cancelHref: scope.db.zones()))
    }

    func deleteZone(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let db = scope.databaseID else { throw StratusError.badRequest("Choose a user first.") }
        let name = req.parameters["zone"] ?? ""
        guard formValue(req,
                        "confirm") == name else { throw StratusError.badRequest("The name you typed does not match the zone's; nothing was deleted.") }
        try scope.env.zones.deleteZone(ZoneID(zoneName: name, ownerRecordName: db.ownerRecordName), in: db)
        try audit(s, scope, "delete zone", "\(db.scope.rawValue) database of \(db.ownerRecordName): \(name)")
        return .redirect(to: scope.db.zones([("done", "Deleted zone \(name).")]))
    }
}
