import Foundation
import StenoCalendar
import StenoCatalog

/// Microsoft Graph's per-mailbox request slots as leases in a catalog several daemons share,
/// so the four requests Exchange allows one application per mailbox hold across all of them.
///
/// Slot `n` of a mailbox is the lease `graph-mailbox:<client id>/<user>#<n>`, held by
/// `host/pid`. A daemon that dies leaves its slots to run out after ``leaseDuration``.
struct CatalogMailboxSlots: SharedMailboxSlots {
    let leases: any LeaseStore
    let holder: String
    let leaseDuration: Duration

    init(leases: any LeaseStore, holder: String = "\(ProcessInfo.processInfo.hostName)/\(getpid())", leaseDuration: Duration = .seconds(20)) {
        self.leases = leases
        self.holder = holder
        self.leaseDuration = leaseDuration
    }

    static func leaseName(mailbox: String, slot: Int) -> String { "graph-mailbox:\(mailbox)#\(slot)" }

    func acquire(mailbox: String, slot: Int) async throws -> Bool {
        try await leases.acquireLease(Self.leaseName(mailbox: mailbox, slot: slot), holder: holder, duration: leaseDuration, now: Date())
    }

    func release(mailbox: String, slot: Int) async {
        // An unreachable catalog lets the lease run out instead.
        try? await leases.releaseLease(Self.leaseName(mailbox: mailbox, slot: slot), holder: holder)
    }
}
