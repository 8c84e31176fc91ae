#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// An IPv4 or IPv6 network (`10.0.0.0/8`); a single address is a network of one.
public struct IPNetwork: Sendable, Hashable {
    /// The network's address, 4 or 16 bytes.
    public var address: [UInt8]
    /// Leading bits that must match.
    public var prefixLength: Int

    /// Parses `10.0.0.0/8`, `fd00::/8` or a single address; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.parseAddress(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed) else { return nil }
            length = parsed
        }
        self.address = address
        self.prefixLength = length
    }

    /// Whether `other` (4 or 16 bytes) lies in this network; an IPv4-mapped IPv6 address
    /// counts as its IPv4 address.
    public func contains(_ other: [UInt8]) -> Bool {
        let candidate = Self.unmapped(other)
        guard candidate.count == address.count else { return false }
        var remaining = prefixLength
        for index in address.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if candidate[index] & mask != address[index] & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// Loopback, link-local, private, shared, multicast, unspecified and other non-public ranges.
    static let internalNetworks: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128", "64:ff9b::/96", "fc00::/7",
        "fe80::/10", "ff00::/8",
    ].compactMap(IPNetwork.init)

    /// Whether an address is not a public one.
    static func isInternal(_ address: [UInt8]) -> Bool {
        internalNetworks.contains { $0.contains(address) }
    }

    /// The 4 or 16 bytes of an address literal; nil when `text` is not one.
    static func parseAddress(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 bytes; others unchanged.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return address }
        return Array(address[12..<16])
    }

    /// An address as text.
    static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        let written = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
