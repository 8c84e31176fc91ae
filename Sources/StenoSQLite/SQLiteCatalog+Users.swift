import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    public func addUser(_ draft: UserDraft) async throws -> User {
        let draft = try draft.validatedForStore()
        return try await writer.write { db in
            try Self.checkConflicts(db, name: draft.name, emails: draft.emails, uids: draft.uids, exceptUserID: nil)
            let now = Self.milliseconds(Date())
            try db.execute(
                sql: "INSERT INTO users (name, display_name, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [draft.name, draft.displayName, draft.role.rawValue, now, now])
            let id = db.lastInsertedRowID
            try Self.replaceEmailsAndUIDs(db, userID: id, emails: draft.emails, uids: draft.uids)
            return try Self.fetchUsers(db, whereSQL: "id = ?", arguments: [id])[0]
        }
    }

    public func user(matching reference: String) async throws -> User {
        try await writer.read { db in try Self.resolveUser(db, reference: reference) }
    }

    public func user(forUID uid: UInt32) async throws -> User? {
        try await writer.read { db in
            try Self.fetchUsers(db, whereSQL: "id = (SELECT user_id FROM user_uids WHERE uid = ?)", arguments: [Int64(uid)]).first
        }
    }

    public func users(afterID: Int64?, limit: Int) async throws -> [User] {
        try await writer.read { db in
            try Self.fetchUsers(db, whereSQL: "id > ?", arguments: [afterID ?? 0], limit: limit)
        }
    }

    public func updateUser(id: Int64, _ change: UserChange) async throws -> User {
        try await writer.write { db in
            guard let current = try Self.fetchUsers(db, whereSQL: "id = ?", arguments: [id]).first else {
                throw StoreError.notFound(entity: "user", reference: String(id))
            }
            let updated = try change.appliedForStore(to: current)
            try Self.checkConflicts(db, name: updated.name, emails: updated.emails, uids: updated.uids, exceptUserID: id)
            try db.execute(
                sql: "UPDATE users SET name = ?, display_name = ?, role = ?, updated_at = ? WHERE id = ?",
                arguments: [updated.name, updated.displayName, updated.role.rawValue, Self.milliseconds(Date()), id])
            try Self.replaceEmailsAndUIDs(db, userID: id, emails: updated.emails, uids: updated.uids)
            return try Self.fetchUsers(db, whereSQL: "id = ?", arguments: [id])[0]
        }
    }

    public func removeUser(id: Int64) async throws -> User {
        try await writer.write { db in
            guard let user = try Self.fetchUsers(db, whereSQL: "id = ?", arguments: [id]).first else {
                throw StoreError.notFound(entity: "user", reference: String(id))
            }
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id])
            return user
        }
    }
}

// MARK: - Helpers

extension SQLiteCatalog {
    /// The user a reference names, by ``UserLookup``'s plan.
    static func resolveUser(_ db: Database, reference: String) throws -> User {
        for lookup in UserLookup.plan(for: reference) {
            let found: User? = switch lookup {
            case .email(let email):
                try fetchUsers(db, whereSQL: "id = (SELECT user_id FROM user_emails WHERE email = ?)", arguments: [email]).first
            case .id(let id): try fetchUsers(db, whereSQL: "id = ?", arguments: [id]).first
            case .name(let name): try fetchUsers(db, whereSQL: "name = ?", arguments: [name]).first
            }
            if let found { return found }
        }
        throw StoreError.notFound(entity: "user", reference: reference)
    }

    /// Throws the ``UserClaimConflict`` of a name, email or uid another user holds.
    static func checkConflicts(_ db: Database, name: String, emails: [String], uids: [UInt32], exceptUserID: Int64?) throws {
        let except = exceptUserID ?? -1
        let nameTaken = try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ? AND id != ?", arguments: [name, except]) == true
        var emailTaken: (email: String, owner: String)?
        for email in emails where emailTaken == nil {
            emailTaken = try String.fetchOne(
                db, sql: "SELECT u.name FROM user_emails e JOIN users u ON u.id = e.user_id WHERE e.email = ? AND u.id != ?",
                arguments: [email, except]
            ).map { (email, $0) }
        }
        var uidTaken: (uid: UInt32, owner: String)?
        for uid in uids where uidTaken == nil {
            uidTaken = try String.fetchOne(
                db, sql: "SELECT u.name FROM user_uids x JOIN users u ON u.id = x.user_id WHERE x.uid = ? AND u.id != ?",
                arguments: [Int64(uid), except]
            ).map { (uid, $0) }
        }
        if let conflict = UserClaimConflict.first(name: name, nameTaken: nameTaken, email: emailTaken, uid: uidTaken) {
            throw conflict.error
        }
    }

    static func replaceEmailsAndUIDs(_ db: Database, userID: Int64, emails: [String], uids: [UInt32]) throws {
        try db.execute(sql: "DELETE FROM user_emails WHERE user_id = ?", arguments: [userID])
        try db.execute(sql: "DELETE FROM user_uids WHERE user_id = ?", arguments: [userID])
        for email in emails {
            try db.execute(sql: "INSERT INTO user_emails (email, user_id) VALUES (?, ?)", arguments: [email, userID])
        }
        for uid in uids {
            try db.execute(sql: "INSERT INTO user_uids (uid, user_id) VALUES (?, ?)", arguments: [Int64(uid), userID])
        }
    }

    /// Users matching a condition on `users`, ordered by id, with their emails and uids.
    static func fetchUsers(_ db: Database, whereSQL: String, arguments: StatementArguments, limit: Int? = nil) throws -> [User] {
        var sql = "SELECT id, name, display_name, role, created_at FROM users WHERE \(whereSQL) ORDER BY id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        var users = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            User(
                id: row["id"],
                name: row["name"],
                displayName: row["display_name"],
                role: Role(rawValue: row["role"]) ?? .member,
                createdAt: date(milliseconds: row["created_at"])
            )
        }
        guard !users.isEmpty else { return [] }
        let ids = users.map(\.id)
        let placeholders = databaseQuestionMarks(count: ids.count)
        var emails: [Int64: [String]] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT user_id, email FROM user_emails WHERE user_id IN (\(placeholders)) ORDER BY rowid",
            arguments: StatementArguments(ids))
        {
            emails[row["user_id"], default: []].append(row["email"])
        }
        var uids: [Int64: [UInt32]] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT user_id, uid FROM user_uids WHERE user_id IN (\(placeholders)) ORDER BY uid",
            arguments: StatementArguments(ids))
        {
            let uid: Int64 = row["uid"]
            uids[row["user_id"], default: []].append(UInt32(truncatingIfNeeded: uid))
        }
        for index in users.indices {
            users[index].emails = emails[users[index].id] ?? []
            users[index].uids = uids[users[index].id] ?? []
        }
        return users
    }
}
