/// What every page in a container shows around its content (templates' `scope`): the environment (Production in its
/// own colours), the sidebar — environment switch and the pages grouped as CloudKit Console groups them (Data,
/// Schema, Monitor, Settings) —, the database switch, and the paths the header's forms and links use.
struct ConsoleHeader: Encodable {
    struct Link: Encodable {
        let label: String
        let href: String
        let current: Bool
        var refused = false
        /// The key that follows `g` to go here (`console.js`; `?` lists them); empty for none (present, so a
        /// template's lookup stops at the link instead of searching every enclosing context).
        var key = ""
    }

    /// One group of the sidebar.
    struct Section: Encodable {
        let id: String
        let label: String
        let links: [Link]
    }

    let container: String
    let environment: String
    let environmentLabel: String
    let isProduction: Bool
    let database: String
    let overview: Link
    let sections: [Section]
    let environments: [Link]
    let databases: [Link]
    let showDatabases: Bool
    let publicRecordsPath: String
    let publicZonesPath: String
    let privateRecordsPath: String
    let sharedRecordsPath: String
    let webhooksPath: String
    let rolesPath: String
    let createRolePath: String
    let schemaImportPath: String
    let recordTypesPath: String
    let tokensPath: String
    let keysPath: String
    let deployPath: String
    let userDataBrowsable: Bool
}

/// One step of a page's breadcrumbs.
struct Crumb: Encodable {
    let href: String
    let label: String
}
