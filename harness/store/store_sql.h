/*
 * store_sql: the sqlite side of the store, for the store's own modules
 * (store.c) and tests that inspect a database directly. Everything else
 * reads and writes through store.h's column lists (store_window.h,
 * store_run.h) and never sees a statement.
 */
#ifndef HARNESS_STORE_SQL_H
#define HARNESS_STORE_SQL_H

#include <sqlite3.h>

#include "store/store.h"

/* NULL after an error() naming the statement's problem. The statement
 * belongs to the caller (sqlite3_finalize). */
sqlite3_stmt *store_prepare(struct store *st, const char *sql);

#endif
