extension DecodingError {
    /// A one-line message for people, with the path of the bad value in JSON-ish notation:
    /// `emails[2]: expected String, found number`, `name: missing`,
    /// `when: expected an ISO 8601 date-time like 2026-11-20T09:30:00Z, found "tomorrow"`.
    ///
    /// The RPC server uses it for -32602 "invalid params" messages (see `humanDescription(root:)`).
    public var humanDescription: String { humanDescription(root: nil) }

    /// Like `humanDescription`, with the path prefixed by `root`, e.g. with `root: "params"`:
    /// `params.emails[2]: expected String, found number`.
    public func humanDescription(root: String?) -> String {
        let path: [any CodingKey]
        let message: String
        switch self {
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            message = "missing"
        case .typeMismatch(let type, let context):
            path = context.codingPath
            message = Self.message(context, fallback: "expected \(type)")
        case .valueNotFound(let type, let context):
            path = context.codingPath
            message = Self.message(context, fallback: "expected \(type), found null")
        case .dataCorrupted(let context):
            path = context.codingPath
            message = Self.message(context, fallback: "invalid value")
        @unknown default:
            return root.map { "\($0): \(self)" } ?? "\(self)"
        }
        let rendered = Self.render(path, root: root)
        return rendered.isEmpty ? message : "\(rendered): \(message)"
    }

    /// The context's description, or `fallback` when it is empty.
    private static func message(_ context: Context, fallback: String) -> String {
        context.debugDescription.isEmpty ? fallback : context.debugDescription
    }

    /// Renders a coding path as `a.b[2].c`; array positions (keys with an `intValue` whose text
    /// is `Index N` or `N`) appear in brackets.
    static func render(_ path: [any CodingKey], root: String?) -> String {
        var text = root ?? ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}
