/* store: sqlite run database, migrations, bound-parameter row writer. */
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_sql.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

int store_schema_version(void)
{
	int n = 0;

	while (store_migrations[n])
		n++;
	return n;
}

static int migrate(struct store *st)
{
	sqlite3_stmt *s = NULL;
	int have = 0, want = store_schema_version(), ret = -1, rc;
	struct sbuf sql = SBUF_INIT;

	s = store_prepare(st, "PRAGMA user_version");
	if (!s)
		goto out;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		have = sqlite3_column_int(s, 0);
	else if (rc != SQLITE_DONE)
		error("%s: reading the schema version: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(s);
	s = NULL;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto out;
	if (have > want) {
		error("%s: schema version %d is newer than this harness (%d)",
		      st->path, have, want);
		goto out;
	}
	for (; have < want; have++) {
		if (store_begin(st))
			goto out;
		sbuf_reset(&sql);
		sbuf_addf(&sql, "%s; PRAGMA user_version = %d;", store_migrations[have], have + 1);
		if (store_exec(st, sql.buf)) {
			store_rollback(st);
			goto out;
		}
		if (store_commit(st))
			goto out;
	}
	ret = 0;
out:
	sbuf_release(&sql);
	return ret;
}

int store_open(struct store *st, const char *path, int create)
{
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	struct stat sb;

	st->db = NULL;
	st->path = xstrdup(path);
	if (!create && stat(path, &sb) < 0) {
		error("%s: no run database: %s", path, strerror(errno));
		goto fail;
	}
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		error("%s: cannot open database: %s", path,
		      st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 10000);
	if (store_exec(st, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"
			   "PRAGMA synchronous = NORMAL;"))
		goto fail;
	if (migrate(st))
		goto fail;
	return 0;
fail:
	store_close(st);
	return -1;
}

int store_check(struct store *st)
{
	sqlite3_stmt *s = store_prepare(st, "PRAGMA quick_check(1)");
	const unsigned char *txt;
	struct sbuf msg = SBUF_INIT;
	int rc, ret = -1;
	size_t i;

	if (!s)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		txt = sqlite3_column_text(s, 0);
		if (txt && !strcmp((const char *)txt, "ok")) {
			ret = 0;
			goto out;
		}
		/* "*** in database main ***\nPage 10: ..." as one line */
		sbuf_adds(&msg, txt ? (const char *)txt : "no answer");
		for (i = 0; i < msg.len; i++)
			if (msg.buf[i] == '\n')
				msg.buf[i] = ' ';
		error("%s: database disk image is malformed: %s", st->path, msg.buf);
	} else {
		error("%s: checking the database: %s", st->path, sqlite3_errmsg(st->db));
	}
out:
	sqlite3_finalize(s);
	sbuf_release(&msg);
	return ret;
}

void store_close(struct store *st)
{
	if (st->db)
		sqlite3_close(st->db);
	st->db = NULL;
	free(st->path);
	st->path = NULL;
}

int store_exec(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int store_begin(struct store *st)
{
	return store_exec(st, "BEGIN IMMEDIATE");
}

int store_commit(struct store *st)
{
	return store_exec(st, "COMMIT");
}

void store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

sqlite3_stmt *store_prepare(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		error("%s: %s (in: %.80s)", st->path, sqlite3_errmsg(st->db), sql);
		return NULL;
	}
	return s;
}

/* ------------------------------------------------------------ row writer */

void store_row_init(struct store_row *r, const char *table)
{
	r->table = table;
	r->n = 0;
}

static size_t row_slot(struct store_row *r, const char *col)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->cols[i], col))
			return i;
	if (r->n == STORE_ROW_MAX) {
		/* A programming error (too many columns), not a user's. */
		error("store_row: more than %d columns for %s", STORE_ROW_MAX, r->table);
		abort();
	}
	r->cols[r->n] = col;
	return r->n++;
}

void store_row_int(struct store_row *r, const char *col, int64_t v)
{
	size_t i = row_slot(r, col);

	r->v[i].type = SV_INT;
	r->v[i].i = v;
}

void store_row_real(struct store_row *r, const char *col, double v)
{
	size_t i = row_slot(r, col);

	r->v[i].type = isnan(v) || isinf(v) ? SV_NULL : SV_REAL;
	r->v[i].d = v;
}

void store_row_text(struct store_row *r, const char *col, const char *v)
{
	size_t i = row_slot(r, col);

	r->v[i].type = v ? SV_TEXT : SV_NULL;
	r->v[i].p = v;
	r->v[i].len = v ? strlen(v) : 0;
}

