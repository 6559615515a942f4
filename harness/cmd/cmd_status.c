/* cmd_status: `harness status [RUN] [--json]`: one run's progress. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cells.h"
#include "model/view.h"
#include "report/status.h"
#include "cmd/cmd.h"
#include "base/jout.h"
#include "runner/plan.h"
#include "runner/runner.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

static void count(struct status_counts *c, const struct view_window *w)
{
	c->planned++;
	c->done += w->done;
	c->running += w->running;
	c->accepted += w->accepted;
	c->failed += w->failed;
	c->rejected += w->wstatus == WINDOW_REJECTED;
	c->replacements += w->block >= CELLS_REPL_BLOCK_BASE;
}

/* Per stage (first-seen order) and total; returns the number of stages. */
static size_t count_stages(const struct view *run, struct status_stage *v,
			   struct status_counts *total)
{
	size_t i, k, n = 0;

	for (i = 0; i < run->nwindows; i++) {
		const char *stage = run->windows[i].stage;

		for (k = 0; k < n && strcmp(v[k].stage, stage); k++)
			;
		if (k == n) {
			v[n].stage = stage;
			memset(&v[n].c, 0, sizeof(v[n].c));
			v[n].c.plan = -1;
			n++;
		}
		count(&v[k].c, &run->windows[i]);
		count(total, &run->windows[i]);
	}
	return n;
}

static json_t *counts_json(const struct status_counts *c, json_t *o)
{
	jout_set(o, "planned", json_integer(c->planned), "done", json_integer(c->done),
		 "accepted", json_integer(c->accepted), "failed", json_integer(c->failed),
		 "rejected", json_integer(c->rejected), NULL);
	return o;
}

/*
 * The run's plan from its stored spec and stages (plan.h): pre-registered
 * windows per stage into the stage counts (and the total), the most the
 * replacements can add returned; -1 when the spec does not parse (or the
 * run holds none: run_record_spec says so).
 */
static long run_plan(struct cmd_ctx *c, const struct view *run, struct status_stage *v,
		     size_t nst, struct status_counts *total)
{
	size_t pre[PLAN_NSTAGES], extra, nrungs, k;
	unsigned mask = STAGE_LADDER | STAGE_CONFIRM | STAGE_SOAK;
	const struct run_record *rec = &run->rec;
	const struct spec *s = run->spec;
	const char *text;
	double *rungs = NULL;
	size_t len;

	if (run_record_spec(rec, c->st.path, &text, &len) || !s)
		return -1;
	if (rec->stages && *rec->stages)
		runner_parse_stages(rec->stages, &mask);
	nrungs = spec_ladder_rungs(s, &rungs);
	extra = plan_run_windows(s, nrungs, rec->nimpls, mask, pre);
	total->plan = 0;
	for (k = 0; k < PLAN_NSTAGES; k++)
		total->plan += (long)pre[k];
	for (k = 0; k < nst; k++) {
		int i = plan_stage_index(v[k].stage);

		if (i >= 0)
			v[k].c.plan = (long)pre[i];
	}
	free(rungs);
	return (long)extra;
}

