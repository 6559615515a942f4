/* main: the subcommand table (git's {name, fn} dispatch). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

struct cmd_struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "check", cmd_check, "validate a spec and print the plan and its hash" },
	{ "schema", cmd_schema, "print the JSON Schema of the spec language" },
	{ "load", cmd_load, "drive open-loop load at a URL or a spec's implementation" },
	{ "probe", cmd_probe, "start one implementation and print its accounting and signals" },
	{ "run", cmd_run, "run a spec: ladder, confirm, soak; print the run id" },
	{ "resume", cmd_resume, "continue an interrupted run at its first unfinished window" },
	{ "status", cmd_status, "list runs, or one run's progress" },
	{ "audit", cmd_audit, "rejected windows: gate, statistic, threshold, evidence" },
	{ "report", cmd_report, "write a run's report (md, html, json, csv)" },
	{ "knee", cmd_knee, "fit per-implementation knees from a windows CSV" },
	{ "rerun", cmd_rerun, "re-run a stored spec with implementations from git refs" },
	{ "compare", cmd_compare, "compare two runs and give a verdict (exit 1 on regression)" },
	{ "runs", cmd_runs, "list runs with id, spec, date, commits, status" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: harness <command> [options]\n"
		   "       harness --version | --help\n\n"
		   "Benchmark orchestration and gating: open-loop load, kernel accounting,\n"
		   "pre-registered gates, audit and provenance.\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`harness <command> --help` describes each command. Exit codes:\n"
		   "0 success, 1 negative answer, 2 usage or input error, 3 environment error.\n");
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

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
		if (strcmp(argv[1], commands[i].name))
			continue;
		ret = commands[i].fn(argc - 1, argv + 1);
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
