import Foundation
import Logging
import PostgresNIO
import StenoCatalog
import StenoTesting
import Testing

@testable import StenoPostgres

@Suite("PostgreSQL catalog", .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresCatalogTests {
    let logger = Logger(label: "steno.test.postgres")

    func freshSettings() async throws -> PostgresSettings {
        let cluster = try await PostgresCluster.shared()
        return try PostgresSettings.parse(url: cluster.url(database: try await cluster.createDatabase()))
    }

    @Test func migrationsCreateTheWholeDomain() async throws {
        // Over the Unix socket; the other tests connect over TCP.
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        let catalog = try await PostgresCatalog.open(settings, logger: logger)
        defer { catalog.close() }
        var tables: Set<String> = []
        for row in try await catalog.rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public'") {
            tables.insert(try row.decode(String.self))
        }
        for table in [
            "users", "user_emails", "user_uids", "calendar_accounts", "calendars", "calendar_resources", "events", "event_attendees",
            "meetings", "recordings", "recording_paths", "links", "link_attendees", "link_history", "jobs", "devices",
            "device_pairings", "change_clock", "meeting_search", "recording_search", "steno_migrations",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        let applied = try await catalog.rows("SELECT identifier FROM steno_migrations ORDER BY identifier").map { try $0.decode(String.self) }
        #expect(applied == PostgresMigrations.files.map(\.identifier))
    }

    /// JIT compilation took 40-150 ms for listings that read fifty rows in a few (their
    /// estimates, for a walk stopped by LIMIT, pass JIT's threshold): the catalog's sessions
    /// turn it off.
    @Test func sessionsCompileNoQueries() async throws {
        let catalog = try await PostgresCatalog.open(try await freshSettings(), logger: logger)
        defer { catalog.close() }
        #expect(try await catalog.row("SHOW jit")?.decode(String.self) == "off")
    }

    @Test func daemonsStartingTogetherMigrateOnce() async throws {
        let settings = try await freshSettings()
        let logger = self.logger
        let catalogs = try await withThrowingTaskGroup(of: PostgresCatalog.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresCatalog.open(settings, logger: logger) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { catalogs.forEach { $0.close() } }
        let count = try await catalogs[0].row("SELECT count(*) FROM steno_migrations").map { try $0.decode(Int64.self) }
        #expect(count == Int64(PostgresMigrations.files.count))
        // A second open finds nothing to do and keeps the data.
        let again = try await PostgresCatalog.open(settings, logger: logger)
        again.close()
    }

    @Test func aCatalogFromANewerStenoIsRefused() async throws {
        let settings = try await freshSettings()
        let catalog = try await PostgresCatalog.open(settings, logger: logger)
        try await catalog.execute("INSERT INTO steno_migrations (identifier, applied_at) VALUES ('9999_from_the_future', 0)")
        catalog.close()
        await #expect {
            _ = try await PostgresCatalog.open(settings, logger: logger)
        } throws: { error in
            guard case .schemaTooNew(let database, _) = error as? StoreError else { return false }
            return database.contains("9999_from_the_future")
        }
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        // A port nothing listens on (the cluster's own, on a server that is not there).
        let port = try FreePort.onLoopback()
        let settings = try PostgresSettings.parse(url: "postgres://steno@127.0.0.1:\(port)/steno?sslmode=disable&connect_timeout=2")
        let error = await #expect(throws: (any Error).self) {
            _ = try await PostgresCatalog.open(settings, logger: logger)
        }
        #expect((error as? StoreError)?.isUnavailable == true, "got \(String(describing: error))")
        #expect("\(error.map { "\($0)" } ?? "")".contains("127.0.0.1:\(port)"))
    }
}

@Suite("PostgreSQL settings")
struct PostgresSettingsTests {
    @Test func aFullURLIsRead() throws {
        let settings = try PostgresSettings.parse(
            url: "postgres://steno:s%40cret@db.example:6543/catalog?sslmode=verify-full&sslrootcert=/etc/steno/ca.pem&pool_size=4")
        #expect(settings.host == "db.example")
        #expect(settings.port == 6543)
        #expect(settings.user == "steno")
        #expect(settings.password == "s@cret")
        #expect(settings.database == "catalog")
        #expect(settings.tls == .verifyFull)
        #expect(settings.caFile == "/etc/steno/ca.pem")
        #expect(settings.poolSize == 4)
    }

