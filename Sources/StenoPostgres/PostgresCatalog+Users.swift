import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Users, their emails and their Unix uids. Writes lock the rows they read (`FOR UPDATE`) so
/// two daemons changing the same user apply one change after the other; a name, email or uid
/// taken by a concurrent transaction between the check and the insert still ends as
/// `StoreError.conflict` through the unique keys.
extension PostgresCatalog: UserStore {
    public func addUser(_ draft: UserDraft) async throws -> User {
        let draft = try draft.validatedForStore()
        return try await transaction { tx in
            try await Self.checkConflicts(tx, name: draft.name, emails: draft.emails, uids: draft.uids, exceptUserID: nil)
            let now = Self.milliseconds(Date())
            guard
                let id = try await tx.row(
                    """
                    INSERT INTO users (name, display_name, role, created_at, updated_at)
                    VALUES (\(draft.name), \(draft.displayName), \(draft.role.rawValue), \(now), \(now)) RETURNING id
                    """)?.decode(Int64.self)
            else { throw StoreError.invalid("the server returned no id for the new user") }
            try await Self.replaceEmailsAndUIDs(tx, userID: id, emails: draft.emails, uids: draft.uids)
            return try await Self.existingUser(tx, id: id)
        }
    }

    public func user(matching reference: String) async throws -> User {
        for lookup in UserLookup.plan(for: reference) {
            let query = switch lookup {
            case .email(let email): Self.userQuery(where: "id = (SELECT user_id FROM user_emails WHERE email = $1::citext)", email)
            case .id(let id): Self.userQuery(where: "id = $1", id)
            case .name(let name): Self.userQuery(where: "name = $1::citext", name)
            }
            if let found = try await users(query).first { return found }
        }
        throw StoreError.notFound(entity: "user", reference: reference)
    }

    public func user(forUID uid: UInt32) async throws -> User? {
        try await users(Self.userQuery(where: "id = (SELECT user_id FROM user_uids WHERE uid = $1)", Int64(uid))).first
    }

    public func users(afterID: Int64?, limit: Int) async throws -> [User] {
        var bindings = PostgresBindings()
        bindings.append(afterID ?? 0)
        bindings.append(Int64(max(0, limit)))
        return try await users(PostgresQuery(unsafeSQL: Self.userSelect + " WHERE id > $1 ORDER BY id LIMIT $2", binds: bindings))
    }

    public func updateUser(id: Int64, _ change: UserChange) async throws -> User {
        try await transaction { tx in
            guard let current = try await Self.users(tx.rows(Self.userQuery(where: "id = $1", id, locking: true))).first else {
                throw StoreError.notFound(entity: "user", reference: String(id))
            }
            let updated = try change.appliedForStore(to: current)
            try await Self.checkConflicts(tx, name: updated.name, emails: updated.emails, uids: updated.uids, exceptUserID: id)
            try await tx.execute(
                """
                UPDATE users SET name = \(updated.name), display_name = \(updated.displayName), role = \(updated.role.rawValue),
                    updated_at = \(Self.milliseconds(Date()))
                WHERE id = \(id)
                """)
            try await Self.replaceEmailsAndUIDs(tx, userID: id, emails: updated.emails, uids: updated.uids)
            return try await Self.existingUser(tx, id: id)
        }
    }

    public func removeUser(id: Int64) async throws -> User {
        try await transaction { tx in
            guard let user = try await Self.users(tx.rows(Self.userQuery(where: "id = $1", id, locking: true))).first else {
                throw StoreError.notFound(entity: "user", reference: String(id))
            }
            try await tx.execute("DELETE FROM users WHERE id = \(id)")
            return user
        }
    }
}

// MARK: - Helpers

extension PostgresCatalog {
    /// A user's columns with their emails (in the order given) and uids (ascending) as arrays.
    static let userSelect = """
        SELECT id, name::text, display_name, role, created_at,
            ARRAY(SELECT email::text FROM user_emails e WHERE e.user_id = users.id ORDER BY e.position, e.email) AS emails,
            ARRAY(SELECT uid FROM user_uids x WHERE x.user_id = users.id ORDER BY x.uid) AS uids
        FROM users
        """

