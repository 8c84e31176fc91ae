import Foundation
import Logging
import StenoCatalog

extension StenoDaemon {
    /// Refuses to start when the secrets key is gone but accounts hold credentials sealed
    /// with it: creating a new key would silently make every one of them unreadable, and the
    /// old key may still be in a backup.
    ///
    /// With `forgetSealedCredentials` (`stenod --forget-credentials`) the credentials are
    /// dropped instead, their accounts marked `needs-credentials`, and a new key is created.
    func checkSecretKey(store: any CatalogStore) async throws {
        let keyPath = configuration.secretKeyPath(environment: environment)
        var status = stat()
        guard lstat(keyPath, &status) != 0, errno == ENOENT else { return }
        let sealed = try await store.accountsWithSealedSecrets()
        guard !sealed.isEmpty else { return }
        guard forgetSealedCredentials else {
            throw SecretKeyMissing(keyPath: keyPath, accountIDs: sealed)
        }
        let forgotten = try await store.forgetSealedSecrets(
            reason: "the secrets key was lost and the stored credentials with it; add this account's credentials again",
            now: Date())
        logger.warning(
            "the secrets key was missing: forgot the credentials of \(forgotten) calendar account(s), which now need them added again",
            metadata: ["key": "\(keyPath)"])
    }
}

/// The secrets key is missing while accounts hold credentials sealed with it.
struct SecretKeyMissing: Error, CustomStringConvertible {
    let keyPath: String
    let accountIDs: [Int64]

    var description: String {
        let ids = accountIDs.prefix(10).map(String.init).joined(separator: ", ") + (accountIDs.count > 10 ? ", …" : "")
        return "the secrets key \(keyPath) is missing, but \(accountIDs.count) calendar account(s) (\(ids)) hold credentials "
            + "sealed with it. Restore the key from your backup to \(keyPath) (owned by the daemon's user, mode 0600) and start "
            + "again; or, to give those credentials up, start once with `stenod --forget-credentials`: a new key is created and "
            + "those accounts show needs-credentials until their passwords or tokens are added again"
    }
}
