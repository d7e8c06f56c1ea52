/// What every page in a container shows around its content (templates' `scope`): the environment (Production in its
/// own colours), the sidebar — environment switch and the pages grouped as CloudKit Console groups them (Data,
/// Schema, Monitor, Settings) —, the database switch, and the paths the header's forms and links use.
struct ConsoleHeader: Encodable {
    struct Link: Encodable {
        let label, href: String
        let current: Bool
        var refused = false
        /// The key that follows `g` to go here (`console.js`; `?` lists them); empty for none (present, so a
        /// template's lookup stops at the link instead of searching every enclosing context).
        var key = ""
    }

    /// One group of the sidebar.
    struct Section: Encodable { let id, label: String; let links: [Link] }

    let container, environment, environmentLabel: String
    let isProduction: Bool
    let database: String
    let overview: Link
    let sections: [Section]
    let environments, databases: [Link]
    let showDatabases: Bool
    let publicRecordsPath, publicZonesPath, privateRecordsPath, sharedRecordsPath, webhooksPath, rolesPath, createRolePath: String
    let schemaImportPath, recordTypesPath, tokensPath, keysPath, deployPath: String
    let userDataBrowsable: Bool
}

/// One step of a page's breadcrumbs.
struct Crumb: Encodable { let href, label: String }
