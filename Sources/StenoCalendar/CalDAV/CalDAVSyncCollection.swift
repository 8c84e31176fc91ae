import Foundation

/// What a sync-collection report (RFC 6578) said changed since a token, all pages read.
struct CalDAVChangeList: Sendable {
    /// Members created or changed, with their ETags, in the order first reported.
    var changed: [DAVHref] = []
    var etags: [String: String?] = [:]
    /// Members deleted (reported 404).
    var removed: Set<String> = []
    /// The token that covers everything listed.
    var token: String
    /// Reports sent (pages of a truncated result).
    var pages = 0

    init(token: String) {
        self.token = token
    }

    /// Records one member's latest state: a later report of the same href wins.
    mutating func record(_ href: DAVHref, etag: String?, deleted: Bool) {
        if deleted {
            if etags.removeValue(forKey: href.path) != nil { changed.removeAll { $0.path == href.path } }
            removed.insert(href.path)
        } else {
            if etags.updateValue(etag, forKey: href.path) == nil { changed.append(href) }
            removed.remove(href.path)
        }
    }
}

/// Why a sync-collection report could not be used.
enum SyncCollectionRefusal: Error {
    /// The server no longer accepts the stored token (403/409/400 with DAV:valid-sync-token, 415…): sync in full.
    case tokenRejected(status: Int)
    /// The collection does not support the report: compare ETags instead.
    case unsupported(status: Int)
}

/// Reads a sync-collection report, following truncated results (507 on the collection's own
/// response, as Google does every few hundred items) with the token each page returns.
struct CalDAVSyncCollection {
    let client: CalDAVClient
    let collection: URL
    let collectionPath: String
    /// `<D:limit>` to send, nil for none; dropped if the server refuses it.
    var limit: Int?
    /// The most pages read before giving up on a server that never completes.
    var maximumPages = 10_000

    /// The changes since `token` ("" for every member).
    ///
    /// - Throws: ``SyncCollectionRefusal``, or ``CalendarSyncError`` for other failures.
    func changes(since token: String) async throws -> CalDAVChangeList {
        var list = CalDAVChangeList(token: token)
        var currentToken = token
        var currentLimit = limit
        while list.pages < maximumPages {
            let body = CalDAVRequests.syncCollection(token: currentToken, limit: currentLimit)
            let response = try await client.send("REPORT", collection, depth: "0", body: body)
            list.pages += 1
            if response.status != 207 {
                let conditions = MultistatusParser.errorConditions(response.body)
                if response.status == 507, currentLimit != nil {
                    // The server cannot honour DAV:limit (number-of-matches-within-limits): ask without one.
                    currentLimit = nil
                    continue
                }
                try Self.classify(response, conditions: conditions, token: currentToken, url: collection)
            }
            let multistatus = try CalDAVClient.multistatus(of: response, method: "REPORT", url: collection)
            var truncated = false
            for entry in multistatus.responses {
                if entry.href.asCollection.path == collectionPath {
                    if entry.effectiveStatus == 507 { truncated = true }
                    continue
                }
                if entry.href.isCollection { continue }
                let status = entry.effectiveStatus
                if status == 404 || status == 410 {
                    list.record(entry.href, etag: nil, deleted: true)
                } else if (200..<300).contains(status) {
                    list.record(entry.href, etag: entry.text(.getETag), deleted: false)
                }
            }
            guard let next = multistatus.syncToken, !next.isEmpty else {
                throw CalendarSyncError.malformedResponse(
                    "REPORT sync-collection \(collection.absoluteString): the response has no DAV:sync-token")
            }
            list.token = next
            if !truncated { return list }
            if next == currentToken {
                throw CalendarSyncError.malformedResponse(
                    "REPORT sync-collection \(collection.absoluteString): a truncated result (507) returned the same token again")
            }
            currentToken = next
        }
        throw CalendarSyncError.malformedResponse(
            "REPORT sync-collection \(collection.absoluteString): still truncated after \(maximumPages) pages")
    }

    /// Throws the meaning of a non-207 answer to sync-collection: with a token, the statuses
    /// servers use to refuse one (403/409 with DAV:valid-sync-token, 400, 410, 415) mean "sync
    /// in full" — the safe reading even without the precondition; without a token they mean
    /// the report is not available here.
    static func classify(_ response: HTTPResponseValue, conditions: [XMLName], token: String, url: URL) throws -> Never {
        let refusals: Set<Int> = [400, 403, 409, 410, 415]
        if !token.isEmpty, refusals.contains(response.status) || conditions.contains(.validSyncToken) {
            throw SyncCollectionRefusal.tokenRejected(status: response.status)
        }
        if token.isEmpty, refusals.union([405, 501]).contains(response.status) {
            throw SyncCollectionRefusal.unsupported(status: response.status)
        }
        throw HTTPStatusMeaning.error(for: response, doing: "REPORT sync-collection \(url.absoluteString)")
    }
}
