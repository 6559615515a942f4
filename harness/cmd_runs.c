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
#include "store_run.h"
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
	"listed with status \"unreadable\" (one error line on stderr names it).\n"
	"Exit 0, or 2 when the runs directory cannot be read.\n";

/* Read dir/run.db into r (initialised here; caller releases). -1 after
 * one error() naming the database. */
static int read_run(const char *dir, struct run_record *r)
{
	struct store st = { 0 };
	struct sbuf db = SBUF_INIT;
	int ret = -1;

	run_record_init(r);
	sbuf_addf(&db, "%s/run.db", dir);
	if (!store_open(&st, db.buf, 0) && !run_record_load(&st, NULL, r))
		ret = 0;
	store_close(&st);
	sbuf_release(&db);
	return ret;
}

static int by_date(const void *a, const void *b)
{
	const struct run_record *x = a, *y = b;
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

static void print_text(const struct run_record *v, size_t n, struct sbuf *o)
{
	size_t i, j;

	if (!n) {
		sbuf_adds(o, "no runs\n");
		return;
	}
	sbuf_addf(o, "%-28s %-20s %-19s %-12s %s\n", "ID", "SPEC", "DATE (UTC)", "STATUS",
		  "COMMITS");
	for (i = 0; i < n; i++) {
		const struct run_record *r = &v[i];
		struct sbuf d = SBUF_INIT, st = SBUF_INIT;
		fmt_date(&d, r->created_at);
		sbuf_adds(&st, r->status ? r->status : "?");
		if (r->exploratory)
			sbuf_adds(&st, ",exploratory");
		sbuf_addf(o, "%-28s %-20s %-19s %-12s", r->id, r->spec_name ? r->spec_name : "-",
			  d.buf, st.buf);
		for (j = 0; j < r->nimpls; j++) {
			const struct run_impl *im = &r->impls[j];
			sbuf_addf(o, " %s=%.12s%s", im->name, im->commit_id ? im->commit_id : "-",
				  im->dirty > 0 ? "+dirty" : "");
		}
		if (r->parent_run)
			sbuf_addf(o, " (rerun of %s)", r->parent_run);
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

static void print_json(const struct run_record *v, size_t n, struct sbuf *o)
{
	size_t i, j;

	sbuf_adds(o, "[");
	for (i = 0; i < n; i++) {
		const struct run_record *r = &v[i];
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
		json_str(o, r->parent_run);
		sbuf_adds(o, ",\"impls\":[");
		for (j = 0; j < r->nimpls; j++) {
			const struct run_impl *im = &r->impls[j];
			sbuf_adds(o, j ? ",{\"name\":" : "{\"name\":");
			json_str(o, im->name);
			sbuf_adds(o, ",\"commit\":");
			json_str(o, im->commit_id);
			sbuf_addf(o, ",\"dirty\":%s,\"ref_asked\":",
				  im->dirty < 0 ? "null" : im->dirty ? "true" : "false");
			json_str(o, im->ref_asked);
			sbuf_adds(o, "}");
		}
		sbuf_adds(o, "]}");
	}
	sbuf_adds(o, n ? "\n]\n" : "]\n");
}

int cmd_runs(int argc, char **argv)
{
	const char *runs_dir = NULL, *dir;
	struct run_record *v = NULL;
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
			/* Listed as such (its error line names the database);
			 * the listing itself succeeded. */
			run_record_release(&v[n]);
			v[n].status = xstrdup("unreadable");
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
		run_record_release(&v[i]);
	free(v);
	sbuf_release(&out);
	sbuf_release(&p);
	return ret;
}
