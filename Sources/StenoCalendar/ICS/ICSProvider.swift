import Foundation
import Logging
import StenoCore

/// Calendars from iCalendar files: a `.ics` file, a folder of them, or an http(s) URL.
///
/// Each sync first checks whether anything changed (file sizes and modification times; for a
/// URL a conditional GET with the stored ETag / Last-Modified) and whether the mirrored window
/// slid to a new day; only then are the files parsed, expanded and handed to the mirror as one
/// complete change set — events no longer in the source are tombstoned.
public struct ICSProvider: CalendarProvider {
    public var kind: CalendarProviderKind { .ics }
    let transport: HTTPTransport
    let defaultTimeZone: TimeZone
    /// The largest file read; larger ones are refused rather than loaded.
    let maximumFileBytes: Int

    /// A provider reading URLs through `transport`; floating times and all-day dates are read
    /// in `defaultTimeZone`.
    public init(transport: HTTPTransport, defaultTimeZone: TimeZone = .current, maximumFileBytes: Int = 64 << 20) {
        self.transport = transport
        self.defaultTimeZone = defaultTimeZone
        self.maximumFileBytes = maximumFileBytes
    }

    public func sync(_ context: CalendarSyncContext) async throws -> CalendarSyncReport {
        guard let setting = context.account.settings["source"] else {
            throw CalendarSyncError.badSource("the account has no source (a .ics file, folder or URL)")
        }
        let source = try ICSSource(setting)
        let stored = try await context.mirror.calendars().first { $0.remoteID == source.description }
        // A disabled calendar is not read until it is enabled again.
        if stored?.isEnabled == false { return CalendarSyncReport() }
        let previous = ICSSyncState.decode(stored?.syncState)
        let today = ICSSyncState.day(of: Date())
        let windowMoved = previous?.windowDay != today
        var report = CalendarSyncReport()
        report.calendars = 1
        context.progress(CalendarSyncProgress(calendarsDone: 0, calendarsTotal: 1, calendarName: source.description))

        let documents: [(resourcePrefix: String, text: String)]
        // What a server answered, named instead of its content when it is not a calendar.
        var answerType: String?
        var state = ICSSyncState(windowDay: today)
        switch source {
        case .file(let path), .folder(let path):
            if case .folder = source { try context.fileAccess.check(path, isFolder: true) }
            let files = try Self.calendarFiles(source: source)
            state.files = try Dictionary(uniqueKeysWithValues: files.map { ($0, try Self.fingerprint(of: $0)) })
            if !windowMoved, stored != nil, previous?.files == state.files {
                context.progress(CalendarSyncProgress(calendarsDone: 1, calendarsTotal: 1))
                return report
            }
            let isFolder: Bool
            if case .folder = source { isFolder = true } else { isFolder = false }
            documents = try files.map { file in
                let prefix = isFolder ? String(file.dropFirst(path.count).drop { $0 == "/" }) + "/" : ""
                return (prefix, String(decoding: try context.fileAccess.read(file, limit: maximumFileBytes), as: UTF8.self))
            }
        case .url(let url):
            let outcome = try await fetch(url, previous: windowMoved || stored == nil ? nil : previous, context: context)
            report.requests = 1
            guard let fetched = outcome else {
                context.progress(CalendarSyncProgress(calendarsDone: 1, calendarsTotal: 1))
                return report
            }
            report.bytesReceived = fetched.body.count
            state.etag = fetched.header("ETag")
            state.lastModified = fetched.header("Last-Modified")
            answerType = fetched.header("Content-Type") ?? "none"
            documents = [("", fetched.text)]
        }

        var resources: [String: [EventOccurrence]] = [:]
        var calendarName: String?
        var calendarZone: String?
        for document in documents {
            let calendar: ICalendar
            do {
                calendar = try ICalendar.parse(document.text)
            } catch {
                // A server's answer is not quoted: the URL could point at a service the owner may not read.
                if let answerType {
                    throw CalendarSyncError.badSource(
                        "\(CredentialRedaction.redactedURL(source.description)) did not answer with iCalendar data (content type \(answerType))")
                }
                let place = document.resourcePrefix.isEmpty ? source.description : String(document.resourcePrefix.dropLast())
                throw CalendarSyncError.badSource("\(place) is not valid iCalendar: \(error)")
            }
            let place = document.resourcePrefix.isEmpty ? source.description : String(document.resourcePrefix.dropLast())
            // A file cut short (or still being written) would tombstone every event after the cut.
            guard !calendar.isTruncated else {
                throw CalendarSyncError.badSource("\(place) ends in the middle of an event (truncated, or still being written)")
            }
            report.warnings += calendar.warnings.map { "\(place): \($0)" }
            calendarName = calendarName ?? calendar.name
            calendarZone = calendarZone ?? calendar.calendarTimeZoneID
            // Every event of the file is listed, even one without occurrences in the window:
            // the mirror keeps what it holds of it outside the window instead of deleting it.
            for event in calendar.events where !event.uid.isEmpty && resources[document.resourcePrefix + event.uid] == nil {
                resources[document.resourcePrefix + event.uid] = []
            }
            Self.addOccurrences(of: calendar, in: context.window, prefix: document.resourcePrefix, defaultTimeZone: defaultTimeZone, to: &resources)
        }
        let changes = CalendarChangeSet(
            calendar: CalendarDescriptor(
                remoteID: source.description, name: calendarName ?? Self.defaultName(source), timeZone: calendarZone),
            scope: .complete,
            updatedResources: resources.keys.sorted().map { ResourceUpdate(resource: $0, occurrences: resources[$0] ?? []) },
            syncState: state.encoded, window: context.window)
        report.fullSyncs = 1
        report.changes = try await context.mirror.apply(changes)
        try await context.mirror.removeCalendars(except: [source.description])
        context.progress(CalendarSyncProgress(calendarsDone: 1, calendarsTotal: 1))
        return report
    }

