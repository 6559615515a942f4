/*
 * cmd: the subcommands, one file each (cmd_<name>.c), dispatched by main.c
 * through one table of descriptors (git's commands[] with RUN_SETUP).
 *
 * A command declares a struct cmd_desc: its name, synopsis, prose, option
 * table (opt.h) and flags. cmd_main() parses argv with the table (adding
 * --runs-dir and --json when the flags ask), prints the usage generated
 * from it for -h/--help, refuses a bad flag or argument count with one
 * line and exit 2, resolves RUN (an id under the runs directory, a run
 * directory, or `latest`) and opens its database, once, before the
 * command's fn runs, then releases all of it after.
 *
 * Option targets are the command file's statics: one command runs per
 * process.
 */
#ifndef HARNESS_CMD_H
#define HARNESS_CMD_H

#include <stdio.h>

#include "base/opt.h"
#include "store/store.h"
#include "base/util.h"

enum cmd_flags {
	CMD_RUNS_DIR = 1 << 0,   /* takes --runs-dir D (ctx->runs_dir, resolved) */
	CMD_JSON = 1 << 1,       /* takes --json (ctx->json) */
	CMD_RUN = 1 << 2,        /* the first argument is RUN: resolved and its
				    database opened (implies CMD_RUNS_DIR) */
	CMD_RUN_OPTIONAL = 1 << 3, /* with CMD_RUN: RUN may be absent */
	CMD_RUN_LATEST = 1 << 4, /* with CMD_RUN: absent RUN means `latest` */
	CMD_RUN2 = 1 << 5,       /* with CMD_RUN: the second argument is a RUN
				    too, resolved and opened alike (compare's
				    BASE NEW; ctx->st2) */
};

struct cmd_ctx;

struct cmd_desc {
	const char *name;
	const char *summary;     /* one line for `harness --help` */
	const char *synopsis;    /* after "usage: harness NAME "; '\n' between forms */
	const char *about;       /* prose after the usage lines (NULL: none) */
	const struct opt *opts;  /* ends with OPT_END() */
	int flags;
	int min_args, max_args;  /* arguments besides options (RUN included) */
	int (*fn)(struct cmd_ctx *c);
};

struct cmd_ctx {
	const struct cmd_desc *desc;
	char **args;             /* the arguments, in order (RUN first) */
	int nargs;
	const char *runs_dir;    /* --runs-dir, $HARNESS_RUNS_DIR or ./runs */
	int runs_dir_given;      /* --runs-dir was given */
	int json;                /* --json given */
	/* CMD_RUN with a RUN: */
	const char *run;         /* as given (NULL: none) */
	struct store st;         /* its database, open */
	struct sbuf run_dir;     /* its directory */
	struct sbuf run_id;      /* its id */
	/* CMD_RUN2 with a second RUN: the same for it (it may be the first) */
	const char *run2;
	struct store st2;
	struct sbuf run_dir2;
	struct sbuf run_id2;
};

/* Parse, set up, run d->fn and release; the process exit code. */
int cmd_main(const struct cmd_desc *d, int argc, char **argv);
/* The usage generated from d and its table. */
void cmd_usage(const struct cmd_desc *d, FILE *f);

extern const struct cmd_desc cmd_check_desc, cmd_schema_desc, cmd_load_desc, cmd_probe_desc,
	cmd_run_desc, cmd_resume_desc, cmd_status_desc, cmd_audit_desc, cmd_report_desc,
	cmd_knee_desc, cmd_rerun_desc, cmd_compare_desc, cmd_runs_desc, cmd_history_desc,
	cmd_agent_desc;

#endif
