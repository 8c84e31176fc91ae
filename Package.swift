// swift-tools-version:6.1
import PackageDescription

/// Steno: a catalog of meeting recordings linked to the calendar meetings they captured.
///
/// Dependencies point inward: StenoCore (pure domain) and StenoJSON (the JSON codec) ← StenoTOML
/// and the adapters (API, Catalog ← SQLite and PostgreSQL, Media, Calendar) ← StenoService (daemon wiring) ← thin
/// executables. Every target declares each module it imports (PackageManifestTests checks).
let package = Package(
    name: "Steno",
    // Linux is the server's platform. These matter to the iOS app that imports StenoAgent
    // (async URLSession and ISO 8601 parsing need iOS 15) and to building on a Mac.
    platforms: [.iOS(.v15), .macOS(.v14)],
    products: [
        .executable(name: "stenod", targets: ["stenod"]),
        .executable(name: "steno", targets: ["steno"]),
        .executable(name: "steno-bench", targets: ["steno-bench"]),
        .library(name: "StenoCore", targets: ["StenoCore"]),
        .library(name: "StenoAPI", targets: ["StenoAPI"]),
        // For the iOS app that pushes Apple Calendar events: Foundation only, no EventKit.
        .library(name: "StenoAgent", targets: ["StenoAgent"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // CalDAV, ICS URLs and Microsoft Graph: HTTP/1.1 + TLS with pooling and redirects.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The device agent's HTTPS endpoint. Its swift-configuration support and full-Foundation
        // extras are not used: without those traits it builds less.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Certificates and keys for the device agent's own TLS (Hummingbird's TLS builds on it).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The PostgreSQL catalog several daemons share: the wire protocol, a pool, TLS, no ORM.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: Core domain — no I/O.
        .target(name: "StenoCore"),
        // The JSON codec every module that reads or writes JSON uses (Foundation only).
        .target(name: "StenoJSON"),
        // TOML 1.0 read into a JSONValue tree (the daemon's configuration file).
        .target(name: "StenoTOML", dependencies: ["StenoJSON"]),

        // MARK: Adapters.
        .target(name: "StenoAPI", dependencies: ["StenoCore", "StenoJSON"]),
        // The catalog as the application sees it: the store protocols, their errors, and the
        // rules and SQL fragments both backends share. No database driver.
        // Crypto: a forgotten person is kept by the SHA-256 of their address.
        .target(name: "StenoCatalog", dependencies: ["StenoCore", "StenoJSON", .product(name: "Crypto", package: "swift-crypto")]),
        // The embedded catalog: SQLite through GRDB (Schema/migrations/).
        .target(
            name: "StenoSQLite",
            // GRDBSQLite: SQLite's C API, for binding the mirror's bulk writes directly.
            dependencies: [
                "StenoCatalog", "StenoCore", "StenoJSON", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            plugins: ["EmbedSchemaPlugin"]
        ),
        // The same store protocols on a PostgreSQL server (Schema/postgres/).
        .target(
            name: "StenoPostgres",
            dependencies: [
                "StenoCatalog", "StenoCore", "StenoJSON",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["EmbedSchemaPlugin"]
        ),
        // Process-wide SQLite settings that only C can make (sqlite3_config is variadic).
        .target(name: "CSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "StenoMedia", dependencies: ["StenoCore", "StenoJSON"]),
        .target(
            name: "StenoCalendar",
            dependencies: [
                "StenoCore", "StenoJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Data(buffer:byteTransferStrategy:): response bodies handed over without a copy.
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Service wiring.
        .target(
            name: "StenoService",
            dependencies: [
                "StenoCore", "StenoJSON", "StenoTOML", "StenoAPI", "StenoCatalog", "StenoSQLite", "StenoPostgres", "StenoMedia", "StenoCalendar",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            plugins: ["EmbedSchemaPlugin"]
        ),

        // MARK: The device agent library (Apple Calendar on an iPhone pushes to stenod).
        .target(name: "StenoAgent"),

        // MARK: Entry points.
        .executableTarget(
            name: "stenod",
            dependencies: [
                "StenoService", "StenoPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "steno",
            dependencies: ["StenoAPI", "StenoCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // The Swift runtime and Foundation linked in: loading them as shared libraries was
            // half of every run's start. Compiled with the flag too, so that the objects name
            // the static libraries in an order that links; lld, as gold warns about a `mktemp`
            // inside static Foundation. No test target depends on steno: a test bundle linking
            // its module would take these flags (tests run the built binary).
            swiftSettings: [.unsafeFlags(["-static-stdlib"])],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld"])]
        ),
        .executableTarget(
            name: "steno-bench",
            dependencies: [
                "StenoService", "StenoAPI", "StenoTesting", "StenoMedia", "StenoCore", "StenoCatalog", "StenoSQLite", "StenoCalendar", "StenoPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),

        // MARK: Build tooling: embeds Schema/ (migrations, openrpc.json) into the binaries.
        .executableTarget(name: "steno-embed-schema"),
        // The plugin lists Schema/'s files when SwiftPM plans the build: an incremental build
        // sees a new migration file only once the plan is made again (`touch Package.swift`).
        .plugin(name: "EmbedSchemaPlugin", capability: .buildTool(), dependencies: ["steno-embed-schema"], path: "Sources/EmbedSchemaPlugin"),

        // MARK: Test support: starts a real stenod on a temporary socket.
        // The Microsoft Graph double is a real HTTP server on 127.0.0.1 (NIO).
        .target(
            name: "StenoTesting",
            dependencies: [
                "StenoAPI", "StenoCore", "StenoCalendar",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),

        // Test-only: the suite trait for tests that block threads (imports Testing, so it is
        // kept out of StenoTesting, which steno-bench links).
        .target(name: "StenoTestTraits", dependencies: ["StenoTesting"], path: "Tests/StenoTestTraits"),

        // MARK: Tests.
        .testTarget(name: "StenoCoreTests", dependencies: ["StenoCore", "StenoTesting"]),
        .testTarget(name: "StenoJSONTests", dependencies: ["StenoJSON", "StenoTesting"]),
        .testTarget(name: "StenoTOMLTests", dependencies: ["StenoTOML", "StenoJSON"]),
        .testTarget(name: "StenoAPITests", dependencies: ["StenoAPI", "StenoCore"]),
        // One set of store tests, run against SQLite and a private PostgreSQL cluster.
        .testTarget(
            name: "StenoCatalogTests",
            dependencies: [
                "StenoCatalog", "StenoSQLite", "StenoPostgres", "StenoCore", "StenoJSON", "StenoTesting", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "StenoMediaTests", dependencies: ["StenoMedia", "StenoTesting", "StenoTestTraits"]),
        .testTarget(
            name: "StenoCalendarTests", dependencies: ["StenoCalendar", "StenoCore", "StenoTesting", .product(name: "Logging", package: "swift-log")],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "StenoServiceTests",
            dependencies: [
                "StenoService", "StenoAPI", "StenoCore", "StenoCatalog", "StenoSQLite", "StenoMedia", "StenoCalendar", "StenoTesting", "StenoTestTraits",
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // History tests read the catalog's own columns (events.from_history) directly.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "StenoAgentTests", dependencies: ["StenoAgent", "StenoTesting", "StenoTestTraits", "StenoAPI", "stenod"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "StenoTesting", "StenoTestTraits", "StenoAPI", "StenoCore", "stenod",
                // The catalog file read while a killed daemon is down (crash tests).
                .product(name: "GRDB", package: "GRDB.swift"),
                // The device agent's HTTPS endpoint, as a phone reaches it.
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
