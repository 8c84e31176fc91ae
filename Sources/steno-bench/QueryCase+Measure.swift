import Foundation
import GRDB
import StenoCatalog
import StenoCore
import StenoService

extension QueryCase {
    /// The figures of one case as one user.
    struct Result {
        var name: String
        var user: String
        var isFullListing: Bool
        var rows: Int
        var p50: Double
        var p99: Double
        var floorP50: Double
        var floorP99: Double

        var ratio: Double { p50 / max(floorP50, 1e-6) }
        /// First pages under 100 ms p99; full listings under 2 s per 20,000 rows.
        var isInTime: Bool { p99 < (isFullListing ? 2.0 * max(1, Double(rows) / 20_000) : 0.1) }
        var passes: Bool { isInTime && ratio <= 3 }

        static let header = Self.columns(["query", "as", "rows", "p50 ms", "p99 ms", "floor p50", "floor p99", "ratio", "target"])

        var line: String {
            Self.columns([
                name, user, String(rows), String(format: "%.1f", p50 * 1000), String(format: "%.1f", p99 * 1000),
                String(format: "%.2f", floorP50 * 1000), String(format: "%.2f", floorP99 * 1000), String(format: "%.1f×", ratio),
                isInTime ? (ratio <= 3 ? "ok" : "time ok, ratio > 3") : "TOO SLOW",
            ])
        }

        private static func columns(_ cells: [String]) -> String {
            let widths = [36, 7, 7, 9, 9, 10, 10, 8, 0]
            return zip(cells, widths).map { cell, width in
                width == 0 ? cell : cell.count >= width ? cell + " " : cell + String(repeating: " ", count: width - cell.count)
            }.joined()
        }

        static func summary(_ results: [Result]) -> String {
            let missed = results.filter { !$0.passes }
            let slow = results.filter { !$0.isInTime }
            let members = memberToAdmin(results)
            let slowMembers = members.filter { $0.ratio > 2 }
            return "\n\(results.count) queries: \(slow.count) over their time target, \(missed.count) missed a target (time or 3× the floor)"
                + (slow.isEmpty ? "" : "\ntoo slow: " + slow.map { "\($0.name) (\($0.user))" }.joined(separator: ", "))
                + "\nmember p50 ÷ admin p50: \(slowMembers.count) of \(members.count) over 2×"
                + (slowMembers.isEmpty ? "" : " (" + slowMembers.map { "\($0.name) " + String(format: "%.1f×", $0.ratio) }.joined(separator: ", ") + ")")
        }

        /// Each member case beside the admin's same question: the member's p50 over the admin's.
        static func memberToAdmin(_ results: [Result]) -> [(name: String, ratio: Double)] {
            results.filter { $0.user == "member" }.compactMap { member in
                results.first { $0.user == "admin" && $0.name == member.name }.map { admin in
                    (member.name, member.p50 / max(admin.p50, 1e-6))
                }
            }
        }
    }

