import StenoCatalog

extension SQLiteCatalog {
    /// `CatalogSQL.recordingVisible(to:)` for queries with positional arguments: binds the user
    /// id once, as the next `?`.
    static let recordingVisibleToPositionalUser =
        "EXISTS (SELECT 1 FROM (SELECT ? AS id) viewer WHERE \(CatalogSQL.recordingVisible(to: "viewer.id")))"
}
