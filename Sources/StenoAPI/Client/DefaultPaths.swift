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

    /// Where a system-wide daemon listens (the `deploy/` units): the CLI's last resort.
    public static let systemSocketPath = "/run/steno/stenod.sock"

    /// The system-wide client config file, read after the user's own.
    public static let systemClientConfigPath = "/etc/steno/client.toml"

    /// The user's client config file: `$XDG_CONFIG_HOME/steno/client.toml`, else
    /// `~/.config/steno/client.toml`; nil without a home.
    public static func userClientConfigPath(environment: [String: String]) -> String? {
        // A relative XDG_CONFIG_HOME is invalid and ignored, as the XDG spec says.
        if let configHome = environment["XDG_CONFIG_HOME"], configHome.hasPrefix("/") { return configHome + "/steno/client.toml" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.config/steno/client.toml"
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