    /// Runs the call and its floor `runs` times each (after one warm-up).
    func measure(harness: QueryMethodsHarness, as user: User?, floor database: QueryFloor, runs: Int) async throws -> Result {
        let ids = try self.ids(try await call(harness, user))
        var times: [Double] = []
        var floorTimes: [Double] = []
        _ = try await readFloor(database, ids: ids)
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            _ = try await call(harness, user)
            times.append(Self.seconds(ContinuousClock.now - start))
            let floorStart = ContinuousClock.now
            _ = try await readFloor(database, ids: ids)
            floorTimes.append(Self.seconds(ContinuousClock.now - floorStart))
        }
        return Result(
            name: name, user: user == nil ? "admin" : "member", isFullListing: isFullListing, rows: ids.count,
            p50: Self.percentile(times, 0.5), p99: Self.percentile(times, 0.99), floorP50: Self.percentile(floorTimes, 0.5),
            floorP99: Self.percentile(floorTimes, 0.99))
    }

    /// One plain statement reading the fields the call answered for its rows (so a listing
    /// is measured against the same result, not against fewer columns); returns how many rows it read.
    func readFloor(_ database: DatabasePool, ids: [Int64]) throws -> Int {
        let json = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try database.read { db in
            switch floor {
            case .meetings:
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.id, m.title, m.starts_at, m.ends_at, e.organizer_email, e.organizer_name, e.organizer_response,
                            e.location, e.online_meeting_url, e.status, e.deleted_at, e.is_all_day, e.all_day_start, e.all_day_end,
                            (SELECT count(*) FROM event_attendees ea WHERE ea.event_id = e.id) AS attendees,
                            (SELECT group_concat(l.recording_id) FROM links l WHERE l.meeting_id = m.id AND l.state IN ('linked', 'orphaned')) AS recordings
                        FROM json_each(?) j JOIN meetings m ON m.id = j.value
                        LEFT JOIN events e ON e.id = (SELECT id FROM events WHERE meeting_id = m.id ORDER BY updated_at DESC LIMIT 1)
                        """, arguments: [json]
                ).count
            case .recordings:
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT r.*, u.name, p.path, p.is_present FROM json_each(?) j JOIN recordings r ON r.id = j.value
                        LEFT JOIN users u ON u.id = r.owner_id LEFT JOIN recording_paths p ON p.recording_id = r.id
                        """, arguments: [json]
                ).count
            case .links:
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT l.*, r.title, r.recorded_at, u.name, m.title, m.starts_at, m.ends_at
                        FROM json_each(?) j JOIN links l ON l.recording_id = j.value JOIN recordings r ON r.id = l.recording_id
                        LEFT JOIN users u ON u.id = r.owner_id LEFT JOIN meetings m ON m.id = l.meeting_id
                        """, arguments: [json]
                ).count
            case .attendees(let meeting):
                return try Self.attendeeRows(db, meeting: meeting)
            case .meeting(let meeting):
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM meetings WHERE id = ?", arguments: [meeting]).count
                let links = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT l.*, r.title, r.recorded_at, r.duration, u.name FROM links l JOIN recordings r ON r.id = l.recording_id
                        LEFT JOIN users u ON u.id = r.owner_id WHERE l.meeting_id = ?
                        """, arguments: [meeting]
                ).count
                return rows + links + (try Self.attendeeRows(db, meeting: meeting))
            case .search(let text, let visible):
                // A hit's fields: its title, time and snippet (unranked: the floor takes any
                // matches, the call ranks the newest); a member's among those they may see
                // (`+`: the ids tested on each match, not each pushed into the full-text query).
                let match = (try? SearchTerms(text).matchExpression) ?? text
                func arguments(limit: Int, _ ids: String?) -> StatementArguments {
                    ids.map { ["match": match, "visible": $0, "limit": limit] } ?? ["match": match, "limit": limit]
                }
                let meetings = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT meeting_search.rowid, m.title, m.starts_at, snippet(meeting_search, -1, '[', ']', '…', 8)
                        FROM meeting_search JOIN meetings m ON m.id = meeting_search.rowid WHERE meeting_search MATCH :match
                        \(visible == nil ? "" : "AND +meeting_search.rowid IN (SELECT value FROM json_each(:visible))") LIMIT :limit
                        """, arguments: arguments(limit: ids.count, visible?.meetingsJSON)
                ).count
                return meetings
                    + (try Row.fetchAll(
                        db,
                        sql: """
                            SELECT recording_search.rowid, r.title, r.recorded_at, snippet(recording_search, -1, '[', ']', '…', 8)
                            FROM recording_search JOIN recordings r ON r.id = recording_search.rowid WHERE recording_search MATCH :match
                            \(visible == nil ? "" : "AND +recording_search.rowid IN (SELECT value FROM json_each(:visible))") LIMIT :limit
                            """, arguments: arguments(limit: max(0, ids.count - meetings), visible?.recordingsJSON)
                    ).count)
            }
        }
    }

    private static func attendeeRows(_ db: Database, meeting: Int64) throws -> Int {
        try Row.fetchAll(
            db,
            sql: """
                SELECT e.organizer_email, e.organizer_name, e.organizer_response FROM events e WHERE e.meeting_id = ?1 AND e.deleted_at IS NULL
                UNION ALL
                SELECT ea.email, ea.name, ea.response FROM events e JOIN event_attendees ea ON ea.event_id = e.id
                WHERE e.meeting_id = ?1 AND e.deleted_at IS NULL
                """, arguments: [meeting]
        ).count
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The value at `share` of the sorted times (the largest for p99 of fewer than 100 runs).
    static func percentile(_ times: [Double], _ share: Double) -> Double {
        let sorted = times.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded(.up)))]
    }
}
