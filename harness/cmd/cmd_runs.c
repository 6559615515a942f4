/*
 * cmd_runs: `harness runs`: every run under the runs directory, oldest
 * first: id, spec name, date, the commit of each implementation, status.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "base/jout.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

static void print_text(const struct run_entry *v, size_t n, struct sbuf *o)
{
	size_t i, j;

	if (!n) {
		sbuf_adds(o, "no runs\n");
		return;
	}
	sbuf_addf(o, "%-28s %-20s %-19s %-12s %s\n", "ID", "SPEC", "DATE (UTC)", "STATUS",
		  "COMMITS");
	for (i = 0; i < n; i++) {
		const struct run_record *r = &v[i].rec;
		struct sbuf d = SBUF_INIT, st = SBUF_INIT;
		sbuf_add_utc(&d, r->created_at, "%Y-%m-%d %H:%M:%S");
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

static json_t *to_json(const struct run_entry *v, size_t n)
{
	json_t *a = json_array(), *o, *impls, *io;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct run_record *r = &v[i].rec;

		o = json_object();
		jout_set(o, "id", jout_str(r->id), "spec_name", jout_str(r->spec_name),
			 "created_at", jout_num(r->created_at), "status", jout_str(r->status),
			 "failure", jout_str(r->failure),
			 "exploratory", json_boolean(r->exploratory > 0),
			 "parent_run", jout_str(r->parent_run), NULL);
		impls = json_array();
		for (j = 0; j < r->nimpls; j++) {
			const struct run_impl *im = &r->impls[j];

			io = json_object();
			jout_set(io, "name", jout_str(im->name), "commit", jout_str(im->commit_id),
				 "dirty", jout_tri(im->dirty), "ref_asked", jout_str(im->ref_asked),
				 NULL);
			json_array_append_new(impls, io);
		}
		json_object_set_new(o, "impls", impls);
		json_array_append_new(a, o);
	}
	return a;
}

static int cmd_runs(struct cmd_ctx *c)
{
	struct run_entry *v = NULL;
	struct sbuf out = SBUF_INIT;
	size_t n = 0;
	int missing = 0, ret = EXIT_OK;

	if (store_runs_list(c->runs_dir, &v, &n, &missing)) {
		if (!missing)
			return EXIT_USAGE;
		if (c->runs_dir_given)
			return error("runs: %s: no such runs directory", c->runs_dir), EXIT_USAGE;
		/* The default directory before the first run: nothing to list. */
		printf(c->json ? "[]\n" : "no runs (%s does not exist)\n", c->runs_dir);
		return EXIT_OK;
	}
	/* runs stored running whose process died read abandoned, the
	 * evidence as their failure (runlock.h) */
	run_entries_show_abandoned(v, n);
	if (c->json)
		ret = jout_print(to_json(v, n), stdout) ? EXIT_ENV : EXIT_OK;
	else {
		print_text(v, n, &out);
		fwrite(out.buf, 1, out.len, stdout);
	}
	run_entries_free(v, n);
	sbuf_release(&out);
	return ret;
}

const struct cmd_desc cmd_runs_desc = {
	.name = "runs",
	.summary = "list runs with id, spec, date, commits, status",
	.synopsis = "[options]",
	.about =
	"List the runs under the runs directory (--runs-dir, else $HARNESS_RUNS_DIR,\n"
	"else ./runs), oldest first: id, spec name, start date (UTC), each\n"
	"implementation's commit (12 digits; '+dirty' when its tree was dirty),\n"
	"status (running, finished, failed, interrupted, or abandoned: stored\n"
	"running but no process holds its lock, RUN/.lock, so the one running it\n"
	"died, the evidence in brackets; 'exploratory' and the parent run of a\n"
	"rerun are appended). The last one is what `latest` names.\n"
	"\n"
	"--json prints [{\"id\", \"spec_name\", \"created_at\" (unix s), \"status\",\n"
	"\"failure\", \"exploratory\", \"parent_run\", \"impls\": [{\"name\", \"commit\",\n"
	"\"dirty\", \"ref_asked\"}]}]. A directory whose run.db cannot be read is\n"
	"listed with status \"unreadable\" (one error line on stderr names it).\n"
	"Exit 0, or 2 when the runs directory cannot be read (the default one not\n"
	"existing yet is no runs, exit 0).\n",
	.opts = NULL,
	.flags = CMD_RUNS_DIR | CMD_JSON,
	.max_args = 0,
	.fn = cmd_runs,
};
