/*
 * store: the run database (sqlite, WAL, foreign keys, schema migrations).
 *
 * One run = one directory runs/<id>/ holding run.db, logs/ and report/.
 * The schema is in store_schema.c and documented in runs/README.md.
 *
 * Rows are structs described by column lists (struct store_table): the
 * same list builds the INSERT/UPDATE and the SELECT, values always bound
 * as parameters (never spliced into SQL), columns read by name. The
 * windows and their series are in store_window.h, the run's own rows in
 * store_run.h. No caller sees sqlite: store_sql.h is for the store itself
 * (and tests that inspect a database directly).
 *
 * Ownership: struct store owns its sqlite3 handle; store_close() finalises
 * it (and is a no-op on a closed or zeroed store).
 */
#ifndef HARNESS_STORE_H
#define HARNESS_STORE_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;
struct sqlite3;

extern const char *const store_migrations[];  /* NULL-terminated, v1 first */
int store_schema_version(void);               /* = number of migrations */

struct store {
	struct sqlite3 *db;
	char *path;
};

/* Open (and with create, create) the database at path; applies pending
 * migrations. Fails with one error() line naming the file. */
int store_open(struct store *st, const char *path, int create);
void store_close(struct store *st);
/* Every page of the database readable and every b-tree well formed
 * (sqlite's quick_check: reads the whole file once, a few ms per MB);
 * -1 after one error() line naming the file and the first damage found.
 * Commands that answer about a run check it before reading
 * (store_open_run), so a damaged page is never read as "no rows" by a
 * query that happens not to touch it. */
int store_check(struct store *st);

/*
 * A full runs filesystem (store_reserve.c). store_disk_full: 1 when the
 * filesystem of the database has under 1 MiB free (sqlite reports no
 * SQLITE_FULL to a log; a lost write shows as a full disk). store_reserve
 * keeps DB.reserve, 1 MiB allocated, beside the database (a warning when
 * it cannot); store_reserve_release removes it, giving that room to the
 * writes that record how the run ended.
 */
int store_disk_full(const struct store *st);
void store_reserve(struct store *st);
void store_reserve_release(struct store *st);

int store_exec(struct store *st, const char *sql);
int store_begin(struct store *st);     /* BEGIN IMMEDIATE */
int store_commit(struct store *st);
void store_rollback(struct store *st);

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

/* ------------------------------------------------- tables as structs
 *
 * A table's columns, described once (name, type, offset into the C struct
 * that holds one row), drive both the INSERT/UPDATE and the SELECT, so a
 * column is written and read under one name. The store modules
 * (store_window.c, store_run.c) hold these lists; commands never see SQL.
 */
enum store_ctype {
	SC_INT,      /* int; NULL reads 0 */
	SC_TRI,      /* int; NULL <-> -1 (unknown) */
	SC_I64,      /* int64_t; NULL reads 0 */
	SC_I64_OPT,  /* int64_t and an int has-flag at .has: NULL <-> has == 0 */
	SC_REAL,     /* double; NULL <-> NAN (an infinity is stored as NULL) */
	SC_TEXT,     /* char *, owned; NULL <-> NULL */
	SC_BLOB,     /* struct store_blob, owned; NULL <-> p == NULL */
	SC_ENUM,     /* an enum, int-sized, indexing .names; -1 <-> NULL */
};

/* A blob column's bytes; a non-NULL p with len 0 is an empty blob. */
struct store_blob {
	unsigned char *p;
	size_t len;
};

struct store_coldef {
	const char *name;
	enum store_ctype type;
	size_t off;                 /* offsetof the field in the row struct */
	size_t has;                 /* SC_I64_OPT: offsetof its has-flag */
	const char *const *names;   /* SC_ENUM: value -> name, NULL-terminated */
	unsigned flags;             /* the table's own write groups */
};

struct store_table {
	const char *name;
	const struct store_coldef *cols;
	size_t ncols;
	size_t rowsize;
};

/* Set every field of row to its NULL value (NAN, NULL, -1, 0). */
void store_fields_init(const struct store_table *t, void *row);
/* Free the text and blob fields of row (and re-init them). */
void store_fields_release(const struct store_table *t, void *row);
/* Add row's columns whose flags intersect mask (mask 0: every column) to
 * r as bound values (borrowed from row until r is used). */
void store_row_from(struct store_row *r, const struct store_table *t, unsigned mask,
		    const void *row);
/*
 * SELECT the table's columns (all but those with flags & skip)
 * FROM the table [WHERE where] [ORDER BY order], the where's `?`
 * parameters bound from params (values in order, each under a distinct
 * name: store_row merges equal names; NULL: none). *rows
 * receives a malloc'd array of *n structs of t->rowsize (caller frees
 * each with store_fields_release, then the array). Columns are found by
 * name. Any step result but a row or the end is an error() naming the
 * database file and sqlite's message; nothing is returned then.
 */
int store_select(struct store *st, const struct store_table *t, unsigned skip,
		 const char *where, const struct store_row *params, const char *order,
		 void **rows, size_t *n);
/* Free an array from store_select. */
void store_rows_free(const struct store_table *t, void *rows, size_t n);
/* Run one statement (UPDATE/DELETE) with bound params; -1 after error(). */
int store_run_sql(struct store *st, const char *sql, const struct store_row *params);

/* Append an event (window_id < 0: none). */
int store_event(struct store *st, const char *run_id, int64_t window_id,
		const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* --------------------------------------------------------- run lookups */

/* The runs directory: --runs-dir if given, else $HARNESS_RUNS_DIR, else
 * ./runs. */
const char *store_runs_dir(const char *opt);
/* Resolve RUN (an id under runs_dir, a path to a run directory, or
 * `latest`: the newest run under runs_dir, store_latest_run) to its
 * directory; -1 with an error() naming RUN when there is no run.db. */
int store_run_dir(const char *runs_dir, const char *run, struct sbuf *dir);
/* Open runs/<...>/run.db for RUN, check it (store_check) and read its id. */
int store_open_run(struct store *st, const char *runs_dir, const char *run,
		   struct sbuf *dir, struct sbuf *run_id);

#endif
