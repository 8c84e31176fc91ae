import Foundation
import Testing

/// Package.swift declares every module each target imports. SwiftPM builds an undeclared import
/// as long as some other target happens to build the module first, so a missing declaration
/// only shows up later, as a build that fails for someone else (a clean build, one target).
@Suite("Package manifest")
struct PackageManifestTests {
    /// Modules of the toolchain and the platform, never declared.
    static let platformModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
        "Testing", "XCTest", "Synchronization", "PackagePlugin", "_Concurrency",
    ]

    @Test func everyImportedModuleIsADeclaredDependency() throws {
        let targets = try PackageManifestText.targets()
        #expect(targets.count >= 10, "read only \(targets.count) targets from Package.swift")
        for target in targets {
            let imported = try PackageManifestText.imports(of: target.folder).subtracting(Self.platformModules)
            let undeclared = imported.subtracting(target.dependencies).subtracting([target.name])
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them in Package.swift")
        }
    }

    /// The catalog's two backends stand side by side over StenoCatalog: neither depends on the
    /// other or names the other's types, so a rule both follow lives in StenoCatalog once, and
    /// StenoCatalog holds no database driver.
    @Test func theCatalogBackendsStandApartOverStenoCatalog() throws {
        let targets = Dictionary(uniqueKeysWithValues: try PackageManifestText.targets().map { ($0.name, $0) })
        let catalog = try #require(targets["StenoCatalog"])
        // No driver: Crypto only hashes a forgotten person's address.
        #expect(catalog.dependencies.isSubset(of: ["StenoCore", "StenoJSON", "Crypto"]), "StenoCatalog depends on \(catalog.dependencies.sorted())")
        let backends = [("StenoSQLite", "Postgres", "PostgresNIO"), ("StenoPostgres", "SQLite", "GRDB")]
        for (name, other, driver) in backends {
            let target = try #require(targets[name])
            let imported = try PackageManifestText.imports(of: target.folder)
            #expect(!target.dependencies.contains("Steno" + other) && !imported.contains("Steno" + other), "\(name) depends on Steno\(other)")
            #expect(!target.dependencies.contains(driver) && !imported.contains(driver), "\(name) depends on \(driver)")
            let named = try PackageManifestText.codeIdentifiers(in: target.folder, prefixed: other)
            #expect(named.isEmpty, "\(name) names \(other)'s types: \(named.sorted())")
        }
    }
}

/// Package.swift and the sources, read as text (the manifest's own API is not available to tests).
enum PackageManifestText {
    struct Target {
        var name: String
        var folder: URL
        var dependencies: Set<String>
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each target, test target and executable with the modules its `dependencies:` names.
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)""#)
        let starts = manifest.matches(of: declaration)
        return try starts.enumerated().map { position, match in
            let end = position + 1 < starts.count ? starts[position + 1].range.lowerBound : manifest.endIndex
            let body = String(manifest[match.range.upperBound..<end])
            let kind = String(match.output[1].substring ?? "")
            let name = String(match.output[2].substring ?? "")
            return Target(
                name: name, folder: root.appendingPathComponent(kind == "testTarget" ? "Tests" : "Sources").appendingPathComponent(name),
                dependencies: try dependencies(in: body))
        }
    }

    /// The names in a target's `dependencies: [...]`: bare target names and `.product(name:)`.
    static func dependencies(in body: String) throws -> Set<String> {
        guard let open = body.range(of: "dependencies: [") else { return [] }
        var depth = 1
        var index = open.upperBound
        while index < body.endIndex, depth > 0 {
            if body[index] == "[" { depth += 1 }
            if body[index] == "]" { depth -= 1 }
            index = body.index(after: index)
        }
        let list = String(body[open.upperBound..<index])
        let quoted = try Regex(#"(name:\s*|package:\s*)?"([^"]+)""#)
        var names: Set<String> = []
        for match in list.matches(of: quoted) where match.output[1].substring?.hasPrefix("package") != true {
            if let name = match.output[2].substring { names.insert(String(name)) }
        }
        return names
    }

    /// The identifiers of the Swift code under `folder` (comments and string literals left out)
    /// that start with `prefix` and a capital letter, e.g. `SQLiteCatalog` for "SQLite".
    static func codeIdentifiers(in folder: URL, prefixed prefix: String) throws -> Set<String> {
        let comment = try Regex(#"//[^\n]*"#)
        let literal = try Regex(#""(?:[^"\\\n]|\\.)*""#)
        let identifier = try Regex("\\b\(prefix)[A-Z][A-Za-z0-9_]*")
        var found: Set<String> = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let code = try String(contentsOf: file, encoding: .utf8).replacing(comment, with: "").replacing(literal, with: "\"\"")
            for match in code.matches(of: identifier) { found.insert(String(code[match.range])) }
        }
        return found
    }

    /// The modules the Swift files under `folder` import.
    static func imports(of folder: URL) throws -> Set<String> {
        let statement = try Regex(#"^(?:@testable |@_exported |@preconcurrency )*import ([A-Za-z_][A-Za-z0-9_]*)"#).anchorsMatchLineEndings()
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: statement) {
                if let module = match.output[1].substring { modules.insert(String(module)) }
            }
        }
        return modules
    }
}