    /// The users matching `condition`, a fixed SQL fragment whose `$1` is `value`.
    static func userQuery<Value: PostgresDynamicTypeEncodable>(where condition: String, _ value: Value, locking: Bool = false)
        -> PostgresQuery
    {
        var bindings = PostgresBindings()
        bindings.append(value)
        return PostgresQuery(
            unsafeSQL: userSelect + " WHERE \(condition) ORDER BY id" + (locking ? " FOR UPDATE" : ""), binds: bindings)
    }

    func users(_ query: PostgresQuery) async throws -> [User] {
        try Self.users(await rows(query))
    }

    static func users(_ rows: [PostgresRow]) throws -> [User] {
        try rows.map { row in
            let (id, name, displayName, role, createdAt, emails, uids) = try row.decode(
                (Int64, String, String?, String, Int64, [String], [Int64]).self)
            return User(
                id: id, name: name, displayName: displayName, emails: emails,
                uids: uids.map { UInt32(truncatingIfNeeded: $0) }, role: Role(rawValue: role) ?? .member,
                createdAt: date(milliseconds: createdAt))
        }
    }

    static func existingUser(_ tx: PostgresTransaction, id: Int64) async throws -> User {
        guard let user = try await users(tx.rows(userQuery(where: "id = $1", id))).first else {
            throw StoreError.notFound(entity: "user", reference: String(id))
        }
        return user
    }

    /// Throws the ``UserClaimConflict`` of a name, email or uid another user holds.
    static func checkConflicts(
        _ tx: PostgresTransaction, name: String, emails: [String], uids: [UInt32], exceptUserID: Int64?
    ) async throws {
        let except = exceptUserID ?? -1
        let nameTaken = try await tx.row("SELECT 1 FROM users WHERE name = \(name)::citext AND id <> \(except)") != nil
        let emailTaken = try await tx.row(
            """
            SELECT e.email::text, u.name::text FROM unnest(\(emails)::text[]) WITH ORDINALITY AS wanted(email, ordinal)
            JOIN user_emails e ON e.email = wanted.email::citext JOIN users u ON u.id = e.user_id
            WHERE u.id <> \(except) ORDER BY wanted.ordinal LIMIT 1
            """
        ).map { try $0.decode((String, String).self) }
        let uidTaken = try await tx.row(
            """
            SELECT x.uid, u.name::text FROM unnest(\(uids.map(Int64.init))::bigint[]) WITH ORDINALITY AS wanted(uid, ordinal)
            JOIN user_uids x ON x.uid = wanted.uid JOIN users u ON u.id = x.user_id
            WHERE u.id <> \(except) ORDER BY wanted.ordinal LIMIT 1
            """
        ).map { try $0.decode((Int64, String).self) }
        let conflict = UserClaimConflict.first(
            name: name, nameTaken: nameTaken, email: emailTaken.map { (email: $0.0, owner: $0.1) },
            uid: uidTaken.map { (uid: UInt32(truncatingIfNeeded: $0.0), owner: $0.1) })
        if let conflict { throw conflict.error }
    }

    static func replaceEmailsAndUIDs(_ tx: PostgresTransaction, userID: Int64, emails: [String], uids: [UInt32]) async throws {
        try await tx.execute("DELETE FROM user_emails WHERE user_id = \(userID)")
        try await tx.execute("DELETE FROM user_uids WHERE user_id = \(userID)")
        try await tx.execute(
            """
            INSERT INTO user_emails (email, user_id, position)
            SELECT email, \(userID), ordinal FROM unnest(\(emails)::text[]) WITH ORDINALITY AS given(email, ordinal)
            """)
        try await tx.execute("INSERT INTO user_uids (uid, user_id) SELECT unnest(\(uids.map(Int64.init))::bigint[]), \(userID)")
    }
}
