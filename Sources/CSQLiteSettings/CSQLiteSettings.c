#include "CSQLiteSettings.h"
#include <sqlite3.h>
#include <stdlib.h>

int steno_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* bm25 as FTS5 computes it (k1 = 1.2, b = 0.75, every column weighing 1), without the inverse
   document frequency: for a query of one phrase that factor is the same for every row, so the
   order is bm25's, and computing it walked every row holding the phrase (a word found in a
   million meetings: tens of milliseconds per search). */
static void steno_term_rank(
    const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argumentCount, sqlite3_value **arguments) {
    (void)argumentCount;
    (void)arguments;
    const double k1 = 1.2;
    const double b = 0.75;
    sqlite3_int64 rows = 0;
    sqlite3_int64 tokens = 0;
    int instances = 0;
    int length = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    if (api->xPhraseCount(fts) != 1) {
        sqlite3_result_error(context, "steno_term_rank ranks queries of one phrase only", -1);
        return;
    }
    double frequency = (double)instances;
    double averageLength = rows > 0 ? (double)tokens / (double)rows : 1.0;
    double score = (frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * (double)length / averageLength));
    sqlite3_result_double(context, -1.0 * score);
}

int steno_sqlite_register_term_rank(void *connection) {
    sqlite3 *db = (sqlite3 *)connection;
    fts5_api *fts5 = 0;
    sqlite3_stmt *statement = 0;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&fts5, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (fts5 == 0 || fts5->iVersion < 2) return SQLITE_ERROR;
    return fts5->xCreateFunction(fts5, "steno_term_rank", 0, steno_term_rank, 0);
}

/* The ids a parameter of steno_held points to; freed by SQLite when the parameter is bound
   again or the statement is finalized (the ids themselves belong to the caller). */
typedef struct {
    const long long *ids;
    int count;
} StenoHeldIDs;

static const char *const stenoHeldIDsType = "steno_held_ids";

static void steno_held(sqlite3_context *context, int argumentCount, sqlite3_value **arguments) {
    (void)argumentCount;
    const StenoHeldIDs *held = (const StenoHeldIDs *)sqlite3_value_pointer(arguments[0], stenoHeldIDsType);
    if (held == 0 || sqlite3_value_type(arguments[1]) != SQLITE_INTEGER) {
        sqlite3_result_int(context, 0);
        return;
    }
    long long id = sqlite3_value_int64(arguments[1]);
    int low = 0;
    int high = held->count;
    while (low < high) {
        int middle = low + (high - low) / 2;
        if (held->ids[middle] < id) low = middle + 1; else high = middle;
    }
    sqlite3_result_int(context, low < held->count && held->ids[low] == id);
}

int steno_sqlite_register_held(void *connection) {
    /* Direct only: never reachable from a view, trigger or schema an attacker could write. */
    return sqlite3_create_function_v2(
        (sqlite3 *)connection, "steno_held", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, steno_held, 0, 0, 0);
}

int steno_sqlite_bind_held_ids(void *statement, const char *parameter, const long long *ids, int count) {
    int index = sqlite3_bind_parameter_index((sqlite3_stmt *)statement, parameter);
    if (index == 0) return SQLITE_RANGE;
    StenoHeldIDs *held = (StenoHeldIDs *)malloc(sizeof(StenoHeldIDs));
    if (held == 0) return SQLITE_NOMEM;
    held->ids = ids;
    held->count = count < 0 ? 0 : count;
    return sqlite3_bind_pointer((sqlite3_stmt *)statement, index, held, stenoHeldIDsType, free);
}

void steno_sqlite_unbind_held_ids(void *statement, const char *parameter) {
    int index = sqlite3_bind_parameter_index((sqlite3_stmt *)statement, parameter);
    if (index != 0) sqlite3_bind_null((sqlite3_stmt *)statement, index);
}
