/* main: the subcommand table (git's {name, fn} dispatch). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/testhook.h"
#include "base/util.h"

/* Every command, in the order `harness --help` lists them; each file's
 * descriptor carries its options, flags and summary (cmd.h). */
static const struct cmd_desc *const commands[] = {
	&cmd_check_desc, &cmd_schema_desc, &cmd_load_desc, &cmd_probe_desc, &cmd_run_desc,
	&cmd_resume_desc, &cmd_status_desc, &cmd_audit_desc, &cmd_report_desc, &cmd_knee_desc,
	&cmd_rerun_desc, &cmd_compare_desc, &cmd_runs_desc, &cmd_history_desc, &cmd_agent_desc,
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: harness <command> [options]\n"
		   "       harness --version | --help\n\n"
		   "Benchmark orchestration and gating: open-loop load, kernel accounting,\n"
		   "pre-registered gates, audit and provenance.\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n`harness <command> --help` describes each command. Exit codes:\n"
		   "0 success, 1 negative answer, 2 usage or input error, 3 environment error.\n");
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	testhook_read();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("harness %s\n", harness_version);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i]->name))
			continue;
		ret = cmd_main(commands[i], argc - 1, argv + 1);
		/* git's rule: a full disk or closed pipe must not exit 0. */
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "harness: error writing standard output\n");
			if (ret == EXIT_OK)
				ret = EXIT_ENV;
		}
		return ret;
	}
	fprintf(stderr, "harness: '%s' is not a command; see 'harness --help'\n", argv[1]);
	return EXIT_USAGE;
}
