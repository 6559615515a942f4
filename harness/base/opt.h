/*
 * opt: option tables (git's parse-options, reduced). A command declares its
 * options once, as a table of {kind, name, value placeholder, target, help};
 * opt_parse() reads argv with it and opt_usage() prints the usage from the
 * same table, so the --help text can never name an option the parser does
 * not know, or miss one it does.
 *
 * Syntax: `--name VALUE` or `--name=VALUE`; `-x VALUE` for an option with a
 * short name; `--` ends the options; `-` alone is an argument (standard
 * input). Options and arguments may be mixed.
 *
 * Units, the same for every command (docs/cli.md):
 *   OPT_RATE      requests per second; a k or M suffix multiplies by 10^3
 *                 or 10^6 (`--rate 1k`, `--rate 2.5k`)
 *   OPT_DURATION  seconds; suffix ms, s, m or h (`--duration 90`, `1500ms`,
 *                 `2m`)
 *
 * Errors: every refusal is one line through error() naming the command and
 * the option ("audit: unknown option '--x'; see 'harness audit --help'"),
 * and opt_parse() returns -1; the caller exits 2 (EXIT_USAGE).
 *
 * Ownership: tables and targets are the caller's; string targets point into
 * argv (never copied).
 */
#ifndef HARNESS_OPT_H
#define HARNESS_OPT_H

#include <stdio.h>

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_BOOL,       /* int *: set to 1 */
	OPT_KIND_STRING,     /* const char **: the value */
	OPT_KIND_LONG,       /* long *: an integer in [min, max] */
	OPT_KIND_NUMBER,     /* double *: a finite number in [min, max] */
	OPT_KIND_RATE,       /* double *: requests/s > 0, suffix k or M */
	OPT_KIND_DURATION,   /* double *: seconds > 0, suffix ms, s, m or h */
	OPT_KIND_CALLBACK,   /* cb(opt, value): 0, or -1 after one error() */
	OPT_KIND_SET,        /* const char **: set to opt->str (e.g. --json) */
};

struct opt {
	enum opt_kind kind;
	char short_name;     /* 0: none */
	const char *name;    /* long name without "--" */
	const char *argh;    /* the value's placeholder in the usage (NULL: no value) */
	void *value;
	const char *help;    /* NULL: accepted but not listed (kept for old scripts) */
	double min, max;     /* LONG and NUMBER: the accepted range, inclusive */
	int (*cb)(const struct opt *o, const char *arg);
	const char *str;     /* SET: the string stored */
};

#define OPT_BOOL(s, l, v, h) { OPT_KIND_BOOL, s, l, NULL, v, h, 0, 0, NULL, NULL }
#define OPT_STRING(s, l, a, v, h) { OPT_KIND_STRING, s, l, a, v, h, 0, 0, NULL, NULL }
#define OPT_LONG(l, a, v, lo, hi, h) { OPT_KIND_LONG, 0, l, a, v, h, lo, hi, NULL, NULL }
#define OPT_NUMBER(l, a, v, lo, hi, h) { OPT_KIND_NUMBER, 0, l, a, v, h, lo, hi, NULL, NULL }
#define OPT_RATE(l, v, h) { OPT_KIND_RATE, 0, l, "R", v, h, 0, 0, NULL, NULL }
#define OPT_DURATION(l, v, h) { OPT_KIND_DURATION, 0, l, "D", v, h, 0, 0, NULL, NULL }
#define OPT_CALLBACK(l, a, cb, h) { OPT_KIND_CALLBACK, 0, l, a, NULL, h, 0, 0, cb, NULL }
#define OPT_SET(l, v, s, h) { OPT_KIND_SET, 0, l, NULL, v, h, 0, 0, NULL, s }
#define OPT_END() { OPT_KIND_END, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }

/* The option set of one command: several tables (its own, then the
 * common ones the dispatcher adds), each ending with OPT_END(). */
struct opt_set {
	const char *cmd;                 /* "audit": names it in messages */
	const struct opt *const *tables; /* NULL-terminated */
};

/* True when argv (argv[0] the command) holds -h or --help before "--". */
int opt_wants_help(int argc, char **argv);

/* Parse argv[1..argc-1]. The arguments that are not options are stored,
 * in order, in args (caller-allocated, argc entries) and counted in
 * *nargs. 0, or -1 after one error() line naming the option. */
int opt_parse(const struct opt_set *s, int argc, char **argv, char **args, int *nargs);

/* Print the options of every table, one per line (help text lines after
 * the first are indented under it), then -h, --help. */
void opt_print_options(const struct opt_set *s, FILE *f);

/* "1k" -> 1000, "2.5k" -> 2500, "1M" -> 1e6, "750" -> 750; 0 or -1. Any
 * finite value > 0. */
int opt_parse_rate(const char *s, double *out);
/* "90" -> 90, "1500ms" -> 1.5, "2m" -> 120, "1h" -> 3600; 0 or -1. Any
 * finite value > 0. */
int opt_parse_duration(const char *s, double *out);

#endif
