/* cmd_status: `harness status [RUN] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "store.h"
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

static void read_counts(sqlite3_stmt *s, struct counts *c)
{
	c->planned = (long)store_col_int(s, 1);
	c->done = (long)store_col_int(s, 2);
	c->accepted = (long)store_col_int(s, 3);
	c->rejected = (long)store_col_int(s, 4);
	c->running = (long)store_col_int(s, 5);
	c->failed = (long)store_col_int(s, 6);
}

int cmd_status(int argc, char **argv)
{
	const char *runs_dir = NULL, *run = NULL;
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT, out = SBUF_INIT;
	struct store st = { 0 };
	sqlite3_stmt *s = NULL;
	struct counts total = { 0 }, c;
	int i, json = 0, ret = EXIT_USAGE, finished, exploratory, nst = 0;
	char *status = NULL, *failure = NULL;

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
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	s = store_prepare(&st, "SELECT status, exploratory, failure FROM runs WHERE id = ?");
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, id.buf, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		goto out;
	status = xstrdup(store_col_text(s, 0));
	exploratory = (int)store_col_int(s, 1);
	failure = store_col_text(s, 2) ? xstrdup(store_col_text(s, 2)) : NULL;
	finished = !strcmp(status, "finished");
	sqlite3_finalize(s);
	s = store_prepare(&st, "SELECT stage, COUNT(*), SUM(state = 'done'),"
			       " SUM(status = 'accepted'), SUM(status = 'rejected'),"
			       " SUM(state = 'running'), SUM(status = 'failed') FROM windows WHERE run_id = ?"
			       " GROUP BY stage ORDER BY MIN(id)");
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, id.buf, -1, SQLITE_STATIC);
	if (json)
		sbuf_adds(&out, "\"stages\": {");
	while (sqlite3_step(s) == SQLITE_ROW) {
		read_counts(s, &c);
		total.planned += c.planned;
		total.done += c.done;
		total.accepted += c.accepted;
		total.rejected += c.rejected;
		total.failed += c.failed;
		total.running += c.running;
		if (json) {
			sbuf_addf(&out, "%s\"%s\": {\"planned\": %ld, \"done\": %ld, \"accepted\": %ld,"
					" \"failed\": %ld, \"rejected\": %ld}", nst ? ", " : "",
				  store_col_text(s, 0), c.planned, c.done, c.accepted, c.failed,
				  c.rejected);
		} else {
			sbuf_addf(&out, "  %-8s planned %4ld  done %4ld  accepted %4ld  failed %4ld"
					"  rejected %4ld\n", store_col_text(s, 0), c.planned, c.done,
				  c.accepted, c.failed, c.rejected);
		}
		nst++;
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
	if (s)
		sqlite3_finalize(s);
	if (st.db)
		store_close(&st);
	free(status);
	free(failure);
	sbuf_release(&dir);
	sbuf_release(&id);
	sbuf_release(&out);
	return ret;
}
