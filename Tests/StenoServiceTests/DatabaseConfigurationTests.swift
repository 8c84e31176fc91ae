import Foundation
import Testing

@testable import StenoService

@Suite("Database configuration")
struct DatabaseConfigurationTests {
    let folder = NSTemporaryDirectory() + "steno-dbconfig-" + UUID().uuidString

    func write(_ text: String, to name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func load(_ toml: String, environment: [String: String] = [:]) throws -> StenoConfiguration {
        let file = try write(toml, to: "stenod.toml")
        return try StenoConfiguration.load(overrides: .init(configFile: file), environment: environment, uid: 1000)
    }

    @Test func aSQLitePathStaysTheDefault() throws {
        let configuration = try load(#"database = "/var/lib/steno/catalog.sqlite""#)
        #expect(configuration.postgres == nil)
        #expect(configuration.databasePath == "/var/lib/steno/catalog.sqlite")
        #expect(configuration.catalogDescription == "/var/lib/steno/catalog.sqlite")
    }

    @Test func aPostgresURLNamesTheSharedCatalog() throws {
        let configuration = try load(#"database = "postgres://steno@db.example:5432/steno?sslmode=require&pool_size=8""#)
        let settings = try #require(configuration.postgres)
        #expect(settings.host == "db.example")
        #expect(settings.tls == .require)
        #expect(settings.poolSize == 8)
        #expect(settings.password == nil)
    }

    @Test func theEnvironmentBeatsTheFile() throws {
        let configuration = try load(
            #"database = "postgres://steno@db.example/steno""#, environment: ["STENO_DATABASE_URL": "postgres://steno@other.example/steno2"])
        #expect(configuration.postgres?.host == "other.example")
        #expect(configuration.postgres?.database == "steno2")
    }

    @Test func thePasswordComesFromItsFileAndIsNeverShown() throws {
        let passwordFile = try write("correct horse battery\n", to: "db-password")
        let configuration = try load(
            """
            database = "postgres://steno@db.example/steno"
            database_password_file = "\(passwordFile)"
            """)
        #expect(configuration.postgres?.password == "correct horse battery")
        #expect(!configuration.catalogDescription.contains("correct horse"))
        #expect(configuration.catalogDescription == "postgres://steno@db.example:5432/steno")
    }

    @Test func thePasswordComesFromTheSystemdCredential() throws {
        _ = try write("from-systemd\n", to: StenoConfiguration.databasePasswordCredential)
        let configuration = try load(#"database = "postgres://steno@db.example/steno""#, environment: ["CREDENTIALS_DIRECTORY": folder])
        #expect(configuration.postgres?.password == "from-systemd")
    }

    @Test func aURLPasswordIsKeptButNotPrinted() throws {
        let configuration = try load(#"database = "postgres://steno:inline-secret@db.example/steno""#)
        #expect(configuration.postgres?.password == "inline-secret")
        #expect(!configuration.catalogDescription.contains("inline-secret"))
    }

    @Test func mistakesAreExplained() throws {
        #expect {
            _ = try load(#"database = "postgres://steno@db.example/steno?sslmode=maybe""#)
        } throws: { "\($0)".contains("stenod.toml: database") && "\($0)".contains("sslmode") }
        #expect {
            _ = try load(
                """
                database = "postgres://steno@db.example/steno"
                database_password_file = "\(folder)/missing"
                """)
        } throws: { "\($0)".contains("database_password_file \(folder)/missing cannot be read") }
        #expect {
            _ = try load(#"database_password_file = "/etc/steno/db-password""#)
        } throws: { "\($0)".contains("not a postgres:// URL") }
        #expect {
            _ = try load("", environment: ["STENO_DATABASE_URL": "/var/lib/steno/catalog.sqlite"])
        } throws: { "\($0)".contains("STENO_DATABASE_URL must be a postgres:// URL") }
    }
}
