import StenoCore

extension SearchTerms {
    /// The words of a search: nil when the text has none; `.invalid` beyond `SearchTerms`'
    /// bounds.
    package static func forStore(_ text: String) throws -> SearchTerms? {
        do {
            return try SearchTerms(text)
        } catch .noWords {
            return nil
        } catch {
            throw StoreError.invalid(error.description)
        }
    }
}
