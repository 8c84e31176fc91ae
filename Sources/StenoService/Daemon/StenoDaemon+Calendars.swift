import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

extension StenoDaemon {
    /// What calendar mirroring needs at run time: the HTTP client, the secrets key, the
    /// providers, the Microsoft sign-ins in progress, write-back, and the lookups revalidation
    /// makes outside the mirrored window.
    struct CalendarRuntime: Sendable {
        let transport: HTTPTransport
        let secrets: SecretBox?
        let providers: [any CalendarProvider]
        let syncer: CalendarSyncer
        let signIns: DeviceSignIns
        let writeBack: CalendarWriteBack
        let verifier: SourceEventVerifier
        let history: CalendarHistoryFetcher
    }

    /// Loads the secrets key (creating it on first start) and builds the providers.
    ///
    /// A key that cannot be used is not fatal: the daemon runs, accounts without secrets sync,
    /// and adding credentials is refused with the reason in the log.
    func makeCalendarRuntime(store: any CatalogStore) -> CalendarRuntime {
        let transport = HTTPTransport()
        var secrets: SecretBox?
        let keyPath = configuration.secretKeyPath(environment: environment)
        do {
            secrets = try SecretBox.loadOrCreate(keyFile: keyPath)
        } catch {
            logger.error("calendar credentials are unavailable: \(error.description)")
        }
        let zone = configuration.calendarTimeZone
        // Daemons sharing a PostgreSQL catalog share each mailbox's Graph requests through it;
        // an embedded catalog has one daemon, whose own gate is enough.
        let graph = GraphProvider(
            transport: transport, mappedMailboxes: { try await Self.userEmails(store: store) },
            sharedSlots: configuration.postgres == nil ? nil : CatalogMailboxSlots(leases: store))
        let ics = ICSProvider(transport: transport, defaultTimeZone: zone)
        let caldav = CalDAVProvider(transport: transport, options: CalDAVProvider.Options(defaultTimeZone: zone))
        let providers: [any CalendarProvider] = [
            ics,
            caldav,
            graph,
            DeviceCalendarProvider(),
        ]
        let syncer = CalendarSyncer(
            store: store, providers: providers, secrets: secrets, settings: configuration.calendars, logger: logger)
        let writers: [CalendarProviderKind: any CalendarEventWriter] = [
            .graph: graph, .caldav: CalDAVEventWriter(transport: transport), .device: DeviceEventRequests(),
        ]
        let lookups: [CalendarProviderKind: any CalendarEventLookup] = [.graph: graph]
        return CalendarRuntime(
            transport: transport, secrets: secrets, providers: providers, syncer: syncer, signIns: DeviceSignIns(store: store, logger: logger),
            writeBack: CalendarWriteBack(
                store: store, writers: writers, secrets: secrets, logger: logger, memberNetworks: configuration.calendars.memberNetworks),
            verifier: SourceEventVerifier(store: store, lookups: lookups, secrets: secrets, settings: configuration.calendars, logger: logger),
            history: CalendarHistoryFetcher(
                store: store, sources: [.ics: ics, .caldav: caldav, .graph: graph], secrets: secrets, settings: configuration.calendars, logger: logger))
    }

    /// Every Steno user's emails: the mailboxes an organisation Graph account without a user
    /// list reads: such an account covers every user mapped in Steno.
    static func userEmails(store: any CatalogStore) async throws -> [String] {
        var emails: [String] = []
        var after: Int64?
        while true {
            let page = try await store.users(afterID: after, limit: 500)
            emails += page.flatMap(\.emails)
            guard page.count == 500, let last = page.last else { return emails }
            after = last.id
        }
    }
}
