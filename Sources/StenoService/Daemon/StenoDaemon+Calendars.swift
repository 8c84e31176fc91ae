import Foundation
import Logging
import StenoCalendar
import StenoCore
import StenoStore

extension StenoDaemon {
    /// What calendar mirroring needs at run time: the HTTP client, the secrets key, the providers.
    struct CalendarRuntime: Sendable {
        let transport: HTTPTransport
        let secrets: SecretBox?
        let providers: [any CalendarProvider]
        let syncer: CalendarSyncer
    }

    /// Loads the secrets key (creating it on first start) and builds the providers.
    ///
    /// A key that cannot be used is not fatal: the daemon runs, accounts without secrets sync,
    /// and adding credentials is refused with the reason in the log.
    func makeCalendarRuntime(store: SQLiteCatalog) -> CalendarRuntime {
        let transport = HTTPTransport()
        var secrets: SecretBox?
        let keyPath = configuration.secretKeyPath(environment: environment)
        do {
            secrets = try SecretBox.loadOrCreate(keyFile: keyPath)
        } catch {
            logger.error("calendar credentials are unavailable: \(error.description)")
        }
        let zone = configuration.calendarTimeZone
        let providers: [any CalendarProvider] = [
            ICSProvider(transport: transport, defaultTimeZone: zone),
            CalDAVProvider(transport: transport, options: CalDAVProvider.Options(defaultTimeZone: zone)),
        ]
        let syncer = CalendarSyncer(
            store: store, providers: providers, secrets: secrets, settings: configuration.calendars, logger: logger)
        return CalendarRuntime(transport: transport, secrets: secrets, providers: providers, syncer: syncer)
    }
}
