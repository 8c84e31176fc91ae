import Foundation
import StenoCatalog
import StenoPostgres
import StenoSQLite

extension StenoDaemon {
    /// Opens the configured catalog: PostgreSQL when `database` is a postgres:// URL, else the
    /// SQLite file. Either brings its schema up to date or refuses a newer one.
    func openCatalog() async throws -> any CatalogStore {
        if let settings = configuration.postgres {
            logger.info("connecting to the PostgreSQL catalog", metadata: ["database": "\(settings.redactedURL)"])
            return try await PostgresCatalog.open(settings, logger: logger)
        }
        return try await SQLiteCatalog.open(path: configuration.databasePath)
    }
}
