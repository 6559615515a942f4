/*
 * cmd_runs: `harness runs`: every run under the runs directory, oldest
 * first: id, spec name, date, the commit of each implementation, status.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "store.h"
#include "util.h"

static const char usage_text[] =
	"usage: harness runs [--runs-dir D] [--json]\n"
	"\n"
	"List the runs under the runs directory (--runs-dir, else $HARNESS_RUNS_DIR,\n"
	"else ./runs), oldest first: id, spec name, start date (UTC), each\n"
	"implementation's commit (12 digits; '+dirty' when its tree was dirty),\n"
	"status (running, finished, failed, interrupted; 'exploratory' and the\n"
	"parent run of a rerun are appended).\n"
	"\n"
	"--json prints [{\"id\", \"spec_name\", \"created_at\" (unix s), \"status\",\n"
	"\"failure\", \"exploratory\", \"parent_run\", \"impls\": [{\"name\", \"commit\",\n"
	"\"dirty\", \"ref_asked\"}]}]. A directory whose run.db cannot be read is\n"
	"listed with status \"unreadable\". Exit 0, or 2 when the runs directory\n"
	"cannot be read.\n";

struct run_impl {
	char *name, *commit, *ref;
	int dirty;
};

struct run_row {
	char *id, *spec_name, *status, *failure, *parent;
	double created_at;
	int exploratory;
	struct run_impl *impls;
	size_t nimpls;
};

static char *dup_col(sqlite3_stmt *s, int i)
{
	const char *t = store_col_text(s, i);
	return t ? xstrdup(t) : NULL;
}

static int read_run(const char *dir, struct run_row *r)
{
	struct store st = { 0 };
	struct sbuf db = SBUF_INIT;
	sqlite3_stmt *s = NULL;
	size_t alloc = 0;
	int ret = -1;

	sbuf_addf(&db, "%s/run.db", dir);
	if (store_open(&st, db.buf, 0))
		goto out;
	s = store_prepare(&st, "SELECT id, spec_name, created_at, status, failure, exploratory,"
			  " parent_run FROM runs LIMIT 1");
	if (!s || sqlite3_step(s) != SQLITE_ROW)
		goto out;
	r->id = dup_col(s, 0);
	r->spec_name = dup_col(s, 1);
	r->created_at = store_col_real(s, 2);
	r->status = dup_col(s, 3);
	r->failure = dup_col(s, 4);
	r->exploratory = (int)store_col_int(s, 5);
	r->parent = dup_col(s, 6);
	sqlite3_finalize(s);
	s = store_prepare(&st, "SELECT name, commit_id, dirty, ref_asked FROM impls"
			  " WHERE run_id = ? ORDER BY ord, name");
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct run_impl *im;
		XGROW(r->impls, alloc, r->nimpls + 1);
		im = &r->impls[r->nimpls++];
		im->name = dup_col(s, 0);
		im->commit = dup_col(s, 1);
		im->dirty = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : (int)store_col_int(s, 2);
		im->ref = dup_col(s, 3);
	}
	ret = 0;
out:
	if (s)
		sqlite3_finalize(s);
	if (st.db)
		store_close(&st);
	sbuf_release(&db);
	return ret;
}

static void run_release(struct run_row *r)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++) {
		free(r->impls[i].name);
		free(r->impls[i].commit);
		free(r->impls[i].ref);
	}
	free(r->impls);
	free(r->id);
	free(r->spec_name);
	free(r->status);
	free(r->failure);
	free(r->parent);
}

static int by_date(const void *a, const void *b)
{
	const struct run_row *x = a, *y = b;
	double dx = isfinite(x->created_at) ? x->created_at : 0;
	double dy = isfinite(y->created_at) ? y->created_at : 0;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->id, y->id);
}

static void fmt_date(struct sbuf *o, double t)
{
	char buf[32];
	time_t tt = (time_t)t;
	struct tm tm;

	if (!isfinite(t) || !gmtime_r(&tt, &tm)) {
		sbuf_adds(o, "-");
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	sbuf_adds(o, buf);
}

static void print_text(const struct run_row *v, size_t n, struct sbuf *o)
{
	size_t i, j;

	if (!n) {
		sbuf_adds(o, "no runs\n");
		return;
	}
	sbuf_addf(o, "%-28s %-20s %-19s %-12s %s\n", "ID", "SPEC", "DATE (UTC)", "STATUS",
		  "COMMITS");
	for (i = 0; i < n; i++) {
		const struct run_row *r = &v[i];
		struct sbuf d = SBUF_INIT, st = SBUF_INIT;
		fmt_date(&d, r->created_at);
		sbuf_adds(&st, r->status ? r->status : "?");
		if (r->exploratory)
			sbuf_adds(&st, ",exploratory");
		sbuf_addf(o, "%-28s %-20s %-19s %-12s", r->id, r->spec_name ? r->spec_name : "-",
			  d.buf, st.buf);
		for (j = 0; j < r->nimpls; j++) {
			const struct run_impl *im = &r->impls[j];
			sbuf_addf(o, " %s=%.12s%s", im->name, im->commit ? im->commit : "-",
				  im->dirty > 0 ? "+dirty" : "");
		}
		if (r->parent)
			sbuf_addf(o, " (rerun of %s)", r->parent);
		if (r->failure && *r->failure)
			sbuf_addf(o, " [%s]", r->failure);
		sbuf_adds(o, "\n");
		sbuf_release(&d);
		sbuf_release(&st);
	}
}

static void json_str(struct sbuf *o, const char *s)
{
	if (s)
		sbuf_add_json_str(o, s);
	else
		sbuf_adds(o, "null");
}

static void print_json(const struct run_row *v, size_t n, struct sbuf *o)
{
	size_t i, j;

	sbuf_adds(o, "[");
	for (i = 0; i < n; i++) {
		const struct run_row *r = &v[i];
		sbuf_adds(o, i ? ",\n{\"id\":" : "\n{\"id\":");
		json_str(o, r->id);
		sbuf_adds(o, ",\"spec_name\":");
		json_str(o, r->spec_name);
		if (isfinite(r->created_at))
			sbuf_addf(o, ",\"created_at\":%.3f", r->created_at);
		else
			sbuf_adds(o, ",\"created_at\":null");
		sbuf_adds(o, ",\"status\":");
		json_str(o, r->status);
		sbuf_adds(o, ",\"failure\":");
		json_str(o, r->failure);
		sbuf_addf(o, ",\"exploratory\":%s,\"parent_run\":", r->exploratory ? "true" : "false");
		json_str(o, r->parent);
		sbuf_adds(o, ",\"impls\":[");
		for (j = 0; j < r->nimpls; j++) {
			const struct run_impl *im = &r->impls[j];
			sbuf_adds(o, j ? ",{\"name\":" : "{\"name\":");
			json_str(o, im->name);
			sbuf_adds(o, ",\"commit\":");
			json_str(o, im->commit);
			sbuf_addf(o, ",\"dirty\":%s,\"ref_asked\":",
				  im->dirty < 0 ? "null" : im->dirty ? "true" : "false");
			json_str(o, im->ref);
			sbuf_adds(o, "}");
		}
		sbuf_adds(o, "]}");
	}
	sbuf_adds(o, n ? "\n]\n" : "]\n");
}

int cmd_runs(int argc, char **argv)
{
	const char *runs_dir = NULL, *dir;
	struct run_row *v = NULL;
	struct sbuf out = SBUF_INIT, p = SBUF_INIT;
	size_t n = 0, alloc = 0, i;
	struct dirent *e;
	int json = 0, ret = EXIT_OK;
	DIR *d;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--runs-dir") && i + 1 < (size_t)argc) {
			runs_dir = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else {
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	dir = store_runs_dir(runs_dir);
	d = opendir(dir);
	if (!d && errno == ENOENT && !runs_dir) {
		/* The default directory before the first run: nothing to list. */
		printf(json ? "[]\n" : "no runs (%s does not exist)\n", dir);
		return fflush(stdout) ? EXIT_ENV : EXIT_OK;
	}
	if (!d) {
		error("runs: %s: cannot read the runs directory: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sbuf_reset(&p);
		sbuf_addf(&p, "%s/%s/run.db", dir, e->d_name);
		if (stat(p.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		p.buf[p.len - 7] = '\0';  /* strip "/run.db" */
		XGROW(v, alloc, n + 1);
		memset(&v[n], 0, sizeof(v[n]));
		if (read_run(p.buf, &v[n])) {
			run_release(&v[n]);
			memset(&v[n], 0, sizeof(v[n]));
			v[n].status = xstrdup("unreadable");
			v[n].created_at = NAN;
		}
		if (!v[n].id)
			v[n].id = xstrdup(e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_date);
	if (json)
		print_json(v, n, &out);
	else
		print_text(v, n, &out);
	fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		error("runs: cannot write to standard output");
		ret = EXIT_ENV;
	}
	for (i = 0; i < n; i++)
		run_release(&v[i]);
	free(v);
	sbuf_release(&out);
	sbuf_release(&p);
	return ret;
}