void store_row_blob(struct store_row *r, const char *col, const void *p, size_t len)
{
	size_t i = row_slot(r, col);

	r->v[i].type = SV_BLOB;
	r->v[i].p = p;
	r->v[i].len = len;
}

void store_row_null(struct store_row *r, const char *col)
{
	r->v[row_slot(r, col)].type = SV_NULL;
}

static int bind_row(sqlite3_stmt *s, const struct store_row *r)
{
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < r->n && rc == SQLITE_OK; i++) {
		int k = (int)i + 1;
		switch (r->v[i].type) {
		case SV_NULL: rc = sqlite3_bind_null(s, k); break;
		case SV_INT: rc = sqlite3_bind_int64(s, k, r->v[i].i); break;
		case SV_REAL: rc = sqlite3_bind_double(s, k, r->v[i].d); break;
		case SV_TEXT:
			rc = sqlite3_bind_text(s, k, r->v[i].p, (int)r->v[i].len, SQLITE_TRANSIENT);
			break;
		case SV_BLOB:
			rc = sqlite3_bind_blob(s, k, r->v[i].p ? r->v[i].p : "", (int)r->v[i].len,
					       SQLITE_TRANSIENT);
			break;
		}
	}
	return rc == SQLITE_OK ? 0 : -1;
}

static int run_row(struct store *st, const char *sql, const struct store_row *r,
		   int64_t key, int with_key)
{
	sqlite3_stmt *s = store_prepare(st, sql);
	int ret = -1;

	if (!s)
		return -1;
	if (bind_row(s, r) ||
	    (with_key && sqlite3_bind_int64(s, (int)r->n + 1, key) != SQLITE_OK)) {
		error("%s: cannot bind values for %s: %s", st->path, r->table,
		      sqlite3_errmsg(st->db));
		goto out;
	}
	if (sqlite3_step(s) != SQLITE_DONE) {
		error("%s: writing %s: %s", st->path, r->table, sqlite3_errmsg(st->db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int insert(struct store *st, const struct store_row *r, const char *verb,
		  int64_t *rowid)
{
	struct sbuf sql = SBUF_INIT;
	size_t i;
	int ret;

	sbuf_addf(&sql, "%s INTO %s (", verb, r->table);
	for (i = 0; i < r->n; i++)
		sbuf_addf(&sql, "%s%s", i ? ", " : "", r->cols[i]);
	sbuf_adds(&sql, ") VALUES (");
	for (i = 0; i < r->n; i++)
		sbuf_adds(&sql, i ? ", ?" : "?");
	sbuf_adds(&sql, ")");
	ret = run_row(st, sql.buf, r, 0, 0);
	if (!ret && rowid)
		*rowid = sqlite3_last_insert_rowid(st->db);
	sbuf_release(&sql);
	return ret;
}

int store_row_insert(struct store *st, const struct store_row *r, int64_t *rowid)
{
	return insert(st, r, "INSERT", rowid);
}

int store_row_upsert(struct store *st, const struct store_row *r)
{
	return insert(st, r, "INSERT OR REPLACE", NULL);
}

int store_row_update(struct store *st, const struct store_row *r,
		     const char *key_col, int64_t key)
{
	struct sbuf sql = SBUF_INIT;
	size_t i;
	int ret;

	sbuf_addf(&sql, "UPDATE %s SET ", r->table);
	for (i = 0; i < r->n; i++)
		sbuf_addf(&sql, "%s%s = ?", i ? ", " : "", r->cols[i]);
	sbuf_addf(&sql, " WHERE %s = ?", key_col);
	ret = run_row(st, sql.buf, r, key, 1);
	sbuf_release(&sql);
	return ret;
}

/* ------------------------------------------------- tables as structs */

#define FIELD(row, off, type) ((type *)((char *)(row) + (off)))

void store_fields_init(const struct store_table *t, void *row)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		const struct store_coldef *c = &t->cols[i];

		switch (c->type) {
		case SC_INT: *FIELD(row, c->off, int) = 0; break;
		case SC_TRI: *FIELD(row, c->off, int) = -1; break;
		case SC_I64: *FIELD(row, c->off, int64_t) = 0; break;
		case SC_I64_OPT:
			*FIELD(row, c->off, int64_t) = 0;
			*FIELD(row, c->has, int) = 0;
			break;
		case SC_REAL: *FIELD(row, c->off, double) = NAN; break;
		case SC_TEXT: *FIELD(row, c->off, char *) = NULL; break;
		case SC_BLOB:
			FIELD(row, c->off, struct store_blob)->p = NULL;
			FIELD(row, c->off, struct store_blob)->len = 0;
			break;
		case SC_ENUM: *FIELD(row, c->off, int) = -1; break;
		}
	}
}

void store_fields_release(const struct store_table *t, void *row)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		const struct store_coldef *c = &t->cols[i];

		if (c->type == SC_TEXT) {
			free(*FIELD(row, c->off, char *));
			*FIELD(row, c->off, char *) = NULL;
		} else if (c->type == SC_BLOB) {
			free(FIELD(row, c->off, struct store_blob)->p);
			FIELD(row, c->off, struct store_blob)->p = NULL;
			FIELD(row, c->off, struct store_blob)->len = 0;
		}
	}
}

