/// SQL both catalogs render the same: fragments of their queries that hold no bind marker of
/// their own (each takes the expressions to put where its values go), so SQLite and
/// PostgreSQL decide who sees what, and which columns a row carries, in one place.
package enum CatalogSQL {}
