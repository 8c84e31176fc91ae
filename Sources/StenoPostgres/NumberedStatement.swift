import PostgresNIO

extension PostgresQuery {
    /// A statement whose SQL names its parameters by number (`$1`, `$2`…), bound to `values`
    /// in order (nil binds NULL; cast such a parameter in the SQL, `$2::bigint`, so the server
    /// knows its type). For SQL that refers to one value several times, as the visibility
    /// fragments refer to the viewer; `sql` must be fixed text, never user input.
    static func numbered(_ sql: String, _ values: [(any PostgresDynamicTypeEncodable)?]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// The values of a numbered statement built piece by piece, for SQL whose conditions depend on
/// the query (a member's listing reads their visible set, an admin's does not): each `bind`
/// appends a value and returns its typed placeholder.
struct NumberedValues {
    private(set) var values: [(any PostgresDynamicTypeEncodable)?] = []

    /// The placeholder of `value`, cast to `type` so the server knows it even for NULL.
    mutating func bind(_ value: (any PostgresDynamicTypeEncodable)?, as type: String) -> String {
        values.append(value)
        return "$\(values.count)::\(type)"
    }

    /// The statement of `sql`, whose placeholders came from this. Bind every value before the
    /// call: a `bind` inside `sql`'s interpolations would come after this copy was taken.
    func query(_ sql: String) -> PostgresQuery { .numbered(sql, values) }
}
