import Foundation
import Testing

@testable import StenoCalendar

@Suite("HTTP destination policy")
struct HTTPDestinationPolicyTests {
    func allowed(_ policy: HTTPDestinationPolicy, _ url: String) -> Bool {
        guard let parsed = URL(string: url) else { return false }
        do {
            try policy.check(parsed)
            return true
        } catch {
            return false
        }
    }

    @Test func internalAddressesAreRefusedUnlessListed() {
        let none = HTTPDestinationPolicy(allowing: [])
        for url in [
            "http://127.0.0.1:8080/", "http://[::1]/", "http://169.254.169.254/latest", "http://10.1.2.3/", "http://192.168.0.1/",
            "http://172.20.0.1/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://[fe80::1]/", "http://localhost/",
        ] {
            #expect(!allowed(none, url), "\(url)")
        }
        #expect(allowed(none, "https://93.184.216.34/cal.ics"))
        let listed = HTTPDestinationPolicy(allowing: ["10.0.0.0/8", "127.0.0.1", "nextcloud.corp.example"])
        #expect(allowed(listed, "http://10.1.2.3/") && allowed(listed, "http://127.0.0.1:9/") && allowed(listed, "https://nextcloud.corp.example/"))
        #expect(!allowed(listed, "http://192.168.0.1/") && !allowed(listed, "http://127.0.0.2/"))
    }

    @Test func entriesAreNetworksAddressesOrHostNames() {
        #expect(IPNetwork("10.0.0.0/8")?.contains([10, 9, 8, 7]) == true)
        #expect(IPNetwork("10.0.0.0/8")?.contains([11, 0, 0, 1]) == false)
        #expect(IPNetwork("172.16.0.0/12")?.contains([172, 31, 255, 255]) == true)
        #expect(HTTPDestinationPolicy.isValidEntry("fd00::/8") && HTTPDestinationPolicy.isValidEntry("dav.example"))
        #expect(!HTTPDestinationPolicy.isValidEntry("10.0.0.0/33") && !HTTPDestinationPolicy.isValidEntry("a b") && !HTTPDestinationPolicy.isValidEntry(""))
    }
}
