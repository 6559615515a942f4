/* cmd_resume: `harness resume RUN`. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "runner.h"
#include "store.h"
#include "util.h"

static const char usage[] =
	"usage: harness resume RUN [--runs-dir D] [--force]\n"
	"\n"
	"Continues an interrupted run at its first unfinished window. A window that\n"
	"was in flight when the harness stopped is discarded and run again (an event\n"
	"records it). Refuses (exit 2) when the spec file on disk no longer hashes to\n"
	"the stored hash or an implementation's commit changed, unless --force,\n"
	"which continues and stamps the run as forced.\n"
	"Ends like `harness run`: the run quality line on standard error, the\n"
	"report, and run's exit codes.\n";

int cmd_resume(int argc, char **argv)
{
	const char *runs_dir = NULL, *run = NULL;
	struct sbuf dir = SBUF_INIT;
	int i, force = 0, ret;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (!strcmp(argv[i], "--runs-dir") && i + 1 < argc)
			runs_dir = argv[++i];
		else if (argv[i][0] == '-') {
			error("resume: unknown option '%s'; see 'harness resume --help'", argv[i]);
			return EXIT_USAGE;
		} else if (!run)
			run = argv[i];
		else {
			error("resume: unexpected argument '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!run) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (store_run_dir(store_runs_dir(runs_dir), run, &dir)) {
		sbuf_release(&dir);
		return EXIT_USAGE;
	}
	ret = runner_resume(dir.buf, force);
	sbuf_release(&dir);
	return ret;
}