    /// Adds the occurrences of `calendar` within `window` to `resources`, keyed by the
    /// document's prefix and the event's UID (its start for an event without one).
    static func addOccurrences(
        of calendar: ICalendar, in window: DateInterval, prefix: String, defaultTimeZone: TimeZone, to resources: inout [String: [EventOccurrence]]
    ) {
        for occurrence in calendar.occurrences(in: window, defaultTimeZone: defaultTimeZone) {
            let key = occurrence.uid.isEmpty ? "no-uid-\(MeetingIdentity.basicUTC(occurrence.start))" : occurrence.uid
            let resource = prefix + key
            resources[resource, default: []].append(occurrence.mirrored(resource: resource))
        }
    }

    /// Whether a local source (file or folder) changed since the stored sync state: files
    /// added, removed, resized or touched. Cheap (a `stat` per file), so the service checks
    /// often and syncs at once instead of waiting for the next scheduled sync. False for URLs
    /// and for sources that cannot be read (the scheduled sync reports those).
    public static func localSourceChanged(account: CalendarAccount, calendars: [CalendarInfo]) -> Bool {
        guard let setting = account.settings["source"], let source = try? ICSSource(setting) else { return false }
        if case .url = source { return false }
        guard let stored = calendars.first(where: { $0.remoteID == source.description }),
            let state = ICSSyncState.decode(stored.syncState), let files = state.files
        else { return false }
        guard let current = try? calendarFiles(source: source), Set(current) == Set(files.keys) else { return true }
        return current.contains { (try? fingerprint(of: $0)) != files[$0] }
    }

    /// A file's name without extension, or the URL's host, as a calendar name.
    static func defaultName(_ source: ICSSource) -> String {
        switch source {
        case .file(let path), .folder(let path):
            return ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        case .url(let url):
            return url.host ?? url.absoluteString
        }
    }

    /// The `.ics` files of a source, sorted (a folder's direct children; hidden files skipped).
    static func calendarFiles(source: ICSSource) throws -> [String] {
        switch source {
        case .file(let path):
            return [path]
        case .folder(let path):
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw CalendarSyncError.badSource("cannot list \(path): \(error.localizedDescription)")
            }
            return names.filter { !$0.hasPrefix(".") && $0.lowercased().hasSuffix(".ics") }.sorted()
                .map { (path as NSString).appendingPathComponent($0) }
        case .url:
            return []
        }
    }

    /// Size and modification time of a file: what "changed" means for a local calendar.
    static func fingerprint(of path: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CalendarSyncError.badSource("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return "\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec):\(status.st_ino)"
    }

    /// GETs the calendar; nil when the server says it has not changed (304).
    func fetch(_ url: URL, previous: ICSSyncState?, context: CalendarSyncContext) async throws -> HTTPResponseValue? {
        var headers = [("Accept", "text/calendar, */*;q=0.5")]
        if let etag = previous?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = previous?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        if let user = context.account.settings["user"], let password = context.credentials?.password {
            headers.append(("Authorization", HTTPAuthorization.basic(user: user, password: password)))
        } else if let token = context.credentials?.accessToken {
            headers.append(("Authorization", HTTPAuthorization.bearer(token)))
        }
        let response = try await transport.send(HTTPRequestValue(method: "GET", url: url, headers: headers))
        switch response.status {
        case 304 where previous != nil:
            return nil
        case 200..<300:
            return response
        default:
            throw HTTPStatusMeaning.error(for: response, doing: "GET \(CredentialRedaction.redactedURL(url.absoluteString))")
        }
    }
}
