import Foundation

/// A value of a catalog row as it leaves one database for another (copying a catalog): the
/// five kinds SQLite stores.
package enum CatalogValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
