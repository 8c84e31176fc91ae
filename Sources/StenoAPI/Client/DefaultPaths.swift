#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon listens and keeps its data when nothing else is configured.
///
/// The daemon and the CLI use the same rules, so `steno` finds a default `stenod` with no flags.
public enum DefaultPaths {
    /// The socket path: `$XDG_RUNTIME_DIR/steno/stenod.sock` for a user session,
    /// `/run/steno/stenod.sock` for root (and under systemd), else `/tmp/steno-UID/stenod.sock`.
    public static func socketPath(environment: [String: String], uid: UInt32 = getuid()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/steno/stenod.sock"
        }
        if uid == 0 { return "/run/steno/stenod.sock" }
        return "/tmp/steno-\(uid)/stenod.sock"
    }

    /// The data folder: `$STATE_DIRECTORY` under systemd, `/var/lib/steno` for root,
    /// else `$XDG_DATA_HOME/steno` or `~/.local/share/steno`.
    public static func dataDirectory(environment: [String: String], uid: UInt32 = getuid()) -> String {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            // systemd may pass several, colon-separated; the first is ours.
            return String(state.split(separator: ":").first ?? Substring(state))
        }
        if uid == 0 { return "/var/lib/steno" }
        if let dataHome = environment["XDG_DATA_HOME"], !dataHome.isEmpty { return dataHome + "/steno" }
        let home = environment["HOME"] ?? "/tmp"
        return home + "/.local/share/steno"
    }
}
