/*
 * cmd_load_opts: the options of `harness load` (cmd_load.c): the option
 * table, the struct it fills, the checks the table cannot make alone,
 * the one request of `harness load URL`, and the command line's
 * overrides of any workload (a URL's or a spec's, cmd_load_spec.h).
 *
 * Ownership: the table's target is one static struct cmd_load_opts in
 * cmd_load_opts.c (one command runs per process, cmd.h). Its strings point into argv; the
 * headers, agents, ssh options and statuses it collects are its own, freed
 * by cmd_load_opts_release. Every function that refuses prints one line
 * `harness: load: ...` and returns EXIT_USAGE (util.h).
 */
#ifndef HARNESS_CMD_LOAD_OPTS_H
#define HARNESS_CMD_LOAD_OPTS_H

#include <stddef.h>

#include "load/load.h"
#include "base/opt.h"
#include "base/util.h"

struct cmd_load_opts {
	const char *target, *url, *impl, *method, *body, *transport, *arrival;
	const char *cpus, *send_times, *cacert, *http;
	int insecure;
	double rate, duration;
	long connections, threads, timeout_ms, backlog_max, seed, batch_us;
	int json, build;
	double error_rate_max;
	const char *expect_body, *expect_type;
	int *expect_status;
	size_t nexpect_status;
	struct kv *headers;
	size_t nheaders, aheaders;
	const char **agents, **ssh_options, *agent_binary;
	size_t nagents, aagents, nssh, assh;
	int part, parts;
};

/* The table (cmd_load_desc.opts), and the struct it fills (numbers -1
 * when not given). */
extern const struct opt cmd_load_options[];
struct cmd_load_opts *cmd_load_opts_get(void);

/* What the table cannot say alone (--rate and --duration required and
 * bounded, the agent options together). 0 or EXIT_USAGE. */
int cmd_load_check_args(const struct cmd_load_opts *o);

/* A URL, or a spec file (anything with a '.' and no scheme). */
int cmd_load_target_is_url(const char *t);

/* The options that go with a URL or with a spec, and the URL's syntax
 * (*target: the URL given, or NULL for a spec without --url). 0 or
 * EXIT_USAGE. */
int cmd_load_check_target(const struct cmd_load_opts *o, int is_url, const char **target);

/* `harness load URL`: one request kind (*req) from --method, --header and
 * --body (--body @FILE read into body), with the spec language's workload
 * defaults, into cfg. cfg and req point into o and body, which must
 * outlive them. 0 or EXIT_USAGE. */
int cmd_load_url_workload(const struct cmd_load_opts *o, struct load_request *req,
			  struct sbuf *body, struct load_config *cfg);

/* The command line's options override the workload's (threads capped at
 * connections). */
void cmd_load_apply(const struct cmd_load_opts *o, struct load_config *cfg);

/* Free what o collected; its strings (argv's) stay. */
void cmd_load_opts_release(struct cmd_load_opts *o);

#endif
