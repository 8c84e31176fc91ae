import StenoAPI
import StenoCatalog
import StenoCore

/// `users.*`: admins manage who may connect and what they own.
struct UserMethods: Sendable {
    let store: any UserStore

    func register(in table: inout RPCMethodTable) {
        let store = self.store
        table.register(StenoMethods.usersAdd, access: .admin) { _, params in
            try await store.addUser(
                UserDraft(
                    name: params.name, displayName: params.displayName, emails: params.emails ?? [],
                    uids: params.uids ?? [], role: params.role ?? .member))
        }
        table.register(StenoMethods.usersList, access: .admin) { _, params in
            let limit = try PageCursor.limit(params.limit)
            let after = try params.cursor.map(PageCursor.decode)
            let users = try await store.users(afterID: after, limit: limit + 1)
            let page = Array(users.prefix(limit))
            return Page(items: page, nextCursor: users.count > limit ? page.last.map { PageCursor.encode($0.id) } : nil)
        }
        table.register(StenoMethods.usersUpdate, access: .admin) { _, params in
            let user = try await store.user(matching: params.user)
            return try await store.updateUser(id: user.id, Self.change(from: params, current: user))
        }
        table.register(StenoMethods.usersRemove, access: .admin) { _, params in
            let user = try await store.user(matching: params.user)
            return try await store.removeUser(id: user.id)
        }
    }

    /// Folds the set/add/remove params into one change.
    static func change(from params: UserUpdateParams, current: User) -> UserChange {
        var change = UserChange(name: params.name, role: params.role)
        if let displayName = params.displayName { change.displayName = .some(displayName.isEmpty ? nil : displayName) }
        if params.emails != nil || params.addEmails != nil || params.removeEmails != nil {
            var emails = params.emails ?? current.emails
            emails += params.addEmails ?? []
            let removed = Set((params.removeEmails ?? []).map { $0.lowercased() })
            change.emails = emails.filter { !removed.contains($0.lowercased()) }
        }
        if params.uids != nil || params.addUids != nil || params.removeUids != nil {
            var uids = params.uids ?? current.uids
            uids += params.addUids ?? []
            let removed = Set(params.removeUids ?? [])
            change.uids = uids.filter { !removed.contains($0) }
        }
        return change
    }
}
