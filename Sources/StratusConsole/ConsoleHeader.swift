/// What every page in a container shows above its content (templates' `scope`): the environment (Production in its
/// own colours), the environment and database switches, the tabs, and the paths the header's forms and links use.
struct ConsoleHeader: Encodable {
    struct Link: Encodable {
        let label: String
        let href: String
        let current: Bool
        var refused = false
    }

    let container: String
    let environment: String
    let environmentLabel: String
    let isProduction: Bool
    let otherEnvironmentLabel: String
    let otherEnvironmentHref: String
    let database: String
    let tabs: [Link]
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