static int cmd_status(struct cmd_ctx *c)
{
	struct sbuf pf = SBUF_INIT, out = SBUF_INIT;
	struct view run;
	const struct run_record *rec = &run.rec;
	struct status_stage *stages = NULL;
	struct status_counts total = { 0 };
	int ret = EXIT_USAGE, finished;
	const char *status, *failure;
	size_t k, nst;
	long extra;

	if (view_load_flags(&run, &c->st, c->run_id.buf, VIEW_LEAN))
		return EXIT_USAGE;
	/* a run stored running whose process died reads abandoned (the view
	 * says so: store_run.h run_record_show_abandoned) */
	status = rec->status ? rec->status : "";
	failure = rec->failure;
	finished = !strcmp(status, "finished");
	stages = xcalloc(run.nwindows + 1, sizeof(*stages));
	total.plan = -1;
	nst = count_stages(&run, stages, &total);
	extra = run_plan(c, &run, stages, nst, &total);
	if (c->json) {
		json_t *o = json_object(), *st = json_object();

		jout_set(o, "run", jout_str(c->run_id.buf), "status", jout_str(status),
			 "failure", jout_str(failure), "finished", json_boolean(finished),
			 "exploratory", json_boolean(rec->exploratory > 0), NULL);
		counts_json(&total, o);
		json_object_set_new(o, "in_flight", json_integer(total.running));
		json_object_set_new(o, "replacements", json_integer(total.replacements));
		if (extra >= 0)
			json_object_set_new(o, "plan", json_pack("{s:I, s:I}", "windows",
								 (json_int_t)total.plan,
								 "replacements_max", (json_int_t)extra));
		else
			json_object_set_new(o, "plan", json_null());
		for (k = 0; k < nst; k++)
			json_object_set_new(st, stages[k].stage, counts_json(&stages[k].c,
									     json_object()));
		json_object_set_new(o, "stages", st);
		if (rec->preflight_cases >= 0)
			json_object_set_new(o, "preflight",
					    json_pack("{s:i, s:i, s:s}", "cases", rec->preflight_cases,
						      "passed", rec->preflight_passed, "summary",
						      status_preflight_line(rec->preflight, &pf)));
		else
			json_object_set_new(o, "preflight", json_null());
		if (jout_print(o, stdout)) {
			ret = EXIT_ENV;
			goto out;
		}
	} else {
		status_text(c->run_id.buf, rec, status, stages, nst, &total, extra, &out);
		fwrite(out.buf, 1, out.len, stdout);
	}
	/* A script gating on `harness status` must never read an unfinished
	 * or failed run as a success (README.md, exit codes). */
	ret = finished && !failure ? EXIT_OK : EXIT_NEGATIVE;
out:
	sbuf_release(&pf);
	sbuf_release(&out);
	free(stages);
	view_release(&run);
	return ret;
}

const struct cmd_desc cmd_status_desc = {
	.name = "status",
	.summary = "one run's progress (default: the latest run)",
	.synopsis = "[RUN] [options]",
	.about =
	"RUN's status (default `latest`, the newest run; `harness runs` lists them\n"
	"all), and per stage the windows planned so far, done, accepted, failed\n"
	"(valid, above the SLO) and rejected (void).\n"
	"--json prints {\"run\", \"status\", \"failure\", \"finished\", \"exploratory\",\n"
	"\"planned\", \"done\", \"accepted\", \"failed\", \"rejected\", \"in_flight\",\n"
	"\"preflight\", \"stages\": {...}}; \"preflight\" is {\"cases\", \"passed\",\n"
	"\"summary\"} or null (none recorded). \"planned\" counts the windows the run has planned so far\n"
	"(\"replacements\" of them replacement rounds' windows); \"plan\" is {\"windows\": the\n"
	"pre-registered windows of the run's stages, \"replacements_max\": the most\n"
	"replacements and confirm's follow-up rates can add}, null when the stored\n"
	"spec does not parse. The text's planned column, while the run is not over,\n"
	"is the plan's count when more than the windows stored\n"
	"(the ladder plans rung by rung and stops past the knees, so it grows until\n"
	"the run ends). \"status\" is running, finished, failed, interrupted or\n"
	"abandoned: stored running, but no process holds the run's lock (RUN/.lock):\n"
	"the one running it died without saying so (kill -9, a reboot); \"failure\"\n"
	"then says so, and `harness resume` continues it.\n"
	"Exit: 0 only for a finished run; 1 for a run that failed, was interrupted,\n"
	"has not finished, or finished with nothing usable in some stage; 2 unknown\n"
	"run, no runs at all, or bad arguments.\n",
	.flags = CMD_RUN | CMD_RUN_LATEST | CMD_JSON,
	.max_args = 1,
	.fn = cmd_status,
};
