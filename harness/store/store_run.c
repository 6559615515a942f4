/* store_run: the runs, impls and host_facts tables, through column lists. */
#include "store/store_run.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/runlock.h"
#include "base/util.h"

#define C(st, col, type) { #col, type, offsetof(struct st, col), 0, NULL, 0 }

static const struct store_coldef run_cols[] = {
	C(run_record, id, SC_TEXT),
	C(run_record, spec_name, SC_TEXT),
	C(run_record, spec_path, SC_TEXT),
	C(run_record, spec_text, SC_BLOB),
	C(run_record, spec_hash, SC_TEXT),
	C(run_record, seed, SC_I64),
	C(run_record, stages, SC_TEXT),
	C(run_record, created_at, SC_REAL),
	C(run_record, finished_at, SC_REAL),
	C(run_record, status, SC_TEXT),
	C(run_record, failure, SC_TEXT),
	C(run_record, failure_kind, SC_TEXT),
	C(run_record, failure_impl, SC_TEXT),
	C(run_record, exploratory, SC_INT),
	C(run_record, forced, SC_INT),
	C(run_record, harness_version, SC_TEXT),
	C(run_record, parent_run, SC_TEXT),
	C(run_record, sandbox_user, SC_TEXT),
	C(run_record, spec_repo, SC_TEXT),
	C(run_record, spec_commit, SC_TEXT),
	C(run_record, spec_branch, SC_TEXT),
	C(run_record, spec_dirty, SC_TRI),
	C(run_record, rules, SC_TRI),
	C(run_record, preflight_cases, SC_TRI),
	C(run_record, preflight_passed, SC_TRI),
	C(run_record, preflight, SC_TEXT),
};
static const struct store_table runs_t = {
	"runs", run_cols, ARRAY_SIZE(run_cols), sizeof(struct run_record),
};

static const struct store_coldef impl_cols[] = {
	C(run_impl, run_id, SC_TEXT),
	C(run_impl, name, SC_TEXT),
	C(run_impl, ord, SC_INT),
	C(run_impl, repo, SC_TEXT),
	C(run_impl, commit_id, SC_TEXT),
	C(run_impl, branch, SC_TEXT),
	C(run_impl, dirty, SC_TRI),
	C(run_impl, diff_hash, SC_TEXT),
	C(run_impl, ref_asked, SC_TEXT),
	C(run_impl, remote_url, SC_TEXT),
	C(run_impl, src_dir, SC_TEXT),
	C(run_impl, baseline_of, SC_TEXT),
	C(run_impl, knee_rps, SC_REAL),
	C(run_impl, knee_crossed, SC_TRI),
	C(run_impl, knee_kind, SC_TEXT),
	C(run_impl, knee_lo_rps, SC_REAL),
	C(run_impl, knee_hi_rps, SC_REAL),
	C(run_impl, knee_reason, SC_TEXT),
};
static const struct store_table impls_t = {
	"impls", impl_cols, ARRAY_SIZE(impl_cols), sizeof(struct run_impl),
};

static const struct store_coldef fact_cols[] = {
	C(host_fact, run_id, SC_TEXT),
	C(host_fact, key, SC_TEXT),
	C(host_fact, value, SC_TEXT),
};
static const struct store_table facts_t = {
	"host_facts", fact_cols, ARRAY_SIZE(fact_cols), sizeof(struct host_fact),
};

const struct store_table *run_table(void)
{
	return &runs_t;
}

const struct store_table *run_impl_table(void)
{
	return &impls_t;
}

const struct store_table *store_run_table(const char *name)
{
	if (!strcmp(name, "runs"))
		return &runs_t;
	if (!strcmp(name, "impls"))
		return &impls_t;
	if (!strcmp(name, "host_facts"))
		return &facts_t;
	return NULL;
}

void run_record_init(struct run_record *r)
{
	memset(r, 0, sizeof(*r));
	store_fields_init(&runs_t, r);
}

void run_record_release(struct run_record *r)
{
	store_fields_release(&runs_t, r);
	store_rows_free(&impls_t, r->impls, r->nimpls);
	store_rows_free(&facts_t, r->host, r->nhost);
	run_record_init(r);
}

void run_impl_init(struct run_impl *im)
{
	memset(im, 0, sizeof(*im));
	store_fields_init(&impls_t, im);
}

void run_impl_release(struct run_impl *im)
{
	store_fields_release(&impls_t, im);
}

int run_record_load(struct store *st, const char *run_id, struct run_record *r)
{
	struct store_row p;
	void *rows = NULL;
	size_t n = 0;
	int ret = -1;

	run_record_init(r);
	store_row_init(&p, NULL);
	if (run_id)
		store_row_text(&p, "id", run_id);
	if (store_select(st, &runs_t, 0, run_id ? "id = ?" : NULL, &p, "rowid LIMIT 1", &rows, &n))
		goto out;
	if (!n) {
		if (run_id)
			error("%s: no run '%s' in the database", st->path, run_id);
		else
			error("%s: database holds no run", st->path);
		goto out;
	}
	*r = *(struct run_record *)rows;
	free(rows);
	rows = NULL;
	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", r->id);
	if (store_select(st, &impls_t, 0, "run_id = ?", &p, "ord, name", &rows, &r->nimpls))
		goto fail;
	r->impls = rows;
	if (store_select(st, &facts_t, 0, "run_id = ?", &p, "key", &rows, &r->nhost))
		goto fail;
	r->host = rows;
	return 0;
fail:
	run_record_release(r);
	return -1;
out:
	free(rows);
	return ret;
}

