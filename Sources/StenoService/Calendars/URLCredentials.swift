import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// A user name and password written into an account's URL (`https://alice:pw@host/cal.ics`).
///
/// They belong in the sealed secret, not in settings that are listed, logged and quoted in
/// errors: accounts.add moves them there, and accounts stored before that rule are moved once
/// at start-up.
struct URLCredentials: Sendable, Hashable {
    /// The URL without them.
    var url: String
    var user: String
    var password: String?

    /// The settings that hold an account's URL, per provider.
    static let urlSettings = ["source", "url"]

    /// The credentials in `text`, if it is a URL that carries some.
    static func split(_ text: String) -> URLCredentials? {
        guard CredentialRedaction.hasUserInfo(text), var components = URLComponents(string: text), let user = components.user
        else { return nil }
        let password = components.password
        components.user = nil
        components.password = nil
        guard let stripped = components.string else { return nil }
        return URLCredentials(url: stripped, user: user, password: password)
    }

    /// Moves credentials found in stored accounts' URLs into their sealed secrets. Needs the
    /// secrets key; without it the accounts are left as they are and the log says so.
    static func moveStoredCredentials(store: any CatalogStore, secrets: SecretBox?, logger: Logger) async {
        do {
            for account in try await store.accounts(ownerID: nil) {
                guard let (key, found) = urlSettings.lazy.compactMap({ key in account.settings[key].flatMap(split).map { (key, $0) } }).first
                else { continue }
                guard let secrets else {
                    logger.error(
                        "calendar account \(account.id) has credentials in its URL; they stay there until a secrets key is loaded")
                    continue
                }
                var credentials = try await store.sealedSecret(accountID: account.id).map(secrets.unseal) ?? CalendarCredentials()
                var settings = account.settings
                settings[key] = found.url
                if settings["user"] == nil { settings["user"] = found.user }
                if credentials.password == nil { credentials.password = found.password }
                try await store.replaceSecret(accountID: account.id, sealed: try secrets.seal(credentials))
                try await store.updateSettings(accountID: account.id, settings: settings)
                logger.notice("moved the credentials in calendar account \(account.id)'s URL into its sealed secret")
            }
        } catch {
            logger.error("could not move credentials out of calendar account URLs: \(CredentialRedaction.redacted(String(describing: error)))")
        }
    }
}
