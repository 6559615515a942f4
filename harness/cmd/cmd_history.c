/*
 * cmd_history: `harness history`: one spec's runs over nights or commits,
 * per implementation: knee, cost per request and memory with their
 * intervals, and the steps between runs (history.c computes, history_md.c,
 * history_json.c and history_html.c write).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/history.h"
#include "base/util.h"

static struct history_opts ho;
static const char *format = "md";
static const char *kind = "run";

static const struct opt options[] = {
	OPT_STRING(0, "spec", "NAME", &ho.spec, "the spec's name (default: the newest run's)"),
	OPT_STRING(0, "impl", "NAME", &ho.impl, "only this implementation"),
	OPT_STRING(0, "format", "md|json|html", &format, "output format (default md)"),
	OPT_STRING(0, "kind", "run|rerun|all", &kind,
		   "runs made from the spec (default: nightly), reruns of pull requests, or both"),
	OPT_STRING(0, "branch", "NAME", &ho.branch, "only runs whose spec or an implementation was on NAME"),
	OPT_END(),
};

static int cmd_history(struct cmd_ctx *c)
{
	struct history h;
	struct sbuf out = SBUF_INIT;
	char *json = NULL;
	int ret = EXIT_USAGE;

	if (c->json)
		format = "json";
	if (strcmp(format, "md") && strcmp(format, "json") && strcmp(format, "html"))
		return error("history: --format %s: expected md, json or html", format), EXIT_USAGE;
	if (!strcmp(kind, "run"))
		ho.kind = HISTORY_RUNS;
	else if (!strcmp(kind, "rerun"))
		ho.kind = HISTORY_RERUNS;
	else if (!strcmp(kind, "all"))
		ho.kind = HISTORY_ALL;
	else
		return error("history: --kind %s: expected run, rerun or all", kind), EXIT_USAGE;
	ho.runs_dir = c->runs_dir;
	if (history_load(&h, &ho))
		goto out;
	if (!strcmp(format, "json")) {
		json = history_json(&h);
		fputs(json, stdout);
	} else if (!strcmp(format, "html")) {
		history_html(&h, &out);
		fwrite(out.buf, 1, out.len, stdout);
	} else {
		history_md(&h, &out);
		fwrite(out.buf, 1, out.len, stdout);
	}
	ret = EXIT_OK;
out:
	history_release(&h);
	free(json);
	sbuf_release(&out);
	return ret;
}

const struct cmd_desc cmd_history_desc = {
	.name = "history",
	.summary = "one spec's knee, cost, memory and latency over runs, with the steps",
	.synopsis = "[options]",
	.about =
	"Every run of one spec under the runs directory, oldest first, per\n"
	"implementation: the knee with its interval (the one knee rule), the cost\n"
	"per request (us, CPU over completed requests of the accepted ladder\n"
	"windows) and the memory (MiB, mean of the windows' anonymous-memory\n"
	"medians) and the SLO percentile (ms, request-weighted over the windows'\n"
	"merged histograms) at the ladder's fixed rates, each with a 95% t interval\n"
	"over the log of its windows' values (a factor around the value: never\n"
	"below zero), and the SLO percentile at the highest rung the knee holds at;\n"
	"and the steps: a change between consecutive runs whose intervals\n"
	"do not overlap, larger than compare.margin_pct, that the next run keeps\n"
	"(the last run's is reported unconfirmed); docs/history.md gives the rule.\n"
	"--kind run (default) lists the runs made from the spec (nightly), --kind\n"
	"rerun the reruns of pull requests (runs with a parent), --kind all both;\n"
	"--branch NAME the runs whose spec or an implementation was on branch NAME.\n"
	"--format md (default) is a table per implementation; json (or --json)\n"
	"{spec, percentile, runs, impls: [{name, rates_rps, points (knee_rps,\n"
	"knee_latency_ms, cpu_us_per_request, memory_mib, latency_ms), steps}]};\n"
	"html one page with the knee chart (data-chart=\"history_knee\").\n"
	"Exit: 0, even with steps (a report, not a gate: `harness compare` is the\n"
	"gate); 2 no run of the spec, unknown implementation, bad arguments, or a\n"
	"run of the spec whose database is damaged. A run directory whose runs\n"
	"row cannot be read at all (so its spec is unknown) is named on standard\n"
	"error and left out, as `harness runs` lists it unreadable.\n",
	.opts = options,
	.flags = CMD_RUNS_DIR | CMD_JSON,
	.max_args = 0,
	.fn = cmd_history,
};
