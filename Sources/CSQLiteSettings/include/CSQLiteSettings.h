#ifndef STENO_CSQLITE_SETTINGS_H
#define STENO_CSQLITE_SETTINGS_H

/// Turns off SQLite's memory statistics for the whole process (SQLITE_CONFIG_MEMSTATUS = 0).
///
/// With statistics on, every allocation and free inside SQLite takes a global mutex to count
/// bytes; Steno never reads those counts. sqlite3_config is variadic, which Swift cannot call,
/// hence this C function. It only takes effect before SQLite initialises: returns SQLITE_OK
/// then, SQLITE_MISUSE afterwards (harmless: statistics simply stay on).
int steno_sqlite_disable_memory_statistics(void);

#endif
