import Foundation
import StenoCalendar
import StenoTesting
import Testing

/// Truncations and seeded random mutations of real fixtures: every input yields a calendar
/// or an ``ICalendarError``, never a crash or a hang.
@Suite("Fuzz: truncation and mutation")
struct FuzzTests {
    static let samples = ["override-moved-other-day", "custom-vtimezone", "outlook-windows-tzid", "rdate-period"]
    let window = DateInterval(start: Date(timeIntervalSince1970: 1_735_689_600), duration: 400 * 86_400)

    private func exercise(_ bytes: [UInt8]) {
        do {
            let calendar = try ICalendar.parse(data: Data(bytes))
            _ = calendar.occurrences(in: window, defaultTimeZone: .gmt,
                                     limits: .init(maxOccurrences: 5_000, maxIterations: 50_000))
        } catch {
            #expect(error.line >= 0)
            #expect(!error.message.isEmpty)
        }
    }

    @Test(arguments: samples)
    func everyTruncation(name: String) throws {
        let bytes = [UInt8](try Fixtures.ics(name))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for end in 0...bytes.count { exercise(Array(bytes[..<end])) }
        }
        #expect(elapsed < .seconds(60))
    }

    @Test(arguments: samples)
    func randomMutations(name: String) throws {
        let original = [UInt8](try Fixtures.ics(name))
        var rng = SeededRandom(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
        let alphabet = Array("0123456789:;=,\"\\\r\n -+TZPWDHMSFREQBYDAYÿé".utf8)
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                guard !bytes.isEmpty else { break }
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[index] = alphabet.randomElement(using: &rng) ?? 0
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: index)
                default:
                    // Duplicate a slice (repeats lines, nests components).
                    let end = min(bytes.count, index + Int.random(in: 1...80, using: &rng))
                    bytes.insert(contentsOf: bytes[index..<end], at: index)
                }
            }
            exercise(bytes)
        }
    }

    @Test func randomRRULEsTerminate() throws {
        var rng = SeededRandom(seed: 42)
        let parts = ["FREQ=SECONDLY", "FREQ=MINUTELY", "FREQ=HOURLY", "FREQ=DAILY", "FREQ=WEEKLY", "FREQ=MONTHLY", "FREQ=YEARLY",
                     "BYMONTH=2", "BYMONTHDAY=31", "BYMONTHDAY=-1", "BYDAY=MO,FR", "BYDAY=-1SU", "BYDAY=53MO", "BYSETPOS=-1",
                     "BYSETPOS=5", "BYWEEKNO=53", "BYYEARDAY=366", "BYHOUR=0,23", "BYMINUTE=59", "INTERVAL=7", "COUNT=3",
                     "UNTIL=20250301T000000Z", "WKST=SU", "BYSECOND=60"]
        for _ in 0..<150 {
            let rule = (0..<Int.random(in: 1...5, using: &rng)).map { _ in parts.randomElement(using: &rng) ?? "" }.joined(separator: ";")
            let text = "BEGIN:VEVENT\nUID:r\nDTSTART;TZID=Europe/Berlin:20240229T023000\nRRULE:FREQ=DAILY;\(rule)\nEND:VEVENT"
            exercise(Array(text.utf8))
        }
    }
}
