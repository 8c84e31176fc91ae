import Foundation
import StenoCore
import StenoStore

// TEMPORARY while the PostgreSQL store is being ported protocol by protocol (issue 19): each
// section below is deleted as its protocol gets a real implementation in its own file. The
// configuration does not offer PostgreSQL until this file is gone.

enum NotYetPorted: Error, CustomStringConvertible {
    case method(String)
    var description: String { switch self { case .method(let name): "\(name) is not available on PostgreSQL yet" } }
}

// MARK: DeviceStore
extension PostgresCatalog: DeviceStore {
    public func addDevice(ownerID: Int64, label: String, timeZone: String, tokenHash: Data, now: Date) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func devices(ownerID: Int64?, afterID: Int64?, limit: Int) async throws -> [DeviceRecord] { throw NotYetPorted.method(#function) }
    public func device(id: Int64) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func device(tokenHash: Data) async throws -> DeviceRecord? { throw NotYetPorted.method(#function) }
    public func revokeDevice(id: Int64, now: Date) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func recordDeviceContact(id: Int64, address: String?, now: Date) async throws { throw NotYetPorted.method(#function) }
    public func addPairing(codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, now: Date) async throws { throw NotYetPorted.method(#function) }
    public func redeemPairing(codeHash: Data, tokenHash: Data, label: String, timeZone: String, now: Date) async throws -> DeviceRecord? { throw NotYetPorted.method(#function) }
    public func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport { throw NotYetPorted.method(#function) }
    public func eventChanges(_ query: EventChangesQuery) async throws -> EventChangesPage { throw NotYetPorted.method(#function) }
}

// MARK: LinkStore
extension PostgresCatalog: LinkStore {
    public func linkFacts(recordingID: Int64) async throws -> (facts: RecordingLinkFacts, ownerID: Int64?)? { throw NotYetPorted.method(#function) }
    public func linkCandidates(ownerID: Int64?, window: DateInterval) async throws -> [LinkCandidate] { throw NotYetPorted.method(#function) }
    public func linkCandidateSpans(ownerID: Int64?, window: DateInterval) async throws -> [EventSpan] { throw NotYetPorted.method(#function) }
    public func identityCandidates(iCalUID: String?, eventID: String?, ownerID: Int64?) async throws -> [LinkCandidate] { throw NotYetPorted.method(#function) }
    public func meetingEvents(meetingID: Int64, exceptEventID: Int64?, ownerID: Int64?) async throws -> [LinkCandidate] { throw NotYetPorted.method(#function) }
    public func liveEvent(id: Int64, ownerID: Int64?) async throws -> LinkCandidate? { throw NotYetPorted.method(#function) }
    public func link(recordingID: Int64) async throws -> ExistingLink? { throw NotYetPorted.method(#function) }
    public func saveLink(_ update: LinkUpdate) async throws { throw NotYetPorted.method(#function) }
    public func saveLinks(_ updates: [LinkUpdate]) async throws { throw NotYetPorted.method(#function) }
    public func linkFacts(recordingIDs: [Int64]) async throws -> [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)] { throw NotYetPorted.method(#function) }
    public func links(recordingIDs: [Int64]) async throws -> [Int64: ExistingLink] { throw NotYetPorted.method(#function) }
    public func liveEvents(ids: [Int64], ownerID: Int64?) async throws -> [Int64: LinkCandidate] { throw NotYetPorted.method(#function) }
    public func meetingEvents(meetingIDs: [Int64], ownerID: Int64?) async throws -> [Int64: [LinkCandidate]] { throw NotYetPorted.method(#function) }
    public func unsettledRecordings(recordedWithin window: DateInterval?) async throws -> [Int64] { throw NotYetPorted.method(#function) }
    public func linksTouchedByEvents(changedSince since: Date) async throws -> [Int64] { throw NotYetPorted.method(#function) }
    public func linkedRecordings() async throws -> [Int64] { throw NotYetPorted.method(#function) }
    public func changedEventSpan(since: Date) async throws -> DateInterval? { throw NotYetPorted.method(#function) }
    public func links(state: LinkState?, visibleTo userID: Int64?, afterRecordingID: Int64?, limit: Int) async throws -> [LinkSummary] { throw NotYetPorted.method(#function) }
    public func linkAttendees(recordingID: Int64) async throws -> [Attendee] { throw NotYetPorted.method(#function) }
    public func linkHistory(recordingID: Int64) async throws -> [LinkHistoryEntry] { throw NotYetPorted.method(#function) }
}

// MARK: MeetingStore
extension PostgresCatalog: MeetingStore {
    public func meetings(_ query: MeetingQuery) async throws -> [MeetingSummary] { throw NotYetPorted.method(#function) }
    public func meeting(id: Int64, visibleTo userID: Int64?) async throws -> MeetingDetail { throw NotYetPorted.method(#function) }
    public func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit] { throw NotYetPorted.method(#function) }
}

extension PostgresCatalog: CatalogStore {}
