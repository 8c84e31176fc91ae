/// The Steno device agent library: what an iPhone app needs to push its Apple Calendar
/// events to a Steno server and pull back what Steno wants on the device.
///
/// It imports Foundation only (URLSession for HTTP), so it builds on iOS, macOS and Linux; the
/// app brings EventKit by implementing ``CalendarStore`` over `EKEventStore`.
///
/// Pairing, once (the user runs `steno devices pair` on the server and types the code):
///
/// ```swift
/// let registration = try await StenoAgentClient.register(
///     baseURL: URL(string: "https://steno.example.com")!, pairingCode: "K7QF-2MXD",
///     label: UIDevice.current.name, timeZone: TimeZone.current.identifier)
/// // Keep registration.deviceToken in the Keychain and registration.device.id with the settings.
/// ```
///
/// Each sync (on launch, on `EKEventStoreChanged`, from a background refresh task):
///
/// ```swift
/// let sync = AgentSync(
///     client: StenoAgentClient(baseURL: serverURL, token: token),
///     store: EventKitCalendarStore(eventStore),          // the app's CalendarStore
///     stateStore: FileAgentStateStore(url: stateFileURL),
///     configuration: AgentSyncConfiguration(deviceId: deviceID, fallbackCalendarId: defaultCalendarID))
/// let report = try await sync.run()
/// ```
///
/// Or let an ``AgentSyncRunner`` run it every five minutes while the app is active, and at
/// once on `runner.trigger()` (from the `EKEventStoreChanged` notification):
///
/// ```swift
/// let runner = AgentSyncRunner(sync: sync, interval: 300) { outcome in await status.show(outcome) }
/// await runner.start()
/// ```
///
/// A run throws ``AgentClientError`` when the server cannot be talked to:
/// ``AgentClientError/unauthorized(message:)`` means the device must be paired again,
/// ``AgentClientError/isTransient`` errors are worth retrying later. Problems with single
/// events are in the report's ``AgentSyncReport/issues``.
///
/// What an EventKit store maps:
///
/// | ``DeviceEvent`` | EventKit |
/// |---|---|
/// | `externalId` | `eventIdentifier` |
/// | `occurrenceDate` | `occurrenceDate` of an event with `hasRecurrenceRules` |
/// | `externalCalendarId`, `calendarTitle` | `calendar.calendarIdentifier`, `calendar.title` |
/// | `externalUpdatedAt` | `lastModifiedDate` |
/// | times | `DeviceEvent(externalId:externalCalendarId:start:end:isAllDay:timeZone:…)` from `startDate`, `endDate`, `isAllDay`, `timeZone ?? .current` |
/// | `status` | `status` (`.confirmed`, `.tentative`, `.canceled`) |
/// | `organizer`, `attendees` | `organizer`, `attendees` (`EKParticipant` URL without `mailto:`, name, status, role, type) |
/// | `calendarItemExternalIdentifier` | `calendarItemExternalIdentifier` for Exchange and CalDAV calendars |
public enum StenoAgent {}
