import Foundation
import StenoCore

/// The `device` provider: a phone pushes its events (the device agent endpoint), so a sync
/// has nothing to fetch. It reports the calendars the device has sent, which keeps the
/// account's health and schedule like any other's.
public struct DeviceCalendarProvider: CalendarProvider {
    public var kind: CalendarProviderKind { .device }

    public init() {}

    public func sync(_ context: CalendarSyncContext) async throws -> CalendarSyncReport {
        var report = CalendarSyncReport()
        report.calendars = try await context.mirror.calendars().count
        return report
    }
}

/// Writes to a device's calendars: Steno cannot reach the phone, so an event it creates
/// there is a *request* in the mirror (a row without a provider in the device's change feed)
/// until the agent creates it and pushes it back naming the request.
public struct DeviceEventRequests: CalendarEventWriter {
    public init() {}

    public func create(_ event: NewCalendarEvent, calendarRemoteID: String, context: CalendarAccountContext) async throws -> CalendarEventRef {
        // The request keeps the meeting identity Steno chose (one per recording): the device's
        // event joins that meeting when it comes back, so the recording's link holds.
        let identity = event.uid ?? "steno-\(UUID().uuidString.lowercased())@steno"
        let resource = DeviceEventKeys.requestPrefix + identity
        let occurrence = EventOccurrence(
            remoteID: resource, iCalUID: nil, meetingIdentity: identity, title: event.title, start: event.start, end: event.end,
            location: event.location)
        return CalendarEventRef(calendarRemoteID: calendarRemoteID, resource: resource, uid: identity, occurrence: occurrence)
    }

    public func rename(_ event: CalendarEventRef, title: String, context: CalendarAccountContext) async throws -> CalendarEventRef {
        throw CalendarWriteError.notPermitted("events of a phone's calendar are renamed on the phone; the agent pushes the new title")
    }
}
