/// The XML namespaces and element names Steno's WebDAV and CalDAV requests use.
public enum DAVNamespace {
    /// WebDAV (RFC 4918), sync-collection (RFC 6578), current-user-principal (RFC 5397).
    public static let dav = "DAV:"
    /// CalDAV (RFC 4791).
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    /// Apple's Calendar Server extensions (`getctag`).
    public static let calendarServer = "http://calendarserver.org/ns/"
    /// Apple iCal extensions (`calendar-color`).
    public static let appleICal = "http://apple.com/ns/ical/"
}

extension XMLName {
    static func dav(_ local: String) -> XMLName { XMLName(DAVNamespace.dav, local) }
    static func caldav(_ local: String) -> XMLName { XMLName(DAVNamespace.caldav, local) }

    static let multistatus = dav("multistatus")
    static let response = dav("response")
    static let href = dav("href")
    static let status = dav("status")
    static let propstat = dav("propstat")
    static let prop = dav("prop")
    static let error = dav("error")
    static let syncToken = dav("sync-token")
    static let responseDescription = dav("responsedescription")

    static let resourceType = dav("resourcetype")
    static let displayName = dav("displayname")
    static let getETag = dav("getetag")
    static let currentUserPrincipal = dav("current-user-principal")
    static let supportedReportSet = dav("supported-report-set")
    static let collection = dav("collection")
    static let validSyncToken = dav("valid-sync-token")

    static let calendar = caldav("calendar")
    static let calendarHomeSet = caldav("calendar-home-set")
    static let calendarData = caldav("calendar-data")
    static let calendarTimeZone = caldav("calendar-timezone")
    static let supportedComponents = caldav("supported-calendar-component-set")
    static let comp = caldav("comp")
    static let getCTag = XMLName(DAVNamespace.calendarServer, "getctag")
    static let calendarColor = XMLName(DAVNamespace.appleICal, "calendar-color")
}
