#ifndef STENO_CSQLITE_SETTINGS_H
#define STENO_CSQLITE_SETTINGS_H

/// Turns off SQLite's memory statistics for the whole process (SQLITE_CONFIG_MEMSTATUS = 0).
///
/// With statistics on, every allocation and free inside SQLite takes a global mutex to count
/// bytes; Steno never reads those counts. sqlite3_config is variadic, which Swift cannot call,
/// hence this C function. It only takes effect before SQLite initialises: returns SQLITE_OK
/// then, SQLITE_MISUSE afterwards (harmless: statistics simply stay on).
int steno_sqlite_disable_memory_statistics(void);

/// Registers the FTS5 ranking function `steno_term_rank(table)` on a connection (a `sqlite3 *`):
/// bm25 without its inverse document frequency, which for a query of one phrase orders rows as
/// bm25 does without walking every row that holds the phrase. Returns SQLITE_OK, or the error
/// met (SQLITE_ERROR when the library has no FTS5).
int steno_sqlite_register_term_rank(void *connection);

/// Registers `steno_held(ids, id)` on a connection (a `sqlite3 *`): 1 when `id` is among the
/// ids bound to the parameter `ids` with steno_sqlite_bind_held_ids, else 0 (0 as well when
/// nothing is bound there). A member's search tests each match this way: a binary search in
/// memory, where `IN (SELECT value FROM json_each(?))` parsed the list into a temporary index
/// on every search.
int steno_sqlite_register_held(void *connection);

/// Binds `count` ids at `ids`, sorted ascending, to the parameter named `parameter` (":held")
/// of a prepared statement (a `sqlite3_stmt *`), for steno_held; SQLITE_RANGE when the
/// statement has no such parameter. The ids are not copied: they must stay valid while the
/// statement runs, and the caller unbinds them (steno_sqlite_unbind_held_ids) before they go.
int steno_sqlite_bind_held_ids(void *statement, const char *parameter, const long long *ids, int count);

/// Binds NULL to the parameter named `parameter` of a prepared statement, releasing ids bound
/// there with steno_sqlite_bind_held_ids.
void steno_sqlite_unbind_held_ids(void *statement, const char *parameter);

#endif
