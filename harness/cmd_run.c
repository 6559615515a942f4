/* cmd_run: `harness run spec.yaml`. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "runner.h"
#include "util.h"

static const char usage[] =
	"usage: harness run SPEC.yaml [--runs-dir D] [--run-id ID] [--allow-dirty]\n"
	"                  [--stages ladder,confirm,soak]\n"
	"\n"
	"Runs a frozen spec: builds each implementation once, then the ladder\n"
	"(with refine, when the spec has it: midpoints of each knee's bracket),\n"
	"confirm and soak stages as counterbalanced blocks of windows (warm-up\n"
	"gates, discard, measured window, window gates), one sqlite transaction per\n"
	"window in RUNS_DIR/<run-id>/run.db. A window rejected for a validity\n"
	"reason is replaced in a later block, up to retries.max_per_cell per cell\n"
	"(stage x rate x implementation); failed windows are valid, never replaced.\n"
	"\n"
	"  --runs-dir D    where runs live (default $HARNESS_RUNS_DIR or ./runs)\n"
	"  --run-id ID     name the run (default: UTC time and host name)\n"
	"  --allow-dirty   accept a spec with uncommitted changes; the run is\n"
	"                  stamped exploratory in the database and every report\n"
	"  --stages LIST   run only these stages (default: all the spec declares;\n"
	"                  refine runs with the ladder)\n"
	"\n"
	"The run id is the first line of standard output; progress goes to\n"
	"standard error. SIGINT/SIGTERM finish the current transaction, stop the\n"
	"implementations and exit; `harness resume RUN` continues.\n"
	"At the end a run quality line goes to standard error: windows by status\n"
	"(accepted, failed, rejected), the gate that rejected the most, and the\n"
	"host's load average at the start and end; every report repeats it.\n"
	"Exit: 0 finished; 1 finished but a stage measured nothing usable, or\n"
	"interrupted; 2 bad spec or arguments; 3 environment error (build failed,\n"
	"implementation never healthy, no cgroup access).\n";

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int i;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--allow-dirty")) {
			o.allow_dirty = 1;
		} else if (!strcmp(a, "--runs-dir") && i + 1 < argc) {
			o.runs_dir = argv[++i];
		} else if (!strcmp(a, "--run-id") && i + 1 < argc) {
			o.run_id = argv[++i];
			if (!*o.run_id || strchr(o.run_id, '/') || o.run_id[0] == '.') {
				error("run: --run-id: '%s' is not a valid run id", o.run_id);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--stages") && i + 1 < argc) {
			if (runner_parse_stages(argv[++i], &o.stages)) {
				error("run: --stages: '%s': expected ladder, confirm, soak", argv[i]);
				return EXIT_USAGE;
			}
		} else if (a[0] == '-') {
			error("run: unknown option '%s'; see 'harness run --help'", a);
			return EXIT_USAGE;
		} else if (!o.spec_path) {
			o.spec_path = a;
		} else {
			error("run: unexpected argument '%s'", a);
			return EXIT_USAGE;
		}
	}
	if (!o.spec_path) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	return runner_run(&o);
}
