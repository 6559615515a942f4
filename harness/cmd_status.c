/* cmd_status: `harness status [RUN] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "store.h"
#include "store_run.h"
#include "store_window.h"
#include "util.h"

static const char usage[] =
	"usage: harness status [RUN] [--runs-dir D] [--json]\n"
	"\n"
	"Without RUN: the runs (as `harness runs`). With RUN: its status, and per\n"
	"stage the windows planned so far, done, accepted, failed (valid, above the\n"
	"SLO) and rejected (void).\n"
	"--json prints {\"run\", \"status\", \"finished\", \"exploratory\", \"planned\",\n"
	"\"done\", \"accepted\", \"failed\", \"rejected\", \"in_flight\", \"stages\": {...}}.\n"
	"\"planned\" counts the windows the run has planned so far (the ladder plans\n"
	"rung by rung and stops past the knees, so it grows until the run ends).\n"
	"\"status\" is running, finished, failed or interrupted (a run whose process\n"
	"died without saying so stays running).\n"
	"Exit: 0 only for a finished run; 1 for a run that failed, was interrupted,\n"
	"has not finished, or finished with nothing usable in some stage; 2 unknown\n"
	"run or bad arguments.\n";

struct counts {
	long planned, done, accepted, rejected, running, failed;
};

/* Stage name and its counts, in the order the stages first appear. */
struct stage_counts {
	const char *stage;           /* borrowed from the window rows */
	struct counts c;
};

static void count(struct counts *c, const struct window_row *w)
{
	c->planned++;
	c->done += w->state == WINDOW_DONE;
	c->running += w->state == WINDOW_RUNNING;
	c->accepted += w->status == WINDOW_ACCEPTED;
	c->failed += w->status == WINDOW_FAILED;
	c->rejected += w->status == WINDOW_REJECTED;
}

/* Per stage (first-seen order) and total; returns the number of stages. */
static size_t count_stages(const struct window_rows *wins, struct stage_counts *v,
			   struct counts *total)
{
	size_t i, k, n = 0;

	for (i = 0; i < wins->n; i++) {
		const char *stage = wins->v[i].stage ? wins->v[i].stage : "";

		for (k = 0; k < n && strcmp(v[k].stage, stage); k++)
			;
		if (k == n) {
			v[n].stage = stage;
			memset(&v[n].c, 0, sizeof(v[n].c));
			n++;
		}
		count(&v[k].c, &wins->v[i]);
		count(total, &wins->v[i]);
	}
	return n;
}

int cmd_status(int argc, char **argv)
{
	const char *runs_dir = NULL, *run = NULL;
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT, out = SBUF_INIT;
	struct store st = { 0 };
	struct run_record rec;
	struct window_rows wins = { NULL, 0 };
	struct stage_counts *stages = NULL;
	struct counts total = { 0 };
	int i, json = 0, ret = EXIT_USAGE, finished, exploratory;
	const char *status, *failure;
	size_t k, nst;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--runs-dir") && i + 1 < argc)
			runs_dir = argv[++i];
		else if (argv[i][0] == '-') {
			error("status: unknown option '%s'; see 'harness status --help'", argv[i]);
			return EXIT_USAGE;
		} else if (!run)
			run = argv[i];
		else {
			error("status: unexpected argument '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!run)
		return cmd_runs(argc, argv);
	run_record_init(&rec);
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	if (run_record_load(&st, id.buf, &rec) || store_windows_load(&st, id.buf, NULL, &wins))
		goto out;
	status = rec.status ? rec.status : "";
	failure = rec.failure;
	exploratory = rec.exploratory;
	finished = !strcmp(status, "finished");
	stages = xcalloc(wins.n + 1, sizeof(*stages));
	nst = count_stages(&wins, stages, &total);
	if (json)
		sbuf_adds(&out, "\"stages\": {");
	for (k = 0; k < nst; k++) {
		const struct counts *c = &stages[k].c;

		if (json) {
			sbuf_addf(&out, "%s", k ? ", " : "");
			sbuf_add_json_str(&out, stages[k].stage);
			sbuf_addf(&out, ": {\"planned\": %ld, \"done\": %ld, \"accepted\": %ld,"
					" \"failed\": %ld, \"rejected\": %ld}", c->planned, c->done,
				  c->accepted, c->failed, c->rejected);
		} else {
			sbuf_addf(&out, "  %-8s planned %4ld  done %4ld  accepted %4ld  failed %4ld"
					"  rejected %4ld\n", stages[k].stage, c->planned, c->done,
				  c->accepted, c->failed, c->rejected);
		}
	}
	if (json) {
		sbuf_adds(&out, "}");
		printf("{\"run\": ");
		{
			struct sbuf q = SBUF_INIT;
			sbuf_add_json_str(&q, id.buf);
			sbuf_adds(&q, ", \"status\": ");
			sbuf_add_json_str(&q, status);
			fputs(q.buf, stdout);
			sbuf_release(&q);
		}
		printf(", \"finished\": %s, \"exploratory\": %s, \"planned\": %ld, \"done\": %ld,"
		       " \"accepted\": %ld, \"failed\": %ld, \"rejected\": %ld, \"in_flight\": %ld, %s}\n",
		       finished ? "true" : "false", exploratory ? "true" : "false", total.planned,
		       total.done, total.accepted, total.failed, total.rejected, total.running,
		       out.buf);
	} else {
		printf("run %s: %s%s%s%s\n", id.buf, status, failure ? " (" : "",
		       failure ? failure : "", failure ? ")" : "");
		if (exploratory)
			printf("EXPLORATORY: the spec had uncommitted changes\n");
		printf("%s", out.buf);
		printf("  %-8s planned %4ld  done %4ld  accepted %4ld  failed %4ld  rejected %4ld\n",
		       "total", total.planned, total.done, total.accepted, total.failed,
		       total.rejected);
	}
	/* A script gating on `harness status` must never read an unfinished
	 * or failed run as a success (README.md, exit codes). */
	ret = finished && !failure ? EXIT_OK : EXIT_NEGATIVE;
out:
	free(stages);
	window_rows_release(&wins);
	run_record_release(&rec);
	store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&id);
	sbuf_release(&out);
	return ret;
}
