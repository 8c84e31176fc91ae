import StenoCore

extension UserDraft {
    /// The draft normalised for storing, or `StoreError.invalid` saying what is wrong.
    package func validatedForStore() throws -> UserDraft {
        do {
            return try validated()
        } catch {
            throw StoreError.invalid(error.description)
        }
    }
}

extension UserChange {
    /// The user with this change, or `StoreError.invalid` saying what is wrong.
    package func appliedForStore(to user: User) throws -> User {
        do {
            return try applied(to: user)
        } catch {
            throw StoreError.invalid(error.description)
        }
    }
}
