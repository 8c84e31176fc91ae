import Foundation
import StenoAgent
import Testing

/// The runner: a run at once, another when triggered (the interval is an hour, so only the
/// trigger can cause it), a transient failure retried, a refused token stopping it.
@Suite("AgentSyncRunner")
struct AgentSyncRunnerTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current
    let server = FakeDeviceServer()
    let phone = InMemoryCalendarStore(calendars: ["CAL-1": "Work"], defaultTimeZone: Self.berlin)

    /// Outcomes as the runner reports them, read one at a time with a bound.
    final class Outcomes: Sendable {
        let stream: AsyncStream<AgentSyncOutcome>
        let continuation: AsyncStream<AgentSyncOutcome>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream() }

        /// The next outcome, or nil when none comes within `timeout` seconds. The bound only
        /// keeps a hung runner from hanging the suite: in a parallel run on two cores the
        /// runner's tasks may wait minutes for a thread, and a tight bound failed it there.
        func next(within timeout: TimeInterval = 600) async -> AgentSyncOutcome? {
            let stream = self.stream
            return await withTaskGroup(of: AgentSyncOutcome?.self) { group in
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    return await iterator.next()
                }
                group.addTask {
                    try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
    }

    func runner(token: String = FakeDeviceServer.token, outcomes: Outcomes) -> AgentSyncRunner {
        let sync = AgentSync(
            client: server.client(token: token), store: phone, stateStore: InMemoryAgentStateStore(),
            configuration: AgentSyncConfiguration(deviceId: FakeDeviceServer.deviceID, defaultTimeZone: Self.berlin))
        let continuation = outcomes.continuation
        return AgentSyncRunner(sync: sync, interval: 3600) { continuation.yield($0) }
    }

    func add(_ title: String) async {
        let start = Date().addingTimeInterval(3600)
        await phone.add(
            DeviceEvent(
                externalId: "", externalCalendarId: "CAL-1", start: start, end: start.addingTimeInterval(1800), isAllDay: false,
                timeZone: Self.berlin, title: title))
    }

    func pushed(_ outcome: AgentSyncOutcome?) -> Int? {
        if case .synced(let report) = outcome { return report.pushed }
        return nil
    }

    @Test func itRunsAtOnceAndAgainWhenTriggered() async throws {
        await add("Standup")
        let outcomes = Outcomes()
        let runner = runner(outcomes: outcomes)
        await runner.start()
        #expect(pushed(await outcomes.next()) == 1)
        await add("Retro")
        await runner.trigger()
        #expect(pushed(await outcomes.next()) == 1)
        #expect(server.deviceEvents.count == 2)
        await runner.stop()
        #expect(await !runner.isRunning)
    }

    @Test func aTransientFailureIsReportedAndTheNextTriggerSucceeds() async throws {
        await add("Standup")
        server.failNext("/sync/events/changes", status: 503)
        let outcomes = Outcomes()
        let runner = runner(outcomes: outcomes)
        await runner.start()
        let failed = await outcomes.next()
        guard case .failed(let message, _) = failed else {
            Issue.record("expected a failure, got \(String(describing: failed))")
            return
        }
        #expect(message.contains("503"))
        await runner.trigger()
        #expect(pushed(await outcomes.next()) == 1)
        await runner.stop()
    }

    @Test func aRefusedTokenStopsTheRunnerAndAsksForPairing() async throws {
        let outcomes = Outcomes()
        let runner = runner(token: "stdv_revoked", outcomes: outcomes)
        await runner.start()
        let outcome = await outcomes.next()
        guard case .needsPairing = outcome else {
            Issue.record("expected needsPairing, got \(String(describing: outcome))")
            return
        }
        #expect(await !runner.isRunning)
    }
}