    @Test func thePasswordIsNeverPrinted() throws {
        let settings = try PostgresSettings.parse(url: "postgresql://steno:hunter2@db.example/steno")
        #expect(!settings.redactedURL.contains("hunter2"))
        #expect(!"\(settings)".contains("hunter2"))
        #expect(settings.redactedURL == "postgres://steno@db.example:5432/steno")
    }

    @Test func aSocketDirectoryIsAHost() throws {
        let settings = try PostgresSettings.parse(url: "postgres://steno@/steno?host=/run/postgresql")
        #expect(settings.isUnixSocket)
        #expect(settings.socketPath == "/run/postgresql/.s.PGSQL.5432")
        let elsewhere = try PostgresSettings.parse(url: "postgres://steno@/steno?host=/tmp/pg&port=6543")
        #expect(elsewhere.socketPath == "/tmp/pg/.s.PGSQL.6543")
        #expect(elsewhere.redactedURL == "postgres://steno@/steno?host=/tmp/pg&port=6543")
    }

    @Test(arguments: [
        ("sqlite:///var/lib/steno/catalog.sqlite", "postgres://"),
        ("postgres://db.example/steno", "no user"),
        ("postgres://steno@db.example", "no database"),
        ("postgres://steno@db.example/steno?sslmode=sometimes", "sslmode"),
        ("postgres://steno@db.example/steno?pool_size=0", "pool_size"),
        ("postgres://steno@db.example/steno?colour=blue", "unknown parameter"),
        ("postgres://steno:pw@/steno?host=/run/postgresql&sslmode=verify-full", "verify-full"),
    ])
    func badURLsAreRefusedWithTheReason(url: String, reason: String) {
        #expect {
            _ = try PostgresSettings.parse(url: url)
        } throws: { error in
            "\(error)".contains(reason) && !"\(error)".contains(":pw@")
        }
    }
}

@Suite("SQL script splitting")
struct SQLScriptTests {
    @Test func statementsSplitOnSemicolonsOutsideQuotesAndComments() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x TEXT DEFAULT ';');  -- trailing; comment
            INSERT INTO a VALUES ('it''s; fine');
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            """
        #expect(
            SQLScript.statements(script) == [
                "CREATE TABLE a (x TEXT DEFAULT ';')",
                "INSERT INTO a VALUES ('it''s; fine')",
                "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql",
            ])
    }
}

@Suite("Search lexemes")
struct SearchLexemesTests {
    @Test func wordsAreFoldedAsFTS5FoldsThem() {
        #expect(SearchLexemes.words("Café-Planung: ÉTÉ 2026, alice@example.com") == ["cafe", "planung", "ete", "2026", "alice", "example", "com"])
        #expect(SearchLexemes.words("会議 Überprüfung") == ["会議", "uberprufung"])
    }

    @Test func aQueryQuotesEveryWordAsAPrefix() {
        #expect(SearchLexemes.prefixQuery(["Plan", "o'neil"]) == "'plan':* & 'o':* & 'neil':*")
    }
}

@Suite("PostgreSQL job arrivals", .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresJobArrivalTests {
    @Test func aDaemonHearsWhenAnotherNotifies() async throws {
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.url(database: try await cluster.createDatabase()))
        let listening = try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.listen"))
        let other = try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.notify"))
        defer {
            listening.close()
            other.close()
        }
        let (arrivals, continuation) = AsyncStream.makeStream(of: Void.self)
        let watcher = Task { try await listening.watchJobArrivals { continuation.yield() } }
        defer { watcher.cancel() }
        var iterator = arrivals.makeAsyncIterator()
        // The first call says "listening now".
        _ = await iterator.next()
        try await other.execute("NOTIFY steno_jobs")
        let heard: Void? = await iterator.next()
        #expect(heard != nil)
    }
}
