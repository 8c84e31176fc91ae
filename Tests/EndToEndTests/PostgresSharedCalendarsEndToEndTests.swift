#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Calendars with two daemons on one PostgreSQL catalog: a Microsoft sign-in started through
/// one daemon is answered for and finished by the other, and Microsoft Graph's limit of four
/// requests in flight per mailbox holds across both daemons.
@Suite(
    "PostgreSQL daemons share calendars end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: PostgresCluster.isInstalled), "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresSharedCalendarsEndToEndTests {
    /// Both daemons on one catalog and one secrets key (as OPERATIONS asks), the Graph double
    /// reachable by members' accounts.
    static func config(_ url: String, keyFile: String, workers: Int = 2) -> String {
        """
        database = "\(url)"
        [jobs]
        workers = \(workers)
        lease_seconds = 5
        [calendars]
        secret_key_file = "\(keyFile)"
        member_networks = ["127.0.0.1"]
        """
    }

    /// A folder for the shared secrets key (the first daemon creates the key in it).
    static func keyFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "steno-pg-key-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    @Test func aSignInStartedOnOneDaemonIsFinishedThroughTheOther() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.createDatabase())
        let keys = try Self.keyFolder()
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let double = try GraphDouble()
        defer { double.shutdown() }
        // The first poll is pending; the person has signed in by the second.
        double.scriptDeviceFlow(.init(pendingPolls: 1, outcome: .approve(user: "alice@contoso.com")), interval: 2)
        let start = Date().addingTimeInterval(86_400)
        double.put(GraphDouble.Event(id: "plan-1", subject: "Planning", start: start, end: start.addingTimeInterval(1800)))

        let config = Self.config(url, keyFile: keys + "/secret.key")
        let first = try TestDaemon(config: config)
        defer { first.shutdown() }
        _ = try first.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@contoso.com"]))
        let second = try TestDaemon(config: config)
        defer { second.shutdown() }

        let started = try first.client().call(
            StenoMethods.accountsSignIn,
            AccountSignInParams(
                owner: "alice", clientID: "steno-test-client", authority: double.baseURL.absoluteString,
                graphURL: double.graphURL.absoluteString))
        #expect(started.userCode != nil && started.status.state == .pending)
        // The daemon that started it dies before the person signs in.
        _ = first.stop(signal: SIGKILL)

        let other = try second.client()
        let seen = try other.call(StenoMethods.accountsSignInStatus, AccountSignInStatusParams(id: started.id))
        #expect(seen.state == .pending, "the other daemon answers for the sign-in from the catalog")
        var status = seen
        let deadline = Date().addingTimeInterval(180)
        while status.state == .pending && Date() < deadline {
            usleep(500_000)
            status = try other.call(StenoMethods.accountsSignInStatus, AccountSignInStatusParams(id: started.id))
        }
        #expect(status.state == .succeeded, "\(status)\n\(second.log)")
        #expect(status.account?.name.contains("alice@contoso.com") == true, "\(status)")
        #expect(second.log.contains("polling a device sign-in another daemon started"), "\(second.log)")

        // The account it made syncs on the remaining daemon.
        let synced = try PostgresDaemonsEndToEndTests.waitUntil(120) {
            let accounts = try other.call(StenoMethods.accountsList, AccountListParams())
            return accounts.items.first?.events == 1
        }
        #expect(synced, "\(second.log)")
        #expect(double.requests.filter { $0.body.contains("grant-type%3Adevice_code") }.count >= 2)
    }

    @Test func twoDaemonsSyncingTogetherSendAtMostFourRequestsPerMailbox() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.createDatabase())
        let keys = try Self.keyFolder()
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let double = try GraphDouble(confidentialClients: ["org-app": "s3cret"])
        defer { double.shutdown() }
        // Responses take a while, as Microsoft's do, so the syncs' requests overlap.
        double.setGraphResponseDelay(milliseconds: 400)
        double.setRecording(false)
        let start = Date().addingTimeInterval(86_400)
        let accounts = 10
        double.put(GraphDouble.Event(id: "bob-1", subject: "1:1", start: start, end: start.addingTimeInterval(1800)), mailbox: "bob@contoso.com")
        for index in 0..<accounts {
            double.put(
                GraphDouble.Event(id: "own-\(index)", subject: "Own \(index)", start: start, end: start.addingTimeInterval(1800)),
                mailbox: "user\(index)@contoso.com")
        }
        let config = Self.config(url, keyFile: keys + "/secret.key", workers: 5)
        let first = try TestDaemon(config: config)
        defer { first.shutdown() }
        let client = try first.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@contoso.com"]))
        let second = try TestDaemon(config: config)
        defer { second.shutdown() }
        // Organisation accounts that all read Bob's mailbox (and one user of their own each).
        for index in 0..<accounts {
            _ = try client.call(
                StenoMethods.accountsAdd,
                AccountAddParams(
                    provider: .graph, owner: "alice", clientID: "org-app", clientSecret: "s3cret", tenant: "contoso.com",
                    users: ["bob@contoso.com", "user\(index)@contoso.com"], authority: double.baseURL.absoluteString,
                    graphURL: double.graphURL.absoluteString))
        }
        let done = try PostgresDaemonsEndToEndTests.waitUntil(300) {
            let listed = try client.call(StenoMethods.accountsList, AccountListParams()).items
            return listed.count == accounts && listed.allSatisfy { $0.health == .ok && $0.events == 2 }
        }
        #expect(done, "\(first.log)\n\(second.log)")
        let peak = double.peakConcurrentRequests(mailbox: "bob@contoso.com")
        #expect(peak <= 4 && double.mailboxConcurrencyRefusals == 0, "\(peak) requests at once for Bob's mailbox")
        #expect(peak >= 2, "the daemons' syncs overlapped")
    }
}