static void put_col(struct store_row *r, const struct store_coldef *c, const void *row)
{
	const struct store_blob *b;
	int v;

	switch (c->type) {
	case SC_INT:
		store_row_int(r, c->name, *FIELD(row, c->off, const int));
		break;
	case SC_TRI:
		v = *FIELD(row, c->off, const int);
		if (v < 0)
			store_row_null(r, c->name);
		else
			store_row_int(r, c->name, v);
		break;
	case SC_I64:
		store_row_int(r, c->name, *FIELD(row, c->off, const int64_t));
		break;
	case SC_I64_OPT:
		if (*FIELD(row, c->has, const int))
			store_row_int(r, c->name, *FIELD(row, c->off, const int64_t));
		else
			store_row_null(r, c->name);
		break;
	case SC_REAL:
		store_row_real(r, c->name, *FIELD(row, c->off, const double));
		break;
	case SC_TEXT:
		store_row_text(r, c->name, *FIELD(row, c->off, char *const));
		break;
	case SC_BLOB:
		b = FIELD(row, c->off, const struct store_blob);
		if (b->p)
			store_row_blob(r, c->name, b->p, b->len);
		else
			store_row_null(r, c->name);
		break;
	case SC_ENUM:
		v = *FIELD(row, c->off, const int);
		store_row_text(r, c->name, v >= 0 ? c->names[v] : NULL);
		break;
	}
}

void store_row_from(struct store_row *r, const struct store_table *t, unsigned mask,
		    const void *row)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (!mask || (t->cols[i].flags & mask))
			put_col(r, &t->cols[i], row);
}

/* Read column i of s into the field c of row; -1 after error() for a value
 * the column list cannot hold (an unknown enum name). */
static int get_col(struct store *st, const struct store_table *t, sqlite3_stmt *s, int i,
		   const struct store_coldef *c, void *row)
{
	int null = sqlite3_column_type(s, i) == SQLITE_NULL;
	const unsigned char *txt;
	struct store_blob *b;
	int k;

	switch (c->type) {
	case SC_INT: *FIELD(row, c->off, int) = null ? 0 : sqlite3_column_int(s, i); break;
	case SC_TRI: *FIELD(row, c->off, int) = null ? -1 : sqlite3_column_int(s, i); break;
	case SC_I64: *FIELD(row, c->off, int64_t) = sqlite3_column_int64(s, i); break;
	case SC_I64_OPT:
		*FIELD(row, c->off, int64_t) = sqlite3_column_int64(s, i);
		if (!null)
			*FIELD(row, c->has, int) = 1;
		break;
	case SC_REAL:
		*FIELD(row, c->off, double) = null ? NAN : sqlite3_column_double(s, i);
		break;
	case SC_TEXT:
		txt = sqlite3_column_text(s, i);
		*FIELD(row, c->off, char *) = txt ? xstrdup((const char *)txt) : NULL;
		break;
	case SC_BLOB:
		b = FIELD(row, c->off, struct store_blob);
		if (null)
			break;
		b->len = (size_t)sqlite3_column_bytes(s, i);
		b->p = xmalloc(b->len + 1);
		if (b->len)
			memcpy(b->p, sqlite3_column_blob(s, i), b->len);
		break;
	case SC_ENUM:
		txt = sqlite3_column_text(s, i);
		*FIELD(row, c->off, int) = -1;
		if (!txt)
			break;
		for (k = 0; c->names[k]; k++)
			if (!strcmp(c->names[k], (const char *)txt))
				break;
		if (!c->names[k])
			return error("%s: %s.%s: unknown value '%s'", st->path, t->name, c->name, txt);
		*FIELD(row, c->off, int) = k;
		break;
	}
	return 0;
}