const struct run_impl *run_record_impl(const struct run_record *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (r->impls[i].name && !strcmp(r->impls[i].name, name))
			return &r->impls[i];
	return NULL;
}

int run_record_spec(const struct run_record *r, const char *db_path, const char **text,
		    size_t *len)
{
	if (!r->spec_text.p || !r->spec_text.len)
		return error("%s: run %s: the stored spec is empty", db_path, r->id ? r->id : "?");
	*text = (const char *)r->spec_text.p;
	*len = r->spec_text.len;
	return 0;
}

static int insert(struct store *st, const struct store_table *t, const void *row, int upsert)
{
	struct store_row r;

	store_row_init(&r, t->name);
	store_row_from(&r, t, 0, row);
	return upsert ? store_row_upsert(st, &r) : store_row_insert(st, &r, NULL);
}

int store_run_insert(struct store *st, const struct run_record *r)
{
	return insert(st, &runs_t, r, 0);
}

int store_impl_insert(struct store *st, const struct run_impl *im)
{
	return insert(st, &impls_t, im, 0);
}

int store_host_fact_upsert(struct store *st, const struct host_fact *f)
{
	return insert(st, &facts_t, f, 1);
}

int store_impl_set_knee(struct store *st, const char *run_id, const char *name,
			double knee_rps, int crossed, const char *kind, double lo_rps,
			double hi_rps, const char *reason)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_real(&p, "knee_rps", knee_rps);
	store_row_int(&p, "knee_crossed", crossed);
	store_row_text(&p, "knee_kind", kind);
	store_row_real(&p, "knee_lo_rps", lo_rps);
	store_row_real(&p, "knee_hi_rps", hi_rps);
	store_row_text(&p, "knee_reason", reason);
	store_row_text(&p, "run_id", run_id);
	store_row_text(&p, "name", name);
	return store_run_sql(st, "UPDATE impls SET knee_rps = ?, knee_crossed = ?, knee_kind = ?,"
				 " knee_lo_rps = ?, knee_hi_rps = ?, knee_reason = ?"
				 " WHERE run_id = ? AND name = ?", &p);
}

int store_run_set_status(struct store *st, const char *run_id, const char *status,
			 const char *failure, const char *kind, const char *impl,
			 double finished_at)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "status", status);
	store_row_text(&p, "failure", failure);
	store_row_text(&p, "failure_kind", kind);
	store_row_text(&p, "failure_impl", impl);
	store_row_real(&p, "finished_at", finished_at);
	store_row_text(&p, "id", run_id);
	return store_run_sql(st, "UPDATE runs SET status = ?, failure = ?, failure_kind = ?,"
				 " failure_impl = ?, finished_at = ? WHERE id = ?", &p);
}

int store_run_set_preflight(struct store *st, const char *run_id, int cases, int passed,
			    const char *text)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_int(&p, "preflight_cases", cases);
	store_row_int(&p, "preflight_passed", passed);
	store_row_text(&p, "preflight", text);
	store_row_text(&p, "id", run_id);
	return store_run_sql(st, "UPDATE runs SET preflight_cases = ?, preflight_passed = ?,"
				 " preflight = ? WHERE id = ?", &p);
}

int store_run_set_forced(struct store *st, const char *run_id)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "id", run_id);
	return store_run_sql(st, "UPDATE runs SET forced = 1 WHERE id = ?", &p);
}

/* ------------------------------------------------------- the runs dir */

static int entry_by_date(const void *a, const void *b)
{
	const struct run_entry *x = a, *y = b;
	double dx = isfinite(x->rec.created_at) ? x->rec.created_at : 0;
	double dy = isfinite(y->rec.created_at) ? y->rec.created_at : 0;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->rec.id, y->rec.id);
}

/* Read dir/run.db into e->rec; -1 after one error() naming the database. */
static int read_entry(struct run_entry *e)
{
	struct store st = { 0 };
	struct sbuf db = SBUF_INIT;
	int ret = -1;

	sbuf_addf(&db, "%s/run.db", e->dir);
	if (!store_open(&st, db.buf, 0) && !run_record_load(&st, NULL, &e->rec))
		ret = 0;
	else
		run_record_init(&e->rec);
	store_close(&st);
	sbuf_release(&db);
	return ret;
}

