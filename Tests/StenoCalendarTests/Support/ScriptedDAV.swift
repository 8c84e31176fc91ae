import Foundation

/// Multistatus bodies for scripted servers.
enum ScriptedDAV {
    static func multistatus(_ responses: [String], syncToken: String? = nil) -> String {
        #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">"#
            + responses.joined() + (syncToken.map { "<d:sync-token>\($0)</d:sync-token>" } ?? "") + "</d:multistatus>"
    }

    static func member(_ href: String, etag: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:getetag>\(etag)</d:getetag></d:prop>"
            + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }

    static func status(_ href: String, _ status: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:status>HTTP/1.1 \(status)</d:status></d:response>"
    }

    static func object(_ href: String, etag: String, ics: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:getetag>\(etag)</d:getetag>"
            + "<cal:calendar-data><![CDATA[\(ics)]]></cal:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }

    /// A calendar home listing one calendar at `href`.
    static func home(calendar href: String, ctag: String) -> String {
        multistatus([
            "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><cal:calendar/></d:resourcetype>"
                + "<d:displayname>Scripted</d:displayname><cs:getctag>\(ctag)</cs:getctag></d:prop>"
                + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        ])
    }
}
