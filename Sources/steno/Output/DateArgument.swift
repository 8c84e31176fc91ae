import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// A date given on the command line (see `DateExpression` for the forms), kept as typed and
/// resolved in the zone of `--tz` once every option is read.
struct DateArgument: ExpressibleByArgument, Sendable {
    /// As typed, for messages.
    var text: String

    init?(argument: String) {
        // Refused here when it can mean nothing in any zone, so the usage error names the option.
        guard (try? DateExpression.parse(argument, now: Date(), timeZone: TimeZone(secondsFromGMT: 0) ?? .current)) != nil else { return nil }
        self.text = argument
    }

    /// The span the text names in `zone`.
    func resolved(in zone: TimeZone, now: Date = Date()) throws -> DateExpression {
        do {
            return try DateExpression.parse(text, now: now, timeZone: zone)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The range `--from`, `--to` and `--on` name: `--from` at its start, `--to` through its
    /// end (`--to friday` includes Friday), `--on` the whole span. A `--from` after the `--to`
    /// can match nothing: a usage error (exit 64), not an empty list.
    static func range(from: DateArgument?, to: DateArgument?, on: DateArgument? = nil, in zone: TimeZone) throws -> (from: Date?, to: Date?) {
        if let on {
            if from != nil || to != nil { throw ValidationError("--on replaces --from and --to") }
            let span = try on.resolved(in: zone)
            return (ISO8601Timestamp.clamped(span.start), span.isInstant ? nil : ISO8601Timestamp.clamped(span.end))
        }
        // The years 0001 and 9999 are accepted as typed; in a zone off UTC their edges fall
        // just outside what an instant on the wire can name, so they are pulled in.
        let spans: (from: DateExpression?, to: DateExpression?)
        do {
            spans = try DateExpression.range(from: from?.text, to: to?.text, now: Date(), timeZone: zone)
        } catch {
            throw ValidationError(error.description)
        }
        let start = spans.from.map { ISO8601Timestamp.clamped($0.start) }
        let end = spans.to.map { ISO8601Timestamp.clamped($0.end) }
        if let start, let end, let from, let to, start >= end {
            throw ValidationError("--from \(from.text) is later than --to \(to.text), so nothing can match; did you swap them?")
        }
        return (start, end)
    }

    static var defaultCompletionKind: CompletionKind {
        .list(["today", "tomorrow", "yesterday", "monday", "friday", "next friday", "last week", "this week", "-7d", "+2w", "now"])
    }

    /// The text of `--help` for a date option.
    static let help =
        "Forms: \(DateExpression.forms). A weekday alone: with --from the last one, today included (--from monday: since Monday), "
        + "unless --to looks ahead past its next one; with --to or --on the next one, today included."
}
