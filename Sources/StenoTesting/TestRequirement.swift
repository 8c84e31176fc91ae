import Foundation

/// Whether a test that needs something from the machine (a tool, root) runs.
///
/// Where it is missing the test is reported as skipped, with its reason, so a developer's
/// machine can run the rest. Under `CI=true` it always runs: CI installs everything the
/// suite needs, and a missing tool there must fail the test rather than skip it unseen.
public enum TestRequirement {
    /// Whether this is a CI run (`CI=true`).
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether a test needing something `available` runs: when it is, and always under CI.
    public static func runs(when available: Bool) -> Bool { available || isCI }

    /// Whether an executable exists at `path`.
    public static func hasExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
}
