import Foundation
import StenoCore
import StenoJSON

/// A mailbox whose calendars an account mirrors.
struct GraphMailbox: Sendable, Hashable {
    /// The Graph path: `me`, or `users/{id|userPrincipalName}`.
    var path: String
    /// The remote id of the mailbox's default calendar in the mirror (the path).
    var remoteID: String { path }
    /// A name for tables.
    var name: String

    static func signedInUser(name: String) -> GraphMailbox { GraphMailbox(path: "me", name: name) }

    /// Another user's mailbox (application permissions); `reference` is an id or UPN (a `/`
    /// in it would name another path, so it is dropped).
    static func user(_ reference: String) -> GraphMailbox {
        GraphMailbox(path: "users/" + reference.replacingOccurrences(of: "/", with: ""), name: reference)
    }

    /// The mailbox path of a calendar's remote id: `me/calendars/{id}` → `me`.
    static func path(ofCalendar remoteID: String) -> String {
        guard let range = remoteID.range(of: "/calendars/") else { return remoteID }
        return String(remoteID[..<range.lowerBound])
    }

    /// Whether `remoteID` names one of this mailbox's calendars.
    func holds(calendar remoteID: String) -> Bool {
        Self.path(ofCalendar: remoteID) == path
    }
}

/// One calendar of a mailbox: its own calendars and the shared calendars its user can read,
/// as `GET /{mailbox}/calendars` lists them.
struct GraphCalendar: Sendable, Hashable {
    var mailbox: GraphMailbox
    /// The path its requests go to and its remote id in the mirror: the mailbox path for the
    /// default calendar (the one calendar Steno mirrored per mailbox before it read them all,
    /// so that row keeps its events and links), `{mailbox}/calendars/{id}` for the others.
    var path: String
    var name: String
    var color: String?

    var remoteID: String { path }

    /// The mailbox's default calendar.
    static func defaultCalendar(of mailbox: GraphMailbox) -> GraphCalendar {
        GraphCalendar(mailbox: mailbox, path: mailbox.path, name: mailbox.name)
    }
}

extension GraphCalendar {
    /// The calendars of `mailbox`: its default calendar first, then the others by id.
    ///
    /// - Throws: ``CalendarSyncError`` as the client reports it; ``CalendarSyncError/badSource(_:)``
    ///   when Graph refuses the listing, ``CalendarSyncError/malformedResponse(_:)`` for a page
    ///   that is not a collection.
    static func list(in mailbox: GraphMailbox, client: GraphClient, graphURL: URL, maximumPages: Int) async throws -> [GraphCalendar] {
        var components = URLComponents(url: graphURL.appendingPathComponent(mailbox.path + "/calendars"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "$select", value: "id,name,hexColor,isDefaultCalendar,canEdit,owner")]
        guard var url = components?.url else { throw CalendarSyncError.badSource("cannot build the calendars URL for \(mailbox.path)") }
        var others: [GraphCalendar] = []
        for _ in 0..<max(1, maximumPages) {
            let response = try await client.get(url, mailbox: mailbox.remoteID)
            guard response.isSuccess else {
                throw CalendarSyncError.badSource("GET \(url.path) for \(mailbox.name) failed: \(GraphError(response))")
            }
            guard let page = try? JSONValue.parse(response.body), let values = page["value"]?.arrayValue else {
                throw CalendarSyncError.malformedResponse("GET \(url.path): not a Graph collection page")
            }
            for value in values {
                guard let id = value["id"]?.stringValue, !id.isEmpty, value["isDefaultCalendar"]?.boolValue != true else { continue }
                others.append(Self(listed: value, id: id, mailbox: mailbox))
            }
            guard let next = page["@odata.nextLink"]?.stringValue else {
                return [defaultCalendar(of: mailbox)] + others.sorted { $0.path < $1.path }
            }
            guard let nextURL = URL(string: next) else { throw CalendarSyncError.malformedResponse("unreadable @odata.nextLink \(next)") }
            url = nextURL
        }
        throw CalendarSyncError.malformedResponse("Microsoft Graph sent more than \(maximumPages) pages of calendars for \(mailbox.name)")
    }

    /// A calendar other than the default one, named after its mailbox (an organisation's
    /// mailboxes all have a "Calendar") and, when another person owns it, after them.
    private init(listed value: JSONValue, id: String, mailbox: GraphMailbox) {
        let name = value["name"]?.stringValue ?? id
        let owner = value["owner"]?["address"]?.stringValue ?? ""
        let shared = !owner.isEmpty && owner.lowercased() != mailbox.name.lowercased()
        let color = value["hexColor"]?.stringValue
        self.init(
            mailbox: mailbox, path: mailbox.path + "/calendars/" + id.replacingOccurrences(of: "/", with: ""),
            name: "\(mailbox.name) / \(name)" + (shared ? " (shared by \(owner))" : ""), color: color?.isEmpty == false ? color : nil)
    }
}
