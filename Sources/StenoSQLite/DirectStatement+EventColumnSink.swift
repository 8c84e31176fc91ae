import StenoCatalog

extension DirectStatement: EventColumnSink {
    mutating func add(_ text: String?) { bind(text) }
    mutating func add(_ integer: Int64?) { bind(integer) }
    mutating func add(_ flag: Bool) { bind(flag) }
}
