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

#endif
