import Foundation
import StenoCore

/// Which meeting an event joins, and which of a meeting's copies speaks for it: the rule that
/// keeps one meeting identity across calendars from being a door into someone else's meeting.
///
/// Copies with the same identity (iCalUID, or UID + RECURRENCE-ID) are one meeting only among
/// people who vouch for each other. An event joins the meeting of its identity when the
/// meeting holds no copy of another owner's, or when one such copy names the event's owner
/// (organizer or attendee) and the event names that copy's owner in turn. Otherwise the event
/// is its owner's own meeting, under ``ownIdentity(_:ownerID:)``: anyone can write any UID into
/// their own calendar, and a UID alone must never show them others' attendees or recordings,
/// nor let their copy rename the meeting for everyone.
///
/// A meeting's title and times come from its most trusted copy (``chosenCopyOrder``): live
/// before deleted, the organizer's own copy first, then server calendars (Graph, CalDAV) before
/// files (ICS) before phones, then the most recently written.
///
/// The SQL is the same on both catalogs; only how a list of addresses is bound differs.
package enum MeetingMembership {
    /// The identity of `ownerID`'s own meeting for `identity`, when the meeting of that identity
    /// belongs to people who do not vouch for them. The separator cannot occur in a UID read from
    /// a calendar (control characters are stripped), so the key collides with no other.
    package static func ownIdentity(_ identity: String, ownerID: Int64) -> String {
        "\(identity)\u{1F}owner:\(ownerID)"
    }

    /// The addresses an occurrence names, organizer and attendees, lowercased.
    package static func namedAddresses(_ occurrence: EventOccurrence) -> [String] {
        var named = Set(occurrence.attendees.map { $0.email.lowercased() })
        if let organizer = occurrence.organizer?.email { named.insert(organizer.lowercased()) }
        named.remove("")
        return named.sorted()
    }

    /// What is read about the meeting an occurrence's identity names.
    package struct Facts: Sendable, Hashable {
        /// The meeting holds a copy (live or deleted) from a calendar of another owner.
        package var hasOthersCopies: Bool
        /// One of those copies names the event's owner, and the event names that copy's owner.
        package var isVouched: Bool

        package init(hasOthersCopies: Bool, isVouched: Bool) {
            self.hasOthersCopies = hasOthersCopies
            self.isVouched = isVouched
        }

        /// Whether the event joins the meeting (else it is its owner's own meeting).
        package var joins: Bool { !hasOthersCopies || isVouched }
    }

    /// Two boolean columns, `others` and `vouched` (see ``Facts``), for the meeting `meeting`,
    /// an event of owner `owner` and the set of lowercased addresses it names, `named` (a
    /// parenthesised subquery or list each dialect binds its own way).
    package static func factsColumns(meeting: String, owner: String, named: String) -> String {
        let othersCopies = """
            FROM events c JOIN calendars k ON k.id = c.calendar_id JOIN calendar_accounts ca ON ca.id = k.account_id
            WHERE c.meeting_id = \(meeting) AND ca.owner_id <> \(owner)
            """
        return """
            EXISTS (SELECT 1 \(othersCopies)) AS others,
            EXISTS (SELECT 1 \(othersCopies)
                      AND (lower(c.organizer_email) IN (SELECT lower(email) FROM user_emails WHERE user_id = \(owner))
                           OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = c.id
                                        AND lower(ea.email) IN (SELECT lower(email) FROM user_emails WHERE user_id = \(owner))))
                      AND EXISTS (SELECT 1 FROM user_emails ve WHERE ve.user_id = ca.owner_id AND lower(ve.email) IN \(named))) AS vouched
            """
    }

    /// The order of a meeting's copies (events `e` of accounts `a`) whose first decides the
    /// meeting's title and times.
    package static let chosenCopyOrder = """
        CASE WHEN e.deleted_at IS NULL THEN 0 ELSE 1 END,
        CASE WHEN lower(e.organizer_email) IN (SELECT lower(ue.email) FROM user_emails ue WHERE ue.user_id = a.owner_id) THEN 0 ELSE 1 END,
        CASE a.provider WHEN 'device' THEN 2 WHEN 'ics' THEN 1 ELSE 0 END,
        e.updated_at DESC, e.id DESC
        """

    /// Sets the title and times of the meetings whose ids `ids` lists (a parenthesised subquery
    /// or list) from their chosen copies, touching only those that differ; `now` is the
    /// parameter holding the update time in milliseconds.
    package static func refreshFromChosenCopies(ids: String, now: String) -> String {
        """
        UPDATE meetings SET title = e.title, starts_at = e.starts_at, ends_at = e.ends_at, updated_at = \(now)
        FROM (SELECT m.id AS meeting_id,
                     (SELECT e.id FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                      WHERE e.meeting_id = m.id ORDER BY \(chosenCopyOrder) LIMIT 1) AS event_id
              FROM meetings m WHERE m.id IN \(ids)) chosen
        JOIN events e ON e.id = chosen.event_id
        WHERE meetings.id = chosen.meeting_id
          AND (meetings.title <> e.title OR meetings.starts_at IS DISTINCT FROM e.starts_at OR meetings.ends_at IS DISTINCT FROM e.ends_at)
        """
    }

    /// Whether event `e` of account `a` may speak for user `owner` when linking their
    /// recordings: it is in one of their calendars, or it is its organizer's own copy (the
    /// organizer decides who is invited). A member's calendar speaks only for that member: an
    /// event in bob's calendar naming alice as organizer or attendee says nothing about alice.
    package static func speaksForOwner(_ owner: String) -> String {
        "coalesce(a.owner_id = \(owner) OR e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = a.owner_id), false)"
    }
}
