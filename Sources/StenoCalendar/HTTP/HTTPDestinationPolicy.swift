#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where requests made for a member's account may go: public addresses, plus the hosts and
/// networks an admin allows (a company's own server on 10.x). Loopback, link-local, private
/// and other internal addresses are refused otherwise, so the daemon cannot be made to scan
/// or read the services of its own machine and network.
///
/// The address is checked after name resolution (every address a name resolves to must be
/// allowed) and again for every redirect (``HTTPTransport`` follows them itself under a policy).
public struct HTTPDestinationPolicy: Sendable, Hashable {
    /// Host names allowed whatever they resolve to (lowercased).
    public var allowedHosts: Set<String>
    /// Networks allowed although internal.
    public var allowedNetworks: [IPNetwork]

    /// A policy allowing, besides public addresses, the `entries`: host names, addresses or
    /// networks in CIDR notation (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`).
    public init(allowing entries: [String]) {
        var hosts: Set<String> = []
        var networks: [IPNetwork] = []
        for entry in entries {
            if let network = IPNetwork(entry) { networks.append(network) } else { hosts.insert(entry.lowercased()) }
        }
        allowedHosts = hosts
        allowedNetworks = networks
    }

    /// Whether an entry of an allow list is valid: a network, an address or a host name.
    public static func isValidEntry(_ entry: String) -> Bool {
        if IPNetwork(entry) != nil { return true }
        guard !entry.isEmpty, entry.count <= 253, !entry.contains("/") else { return false }
        return entry.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// Checks that `url` may be requested.
    ///
    /// - Throws: ``HTTPTransportError/forbiddenDestination(url:reason:)`` naming the host and
    ///   the address refused, or when the name does not resolve.
    public func check(_ url: URL) throws(HTTPTransportError) {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else {
            throw .forbiddenDestination(url: url.absoluteString, reason: "it names no host")
        }
        if allowedHosts.contains(host) { return }
        let addresses = Self.resolve(host)
        guard !addresses.isEmpty else {
            throw .forbiddenDestination(url: url.absoluteString, reason: "\(host) does not resolve")
        }
        for address in addresses where IPNetwork.isInternal(address) && !allowedNetworks.contains(where: { $0.contains(address) }) {
            throw .forbiddenDestination(
                url: url.absoluteString,
                reason: "\(host) is an internal address (\(IPNetwork.text(of: address))); members' accounts may reach only public "
                    + "servers and those an admin lists in [calendars] member_networks")
        }
    }

    /// Every address `host` resolves to (4 or 16 bytes each).
    static func resolve(_ host: String) -> [[UInt8]] {
        if let literal = IPNetwork.parseAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var node = list
        while let entry = node?.pointee {
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(withUnsafeBytes(of: address) { Array($0) })
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(withUnsafeBytes(of: address) { Array($0) })
            }
            node = entry.ai_next
        }
        return addresses
    }
}
