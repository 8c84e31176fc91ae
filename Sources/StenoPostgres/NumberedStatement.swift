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
