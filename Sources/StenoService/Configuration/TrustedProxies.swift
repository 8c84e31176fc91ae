#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Who may name the real client in `X-Forwarded-For`: proxies connecting over TCP from these
/// addresses, and on a `unix:` listener the processes of these users or groups, as the kernel
/// reports the peer (`SO_PEERCRED`). The socket is open to every local user, so without a
/// user or group nobody on it is believed.
public struct TrustedProxies: Sendable, Hashable {
    public var addresses: Set<String> = []
    public var uids: Set<UInt32> = []
    public var gids: Set<UInt32> = []

    public init() {}

    /// Parses entries: an IP address, `user:NAME` or `user:UID`, `group:NAME` or `group:GID`.
    public init(_ entries: [String]) throws(ConfigurationError) {
        for entry in entries {
            if entry.hasPrefix("user:") {
                uids.insert(try Self.id(String(entry.dropFirst(5)), kind: "user") { getpwnam($0)?.pointee.pw_uid })
            } else if entry.hasPrefix("group:") {
                gids.insert(try Self.id(String(entry.dropFirst(6)), kind: "group") { getgrnam($0)?.pointee.gr_gid })
            } else if Self.isIPAddress(entry) {
                addresses.insert(entry)
            } else {
                throw ConfigurationError("\"\(entry)\" is neither an IP address nor user:NAME or group:NAME")
            }
        }
    }

    public var isEmpty: Bool { addresses.isEmpty && uids.isEmpty && gids.isEmpty }

    /// Loopback addresses among the trusted: any local user can connect from them.
    public var loopbackAddresses: [String] {
        addresses.filter { $0.hasPrefix("127.") || $0 == "::1" || $0.hasPrefix("::ffff:127.") }.sorted()
    }

    /// Whether a TCP peer at `address` is a trusted proxy.
    public func trusts(address: String) -> Bool { addresses.contains(address) }

    /// Whether a Unix-socket peer with these ids is a trusted proxy.
    public func trusts(uid: UInt32, gid: UInt32) -> Bool { uids.contains(uid) || gids.contains(gid) }

    private static func id(_ name: String, kind: String, lookUp: (String) -> UInt32?) throws(ConfigurationError) -> UInt32 {
        if let number = UInt32(name) { return number }
        guard !name.isEmpty, let id = lookUp(name) else { throw ConfigurationError("there is no \(kind) \"\(name)\" on this machine") }
        return id
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