int store_runs_list(const char *runs_dir, struct run_entry **v, size_t *n, int *missing)
{
	struct sbuf p = SBUF_INIT;
	size_t alloc = 0;
	struct dirent *e;
	struct stat sb;
	DIR *d;

	*v = NULL;
	*n = 0;
	if (missing)
		*missing = 0;
	d = opendir(runs_dir);
	if (!d) {
		if (missing && errno == ENOENT) {
			*missing = 1;
			return -1;
		}
		return error("%s: cannot read the runs directory: %s", runs_dir, strerror(errno));
	}
	while ((e = readdir(d))) {
		struct run_entry *r;

		if (e->d_name[0] == '.')
			continue;
		sbuf_reset(&p);
		sbuf_addf(&p, "%s/%s/run.db", runs_dir, e->d_name);
		if (stat(p.buf, &sb) || !S_ISREG(sb.st_mode))
			continue;
		XGROW(*v, alloc, *n + 1);
		r = &(*v)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->dir = xstrndup(p.buf, p.len - strlen("/run.db"));
		r->readable = !read_entry(r);
		if (!r->readable)
			r->rec.status = xstrdup("unreadable");
		if (!r->rec.id)
			r->rec.id = xstrdup(e->d_name);
	}
	closedir(d);
	sbuf_release(&p);
	if (*n)
		qsort(*v, *n, sizeof(**v), entry_by_date);
	return 0;
}

void run_entries_free(struct run_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].dir);
		run_record_release(&v[i].rec);
	}
	free(v);
}

void run_record_show_abandoned(struct run_record *r, const char *dir)
{
	char *why = NULL;

	if (!dir || !r->status || strcmp(r->status, "running"))
		return;
	runlock_status(dir, r->status, &why);
	if (!why)
		return;       /* its process holds the lock: running */
	free(r->status);
	r->status = xstrdup("abandoned");
	free(r->failure);
	r->failure = why;
}

void run_entries_show_abandoned(struct run_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].readable)
			run_record_show_abandoned(&v[i].rec, v[i].dir);
}

int store_latest_run(const char *runs_dir, struct sbuf *dir)
{
	struct run_entry *v;
	size_t n, i;
	int ret = -1;

	if (store_runs_list(runs_dir, &v, &n, NULL))
		return -1;
	for (i = n; i-- > 0;)
		if (v[i].readable) {
			sbuf_reset(dir);
			sbuf_adds(dir, v[i].dir);
			ret = 0;
			break;
		}
	if (ret)
		error("latest: no readable run under %s", runs_dir);
	run_entries_free(v, n);
	return ret;
}

/* ------------------------------------------------------------ run lookups
 * (declared in store.h: every command resolves RUN through them) */

static int has_db(const char *dir)
{
	struct sbuf p = SBUF_INIT;
	int ok;

	sbuf_addf(&p, "%s/run.db", dir);
	ok = access(p.buf, R_OK) == 0;
	sbuf_release(&p);
	return ok;
}

int store_run_dir(const char *runs_dir, const char *run, struct sbuf *dir)
{
	sbuf_reset(dir);
	if (!run || !*run)
		return error("no run given");
	if (!strchr(run, '/')) {
		sbuf_addf(dir, "%s/%s", runs_dir, run);
		if (has_db(dir->buf))
			return 0;
		sbuf_reset(dir);
		/* `latest`: the newest run, unless a run is called that. */
		if (!strcmp(run, "latest"))
			return store_latest_run(runs_dir, dir);
	}
	sbuf_adds(dir, run);
	while (dir->len > 1 && dir->buf[dir->len - 1] == '/')
		dir->buf[--dir->len] = '\0';
	if (has_db(dir->buf))
		return 0;
	return error("%s: no such run (looked in %s/ and for %s/run.db)", run, runs_dir, run);
}

struct run_id_row {
	char *id;
};
static const struct store_coldef run_id_cols[] = {
	{ "id", SC_TEXT, offsetof(struct run_id_row, id), 0, NULL, 0 },
};
static const struct store_table run_id_t = {
	"runs", run_id_cols, ARRAY_SIZE(run_id_cols), sizeof(struct run_id_row),
};

int store_open_run(struct store *st, const char *runs_dir, const char *run,
		   struct sbuf *dir, struct sbuf *run_id)
{
	struct sbuf db = SBUF_INIT;
	struct run_id_row *rows = NULL;
	size_t n = 0;
	int ret = -1;

	st->db = NULL;
	st->path = NULL;
	if (store_run_dir(runs_dir, run, dir))
		goto out;
	sbuf_addf(&db, "%s/run.db", dir->buf);
	if (store_open(st, db.buf, 0))
		goto out;
	if (store_check(st))
		goto fail;
	if (store_select(st, &run_id_t, 0, NULL, NULL, "rowid LIMIT 1", (void **)&rows, &n))
		goto fail;
	if (!n || !rows[0].id) {
		error("%s: database holds no run", db.buf);
		goto fail;
	}
	sbuf_reset(run_id);
	sbuf_adds(run_id, rows[0].id);
	ret = 0;
	goto out;
fail:
	store_close(st);
out:
	store_rows_free(&run_id_t, rows, n);
	sbuf_release(&db);
	return ret;
}
