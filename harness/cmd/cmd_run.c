/* cmd_run: `harness run spec.yaml`. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "runner/runner.h"
#include "base/util.h"

static struct run_opts o;

static int opt_run_id(const struct opt *opt, const char *v)
{
	if (runner_check_run_id("run", v))
		return -1;
	o.run_id = v;
	return 0;
}

static int opt_stages(const struct opt *opt, const char *v)
{
	if (runner_parse_stages(v, &o.stages))
		return error("run: --stages: '%s': expected saturation, ladder, confirm, soak", v);
	return 0;
}

static const struct opt options[] = {
	OPT_CALLBACK("run-id", "ID", opt_run_id,
		     "name the run: A-Z a-z 0-9 . _ -, not first . or -, at most\n"
		     "64 (default: UTC time and host name)"),
	OPT_BOOL(0, "allow-dirty", &o.allow_dirty,
		 "accept a spec with uncommitted changes; the run is\n"
		 "stamped exploratory in the database and every report"),
	OPT_CALLBACK("stages", "LIST", opt_stages,
		     "run only these stages (default: all the spec declares;\n"
		     "refine runs with the ladder)"),
	OPT_END(),
};

static int cmd_run(struct cmd_ctx *c)
{
	o.spec_path = c->args[0];
	o.runs_dir = c->runs_dir;
	return runner_run(&o);
}

const struct cmd_desc cmd_run_desc = {
	.name = "run",
	.summary = "run a spec: ladder, confirm, soak; print the run id",
	.synopsis = "SPEC.yaml [options]",
	.about =
	"Runs a frozen spec: builds each implementation once, then the ladder\n"
	"(with refine, when the spec has it: midpoints of each knee's bracket),\n"
	"confirm and soak stages as counterbalanced blocks of windows (warm-up\n"
	"gates, discard, measured window, window gates), one sqlite transaction per\n"
	"window in RUNS_DIR/<run-id>/run.db. A window rejected for a validity\n"
	"reason is replaced in a later block, up to retries.max_per_cell per cell\n"
	"(stage x rate x implementation), then more within retries.extra_time_pct\n"
	"of the time the pre-registered windows took; failed windows are valid,\n"
	"never replaced.\n"
	"\n"
	"The run id is the first line of standard output; progress goes to\n"
	"standard error. SIGINT/SIGTERM/SIGHUP finish the current transaction, stop\n"
	"the implementations and exit; `harness resume RUN` continues.\n"
	"At the end a run quality line goes to standard error: windows by status\n"
	"(accepted, failed, rejected), the gate that rejected the most, and the\n"
	"host's load average at the start and end; every report repeats it.\n"
	"Exit: 0 finished; 1 finished but a stage measured nothing usable, or\n"
	"interrupted; 2 bad spec or arguments; 3 environment error (build failed,\n"
	"implementation never healthy, no cgroup access).\n",
	.opts = options,
	.flags = CMD_RUNS_DIR,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_run,
};