static int bind_params(struct store *st, sqlite3_stmt *s, const struct store_row *params)
{
	if (params && bind_row(s, params))
		return error("%s: cannot bind values: %s", st->path, sqlite3_errmsg(st->db));
	return 0;
}

/* Each selected column's index in s, found by its name. */
static int map_columns(struct store *st, const struct store_table *t, unsigned skip,
		       sqlite3_stmt *s, int *idx)
{
	int n = sqlite3_column_count(s), j;
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		idx[i] = -1;
		if (t->cols[i].flags & skip)
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(sqlite3_column_name(s, j), t->cols[i].name))
				idx[i] = j;
		if (idx[i] < 0)
			return error("%s: %s has no column %s", st->path, t->name, t->cols[i].name);
	}
	return 0;
}

int store_select(struct store *st, const struct store_table *t, unsigned skip,
		 const char *where, const struct store_row *params, const char *order,
		 void **rows, size_t *n)
{
	struct sbuf sql = SBUF_INIT;
	sqlite3_stmt *s = NULL;
	int *idx = xcalloc(t->ncols, sizeof(*idx));
	char *v = NULL;
	size_t i, nv = 0, av = 0;
	int rc, ret = -1, first = 1;

	*rows = NULL;
	*n = 0;
	sbuf_adds(&sql, "SELECT ");
	for (i = 0; i < t->ncols; i++)
		if (!(t->cols[i].flags & skip)) {
			sbuf_addf(&sql, "%s%s", first ? "" : ", ", t->cols[i].name);
			first = 0;
		}
	sbuf_addf(&sql, " FROM %s", t->name);
	if (where)
		sbuf_addf(&sql, " WHERE %s", where);
	if (order)
		sbuf_addf(&sql, " ORDER BY %s", order);
	s = store_prepare(st, sql.buf);
	if (!s || bind_params(st, s, params) || map_columns(st, t, skip, s, idx))
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		void *row;

		if (nv == av) {
			av = av ? 2 * av : 16;
			v = xrealloc(v, av * t->rowsize);
		}
		row = v + nv * t->rowsize;
		memset(row, 0, t->rowsize);
		store_fields_init(t, row);
		nv++;
		for (i = 0; i < t->ncols; i++)
			if (idx[i] >= 0 && get_col(st, t, s, idx[i], &t->cols[i], row))
				goto out;
	}
	if (rc != SQLITE_DONE) {
		error("%s: reading %s: %s", st->path, t->name, sqlite3_errmsg(st->db));
		goto out;
	}
	*rows = v;
	*n = nv;
	v = NULL;
	nv = 0;
	ret = 0;
out:
	store_rows_free(t, v, nv);
	if (s)
		sqlite3_finalize(s);
	free(idx);
	sbuf_release(&sql);
	return ret;
}

void store_rows_free(const struct store_table *t, void *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		store_fields_release(t, (char *)rows + i * t->rowsize);
	free(rows);
}

int store_run_sql(struct store *st, const char *sql, const struct store_row *params)
{
	sqlite3_stmt *s = store_prepare(st, sql);
	int ret = -1;

	if (!s)
		return -1;
	if (bind_params(st, s, params))
		goto out;
	if (sqlite3_step(s) != SQLITE_DONE) {
		error("%s: %s", st->path, sqlite3_errmsg(st->db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int store_event(struct store *st, const char *run_id, int64_t window_id,
		const char *kind, const char *fmt, ...)
{
	struct store_row r;
	struct sbuf detail = SBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	sbuf_vaddf(&detail, fmt, ap);
	va_end(ap);
	store_row_init(&r, "events");
	store_row_text(&r, "run_id", run_id);
	if (window_id >= 0)
		store_row_int(&r, "window_id", window_id);
	store_row_real(&r, "t", now_wall());
	store_row_text(&r, "kind", kind);
	store_row_text(&r, "detail", detail.buf);
	ret = store_row_insert(st, &r, NULL);
	sbuf_release(&detail);
	return ret;
}

/* --------------------------------------------------------- run lookups */

const char *store_runs_dir(const char *opt)
{
	const char *env;

	if (opt && *opt)
		return opt;
	env = getenv("HARNESS_RUNS_DIR");
	if (env && *env)
		return env;
	return "runs";
}

