import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The job queue in a real daemon: `kill -9` loses no job, SIGTERM lets jobs finish, and the
/// `steno jobs` commands.
@Suite("Job queue end to end", .blocksThreads, .serialized)
struct JobQueueEndToEndTests {
    /// Polls every 50 ms, at most `attempts` times; the bound only guards against hangs.
    func eventually(attempts: Int = 1200, _ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<attempts {
            if try condition() { return true }
            usleep(50_000)
        }
        return false
    }

    func jobs(_ client: StenoClient, state: JobState? = nil) throws -> [Job] {
        try client.call(StenoMethods.jobsList, JobListParams(state: state, limit: 1000)).items
    }

    func noop(_ client: StenoClient, sleep: Int, failTimes: Int = 0, maxAttempts: Int? = nil, runAt: Date? = nil) throws -> Job {
        try client.call(
            StenoMethods.jobsEnqueue,
            JobEnqueueParams(
                kind: "system.noop", payload: ["sleepMilliseconds": .int(Int64(sleep)), "failTimes": .int(Int64(failTimes))],
                maxAttempts: maxAttempts, runAt: runAt)
        ).job
    }

    /// With the default 60 s lease: the restarted daemon sees that the process holding the
    /// leases is gone and requeues its jobs at once.
    @Test func killDashNineWhileJobsRunLosesNoJob() throws {
        let daemon = try TestDaemon(config: "[jobs]\nworkers = 2\n")
        let client = try daemon.client()
        let enqueued = try (0..<6).map { _ in try noop(client, sleep: 1500) }
        #expect(try eventually { try jobs(client, state: .running).count == 2 })
        let runningAtKill = Set(try jobs(client, state: .running).map(\.id))

        daemon.stop(signal: SIGKILL)
        try daemon.start()
        let restarted = try daemon.client()
        #expect(try eventually { try jobs(restarted).allSatisfy { $0.state == .succeeded } }, "\(daemon.log)")

        let finished = try jobs(restarted)
        #expect(finished.map(\.id) == enqueued.map(\.id))
        for job in finished {
            #expect(job.state == .succeeded)
            #expect(job.result?.contains("\"sleptMilliseconds\":1500") == true)
            #expect(job.leaseOwner == nil)
            #expect(job.finishedAt != nil)
        }
        // The jobs cut short by the kill ran again.
        for job in finished where runningAtKill.contains(job.id) {
            #expect(job.attempts >= 2, "job \(job.id) was running at the kill")
            #expect(job.lastError?.contains("was abandoned") == true)
        }
        #expect(try jobs(restarted, state: .running).isEmpty)
        #expect(try jobs(restarted, state: .queued).isEmpty)
        #expect(try restarted.call(StenoMethods.systemStatus).queueDepth == 0)
    }

    /// The lease path: jobs of a killed daemon run again once their (short) lease expired,
    /// found by the periodic reaper of a daemon that was already running.
    @Test func expiredLeasesAreRecoveredWhileRunning() throws {
        let config = "[jobs]\nworkers = 1\nlease_seconds = 2\n"
        let victim = try TestDaemon(config: config)
        let job = try noop(try victim.client(), sleep: 1000)
        #expect(try eventually { try victim.client().call(StenoMethods.jobsGet, JobIDParams(id: job.id)).state == .running })
        // Freeze the daemon (a stalled worker): its lease runs out, nothing heartbeats.
        guard let process = victim.process else { throw TestDaemonError("no process") }
        kill(process.processIdentifier, SIGSTOP)
        defer { kill(process.processIdentifier, SIGCONT) }
        let rescuer = try TestDaemon(
            config: "database = \"\(victim.dataDirectory)/catalog.sqlite\"\n" + config)
        let client = try rescuer.client()
        #expect(try eventually { try client.call(StenoMethods.jobsGet, JobIDParams(id: job.id)).state == .succeeded }, "\(rescuer.log)")
        let done = try client.call(StenoMethods.jobsGet, JobIDParams(id: job.id))
        #expect(done.attempts == 2)
        #expect(done.lastError?.contains("expired") == true)
        // The stalled worker wakes up: its completion carries a stale token and is refused;
        // it says so in its log (its heartbeat finds the lease gone, or the outcome is dropped).
        kill(process.processIdentifier, SIGCONT)
        #expect(try eventually { victim.log.contains("lost the lease") || victim.log.contains("outcome dropped") }, "\(victim.log)")
        #expect(try client.call(StenoMethods.jobsGet, JobIDParams(id: job.id)) == done)
    }

    @Test func sigtermLetsRunningJobsFinish() throws {
        let daemon = try TestDaemon()
        let client = try daemon.client()
        let job = try noop(client, sleep: 1000)
        #expect(try eventually { try client.call(StenoMethods.jobsGet, JobIDParams(id: job.id)).state == .running })
        #expect(daemon.stop(signal: SIGTERM) == 0)
        try daemon.start()
        let after = try daemon.client().call(StenoMethods.jobsGet, JobIDParams(id: job.id))
        #expect(after.state == .succeeded)
        #expect(after.attempts == 1)
    }

    @Test func enqueueRefusesKindsNobodyRuns() throws {
        let daemon = try TestDaemon()
        do {
            _ = try daemon.client().call(StenoMethods.jobsEnqueue, JobEnqueueParams(kind: "nobody.runs.this"))
            Issue.record("enqueued a kind without a handler")
        } catch let StenoClientError.rpc(error) {
            #expect(error.code == RPCError.invalidParamsCode)
            #expect(error.message.contains("system.noop"))
        }
    }

    @Test func cliListsShowsRetriesAndCancels() throws {
        let daemon = try TestDaemon()
        let client = try daemon.client()
        let quick = try noop(client, sleep: 0)
        let doomed = try noop(client, sleep: 0, failTimes: 5, maxAttempts: 1)
        let later = try noop(client, sleep: 0, runAt: Date().addingTimeInterval(3600))
        #expect(try eventually {
            try jobs(client).filter { $0.id != later.id }.allSatisfy { !$0.state.isLive }
        })

        let table = try steno(daemon, ["jobs"])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.first?.contains("KIND") == true && lines.first?.contains("LAST-ERROR") == true)
        #expect(lines.count == 4)
        #expect(table.stdout.contains("deliberate failure 1 of 5"))

        let dead = try steno(daemon, ["jobs", "--state", "dead", "--kind", "system.noop", "--json"])
        #expect(dead.status == 0, "\(dead.stderr)")
        let deadIDs = try JSONValue.parse(dead.stdout).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
        #expect(deadIDs == [doomed.id])
        #expect(try steno(daemon, ["jobs", "--state", "bogus"]).status == 64)

        let shown = try steno(daemon, ["jobs", "show", String(quick.id)])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("system.noop"))
        #expect(shown.stdout.contains("succeeded"))
        let missing = try steno(daemon, ["jobs", "show", "9999"])
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("no job \"9999\""))
        #expect(try steno(daemon, ["jobs", "retry", "9999"]).status == 4)
        #expect(try steno(daemon, ["jobs", "cancel", "9999"]).status == 4)

        let retried = try steno(daemon, ["jobs", "retry", String(doomed.id)])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.contains("queued again"))

        let cancelled = try steno(daemon, ["jobs", "cancel", String(later.id)])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.contains("cancelled"))
        let again = try steno(daemon, ["jobs", "cancel", String(later.id)])
        #expect(again.status == 1)
        #expect(again.stderr.contains("cancelled already"))
        #expect(try client.call(StenoMethods.jobsGet, JobIDParams(id: later.id)).state == .cancelled)
    }
}
