#include "CSQLiteSettings.h"
#include <sqlite3.h>

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
