import Foundation
import PackagePlugin

/// Embeds the files of the package's `Schema/` folder (SQLite and PostgreSQL migrations, `openrpc.json`) into
/// the target as Swift string literals, so the binaries carry their schema with them and
/// `Schema/` stays the single source of truth.
@main
struct EmbedSchemaPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let schema = context.package.directoryURL.appending(path: "Schema")
        var inputs: [URL] = [schema.appending(path: "openrpc.json")]
        // SQLite's migrations and PostgreSQL's, each folder's files in name order.
        for folder in ["migrations", "postgres"] {
            let directory = schema.appending(path: folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path())
                .filter { $0.hasSuffix(".sql") }
                .sorted()
            inputs += names.map { directory.appending(path: $0) }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSchema.swift")
        return [
            .buildCommand(
                displayName: "Embedding Schema/ into \(target.name)",
                executable: try context.tool(named: "steno-embed-schema").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
