import Foundation
import StenoCalendar
import StenoCore
import StenoTesting

/// `steno-bench caldav --history-years N`: a calendar holding years of weekly series and single
/// meetings, synced for the first time into a fresh catalog twice in the same run: listed by
/// the mirrored window's time range (what Steno does) and by the whole collection (the
/// baseline: what a first sync downloaded before).
extension CalDAVBenchmarkRun {
    /// Writes `settings.events` objects spread from `years` back to half a year ahead: every
    /// twentieth a weekly series of 20 meetings, every five hundredth one without end.
    func writeHistory(into folder: String, years: Int) throws {
        try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Team", color: "#3366CCFF")
        let first = now.addingTimeInterval(-Double(max(1, years)) * 365.25 * 86_400)
        let span = now.addingTimeInterval(182 * 86_400).timeIntervalSince(first)
        var generator = SeededRandom(seed: 7)
        for index in 0..<settings.events {
            let start = first.addingTimeInterval(Double(generator.next() % UInt64(span / 900)) * 900)
            var ics = Self.event(index: index, start: start, recurring: index % 20 == 0, summary: "Meeting \(index)")
            if index % 500 == 0 { ics = ics.replacingOccurrences(of: "RRULE:FREQ=WEEKLY;COUNT=20", with: "RRULE:FREQ=WEEKLY") }
            try Data(ics.utf8).write(to: URL(fileURLWithPath: folder + "/event-\(index).ics"))
        }
    }

    /// Both first syncs, then their bytes and requests side by side.
    func measureFirstSyncs(radicale: RadicaleServer, transport: HTTPTransport) async throws {
        let collection = radicale.collectionURL(user: user, name: calendarName)
        try await warmUp(collection: collection, authorization: HTTPAuthorization.basic(user: user, password: password), transport: transport)
        let window = ICalendar.mirroredWindow(around: now)
        print("window: \(Int(now.timeIntervalSince(window.start) / 86_400)) days back, \(Int(window.end.timeIntervalSince(now) / 86_400)) ahead")
        var samples: [(name: String, sample: SyncSample, resources: Int)] = []
        for (index, byTimeRange) in [false, true].enumerated() {
            let target = try await StenoTarget(
                folder: radicale.root + "/steno-first-\(index)", radicale: radicale, run: self, transport: transport, listsByTimeRange: byTimeRange)
            let sample = try await target.sync(radicale: radicale, password: password)
            let resources = try await target.resourceCount()
            let name = byTimeRange ? "first sync by time range" : "full download (baseline)"
            print("\(name): \(sample.line), \(resources) resources, \(sample.report.changes.inserted) occurrences mirrored")
            samples.append((name, sample, resources))
        }
        guard let full = samples.first, let ranged = samples.last else { return }
        print("")
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        print(cell("", 30) + cell("bytes", 14) + cell("requests", 10) + cell("seconds", 10) + "occurrences")
        for entry in samples {
            print(
                cell(entry.name, 30) + cell(String(format: "%.1f KB", Double(entry.sample.report.bytesReceived) / 1e3), 14)
                    + cell("\(entry.sample.report.requests)", 10) + cell(String(format: "%.2f", entry.sample.seconds), 10)
                    + "\(entry.sample.report.changes.inserted)")
        }
        let ratio = Double(full.sample.report.bytesReceived) / Double(max(1, ranged.sample.report.bytesReceived))
        print(String(format: "\nbytes: %.1f× fewer by time range", ratio))
        print("first sync ≥ 5× fewer bytes: \(ratio >= 5 ? "PASS" : "FAIL")")
        let same = full.sample.report.changes.inserted == ranged.sample.report.changes.inserted
        print("same occurrences mirrored: \(same ? "PASS" : "FAIL")")
    }
}
