/*
 * store: the run database (sqlite, WAL, foreign keys, schema migrations).
 *
 * One run = one directory runs/<id>/ holding run.db, logs/ and report/.
 * The schema is in store_schema.c and documented in runs/README.md.
 *
 * Writers use store_row: a column list built from constant names, values
 * always bound as parameters (never spliced into SQL). Readers prepare
 * their own SELECTs with store_prepare() and bind their parameters.
 *
 * Ownership: struct store owns its sqlite3 handle; store_close() finalises
 * it. Statements from store_prepare() belong to the caller
 * (sqlite3_finalize).
 */
#ifndef HARNESS_STORE_H
#define HARNESS_STORE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct sbuf;

extern const char *const store_migrations[];  /* NULL-terminated, v1 first */
int store_schema_version(void);               /* = number of migrations */

struct store {
	sqlite3 *db;
	char *path;
};

/* Open (and with create, create) the database at path; applies pending
 * migrations. Fails with one error() line naming the file. */
int store_open(struct store *st, const char *path, int create);
void store_close(struct store *st);

int store_exec(struct store *st, const char *sql);
int store_begin(struct store *st);     /* BEGIN IMMEDIATE */
int store_commit(struct store *st);
void store_rollback(struct store *st);
/* NULL after an error() naming the statement's problem. */
sqlite3_stmt *store_prepare(struct store *st, const char *sql);

/* Column helpers for readers: NULL columns read as NAN / 0 / NULL. */
double store_col_real(sqlite3_stmt *s, int i);
int64_t store_col_int(sqlite3_stmt *s, int i);
const char *store_col_text(sqlite3_stmt *s, int i);

/* ------------------------------------------------------------ row writer */

enum store_val_type { SV_NULL, SV_INT, SV_REAL, SV_TEXT, SV_BLOB };

#define STORE_ROW_MAX 96
struct store_row {
	const char *table;
	size_t n;
	const char *cols[STORE_ROW_MAX];
	struct {
		enum store_val_type type;
		int64_t i;
		double d;
		const void *p;   /* text or blob; borrowed until insert/update */
		size_t len;
	} v[STORE_ROW_MAX];
};

void store_row_init(struct store_row *r, const char *table);
void store_row_int(struct store_row *r, const char *col, int64_t v);
/* A NaN real is stored as NULL. */
void store_row_real(struct store_row *r, const char *col, double v);
void store_row_text(struct store_row *r, const char *col, const char *v); /* NULL -> NULL */
void store_row_blob(struct store_row *r, const char *col, const void *p, size_t len);
void store_row_null(struct store_row *r, const char *col);
/* INSERT; *rowid (if non-NULL) receives the new row id. */
int store_row_insert(struct store *st, const struct store_row *r, int64_t *rowid);
/* INSERT OR REPLACE. */
int store_row_upsert(struct store *st, const struct store_row *r);
/* UPDATE <table> SET ... WHERE <key_col> = key. */
int store_row_update(struct store *st, const struct store_row *r,
		     const char *key_col, int64_t key);

/* Append an event (window_id < 0: none). */
int store_event(struct store *st, const char *run_id, int64_t window_id,
		const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* --------------------------------------------------------- run lookups */

/* The runs directory: --runs-dir if given, else $HARNESS_RUNS_DIR, else
 * ./runs. */
const char *store_runs_dir(const char *opt);
/* Resolve RUN (an id under runs_dir, or a path to a run directory) to its
 * directory; -1 with an error() naming RUN when there is no run.db. */
int store_run_dir(const char *runs_dir, const char *run, struct sbuf *dir);
/* Open runs/<...>/run.db for RUN and read its id. */
int store_open_run(struct store *st, const char *runs_dir, const char *run,
		   struct sbuf *dir, struct sbuf *run_id);

#endif
