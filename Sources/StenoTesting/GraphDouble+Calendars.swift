import Foundation

extension GraphDouble {
    /// A calendar of a mailbox besides its default one: the user's own, or another person's
    /// shared with them (`owner` set).
    public struct Calendar: Sendable, Hashable {
        public var id: String
        public var name: String
        /// The owner's address; nil: the mailbox's user.
        public var owner: String?
        public var canEdit: Bool

        public init(id: String, name: String, owner: String? = nil, canEdit: Bool = true) {
            self.id = id
            self.name = name
            self.owner = owner
            self.canEdit = canEdit
        }
    }

    /// The id `GET …/calendars` gives every mailbox's default calendar.
    public static let defaultCalendarID = "default-calendar"

    /// Adds a calendar to a mailbox's `GET …/calendars` listing; its events are put with
    /// `calendar: id` and read through `…/calendars/{id}/calendarView/delta`.
    public func addCalendar(_ calendar: Calendar, mailbox: String = "alice@contoso.com") {
        service.state.withLock { state in
            state.calendars[mailbox, default: []].removeAll { $0.id == calendar.id }
            state.calendars[mailbox, default: []].append(calendar)
        }
    }

    /// Where a calendar's events are kept: the mailbox's own key for its default calendar.
    public static func storeKey(mailbox: String, calendar: String?) -> String {
        guard let calendar, calendar != defaultCalendarID else { return mailbox }
        return mailbox + "/" + calendar
    }
}

extension GraphDoubleService {
    /// `GET …/calendars`: the default calendar, then the added ones, as Graph lists them.
    func calendarListing(mailbox: String, base: String) -> GraphDoubleResponse {
        let added = state.withLock { $0.calendars[mailbox] ?? [] }
        var values: [[String: Any]] = [
            Self.calendarJSON(
                id: GraphDouble.defaultCalendarID, name: "Calendar", isDefault: true, canEdit: true, owner: mailbox, isShared: false)
        ]
        for calendar in added {
            values.append(
                Self.calendarJSON(
                    id: calendar.id, name: calendar.name, isDefault: false, canEdit: calendar.canEdit, owner: calendar.owner ?? mailbox,
                    isShared: calendar.owner != nil))
        }
        return .json(200, ["@odata.context": "\(base)/v1.0/$metadata#users('\(mailbox)')/calendars", "value": values])
    }

    private static func calendarJSON(id: String, name: String, isDefault: Bool, canEdit: Bool, owner: String, isShared: Bool) -> [String: Any] {
        [
            "id": id, "name": name, "color": "auto", "hexColor": isShared ? "#e3008c" : "", "isDefaultCalendar": isDefault,
            "changeKey": "ck-\(id)", "canShare": !isShared, "canViewPrivateItems": !isShared, "canEdit": canEdit, "isRemovable": !isDefault,
            "isTallyingResponses": !isShared, "owner": ["name": owner, "address": owner],
        ]
    }

    /// The calendar a `calendars/{id}/…` request names: its store key and path; nil for a
    /// calendar the mailbox does not have.
    func calendarRoute(_ id: String, mailbox: String, mailboxPath: String) -> (store: String, path: String)? {
        let known = id == GraphDouble.defaultCalendarID || state.withLock { $0.calendars[mailbox]?.contains { $0.id == id } ?? false }
        guard known else { return nil }
        return (GraphDouble.storeKey(mailbox: mailbox, calendar: id), mailboxPath + "/calendars/" + id)
    }

    /// `GET …/calendarView?startDateTime&endDateTime`: the events overlapping the span (any
    /// date: the double keeps every event), by start, paged with `$skip` in `@odata.nextLink`.
    func calendarView(
        _ request: GraphDouble.Request, store: String, path: String, query: [String: String], base: String, utc: Bool
    ) -> GraphDoubleResponse {
        guard let startText = query["startDateTime"], let endText = query["endDateTime"], let start = Self.parseDate(startText),
            let end = Self.parseDate(endText)
        else {
            return .graphError(
                400, "ErrorInvalidParameter",
                "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.")
        }
        let pageSize = Self.maxPageSize(request.header("prefer") ?? "") ?? state.withLock { $0.defaultPageSize }
        let skip = max(0, Int(query["$skip"] ?? "0") ?? 0)
        let events = state.withLock { state in
            (state.mailboxes[store] ?? [:]).values.filter { $0.overlaps((start, end)) }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        }
        let page = events[min(skip, events.count)..<min(skip + pageSize, events.count)]
        var body = Data("{\"@odata.context\":\"\(base)/v1.0/$metadata#Collection(event)\",\"value\":[".utf8)
        for (index, event) in page.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(render(event, utc: utc))
        }
        body.append(UInt8(ascii: "]"))
        if skip + pageSize < events.count {
            body.append(Data(",\"@odata.nextLink\":\"\(base)/v1.0/\(path)/calendarView?startDateTime=\(startText)&endDateTime=\(endText)&$skip=\(skip + pageSize)\"".utf8))
        }
        body.append(UInt8(ascii: "}"))
        return GraphDoubleResponse(status: 200, headers: [("Preference-Applied", "odata.maxpagesize=\(pageSize)")], body: body)
    }
}
