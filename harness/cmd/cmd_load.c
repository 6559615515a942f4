/*
 * cmd_load: `harness load URL ...` and `harness load spec.yaml --impl NAME
 * --url URL ...`: drive open-loop load with the engine in load.c and print
 * what it measured (text, or --json for scripts). This file drives the
 * load (locally or from agents) and stops it on SIGINT/SIGTERM; the
 * options are cmd_load_opts.c's, a spec's workload and implementation
 * cmd_load_spec.c's, the printing cmd_load_print.c's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "cmd/cmd_load_opts.h"
#include "cmd/cmd_load_print.h"
#include "cmd/cmd_load_spec.h"
#include "agent/fleet.h"
#include "load/load.h"
#include "sut/sut.h"
#include "base/util.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
}

struct progress {
	double duration;
	int tty;
};

static int on_second(void *ctx, unsigned index, const struct load_stats *s)
{
	struct progress *p = ctx;

	if (!p->tty)
		return 0;
	fprintf(stderr, "\r[%3u/%.0f s] %6llu done  p99 %8.3f ms  errors %llu  dropped %llu   ",
		index + 1, p->duration, (unsigned long long)s->counts.completed,
		hist_percentile_ms(&s->latency, 99),
		(unsigned long long)(load_counts_errors(&s->counts) + s->counts.unexpected),
		(unsigned long long)s->counts.dropped);
	return 0;
}

/* --------------------------------------------------------------- main */

/* The load from o's agents: links opened (each checked for its version),
 * the load run and merged, per-agent lines (text) or JSON into *extra.
 * EXIT_OK, or EXIT_ENV after a message when an agent cannot be used or
 * was lost (*ran: the merged result is filled, for printing). */
static int run_agents(const struct load_config *cfg, const struct cmd_load_opts *o,
		      struct load_result *res, struct sbuf *extra, json_t **agents, int *ran)
{
	struct agent_opts ao = { o->agent_binary, o->ssh_options, o->nssh, 0 };
	struct agent_link *links = xcalloc(o->nagents, sizeof(*links));
	struct fleet_gen *gens = xcalloc(o->nagents, sizeof(*gens));
	struct fleet_agent *out = xcalloc(o->nagents, sizeof(*out));
	size_t i, opened = 0;
	int ret = EXIT_ENV;

	*ran = 0;
	for (i = 0; i < o->nagents; i++, opened++) {
		if (agent_link_open(&links[i], o->agents[i], &ao))
			goto out;
		gens[i].link = &links[i];
		gens[i].cpus = o->cpus;
	}
	if (fleet_run(cfg, gens, o->nagents, res, out))
		goto out;
	*ran = 1;
	ret = EXIT_OK;
	if (o->json)
		*agents = fleet_json(gens, out, o->nagents);
	else
		fleet_add_text(extra, gens, out, o->nagents);
	for (i = 0; i < o->nagents; i++) {
		if (out[i].lost) {
			fprintf(stderr, "harness: load: %s: the load is void\n", out[i].why);
			ret = EXIT_ENV;
		}
	}
	for (i = 0; i < o->nagents; i++)
		fleet_agent_release(&out[i]);
out:
	for (i = 0; i < opened; i++)
		agent_link_close(&links[i]);
	free(links);
	free(gens);
	free(out);
	return ret;
}

/* Run the load with SIGINT/SIGTERM stopping it early, and print what it
 * measured. EXIT_OK, or EXIT_ENV when the engine could not run. */
static int drive(struct load_config *cfg, const struct cmd_load_opts *o)
{
	struct sbuf extra = SBUF_INIT;
	json_t *agents = NULL;
	struct load_result res;
	struct progress prog;
	struct sigaction sa, old_int, old_term, old_hup;
	const char *tname;
	int ret = EXIT_OK, ran = 1, aret = EXIT_OK;

	memset(&res, 0, sizeof(res));
	tname = cfg->transport == TRANSPORT_CURL ? "curl" :
		cfg->transport == TRANSPORT_NATIVE ? "native" :
		!strncasecmp(cfg->url, "https://", 8) || cfg->http == HTTPV_H2C ? "curl" : "native";
	prog.duration = o->duration;
	prog.tty = stderr_is_tty();
	cfg->on_second = on_second;
	cfg->ctx = &prog;
	cfg->stop = &stop_flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (o->nagents)
		aret = run_agents(cfg, o, &res, &extra, &agents, &ran);
	else if (load_run(cfg, &res))
		ran = 0;
	if (!ran) {
		ret = EXIT_ENV;
	} else {
		if (prog.tty)
			fputc('\n', stderr);
		if (o->json)
			cmd_load_print_json(cfg, &res, tname, o->error_rate_max, agents);
		else
			cmd_load_print_text(cfg, &res, tname, o->error_rate_max);
		if (!o->json && extra.len)
			fwrite(extra.buf, 1, extra.len, stdout);
		if (aret)
			ret = aret;
		else if (cmd_load_error_rate(&res.total.counts) > o->error_rate_max) {
			fprintf(stderr, "harness: load: %s: error rate %.6g is above --error-rate-max %g\n",
				cfg->url, cmd_load_error_rate(&res.total.counts), o->error_rate_max);
			ret = EXIT_NEGATIVE;
		}
	}
	load_result_release(&res);
	sbuf_release(&extra);
	json_decref(agents);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return ret;
}

static int cmd_load(struct cmd_ctx *c)
{
	struct cmd_load_opts *o = cmd_load_opts_get();
	struct load_config cfg;
	struct load_request req;
	struct sbuf body = SBUF_INIT;
	const char *target = NULL;
	struct spec *spec = NULL;
	struct sut *sut = NULL;
	int ret, is_url;

	memset(&cfg, 0, sizeof(cfg));
	o->target = c->args[0];
	o->json = c->json;
	ret = cmd_load_check_args(o);
	if (ret)
		goto out;
	is_url = cmd_load_target_is_url(o->target);
	ret = cmd_load_check_target(o, is_url, &target);
	if (!ret)
		ret = is_url ? cmd_load_url_workload(o, &req, &body, &cfg)
			     : cmd_load_spec_workload(o, c->runs_dir, &spec, &sut, &cfg, &target);
	if (ret)
		goto out;
	cfg.url = target;
	cmd_load_apply(o, &cfg);
	ret = drive(&cfg, o);
out:
	cmd_load_opts_release(o);
	sbuf_release(&body);
	if (sut)
		sut_free(sut);
	spec_free(spec);
	return ret;
}

const struct cmd_desc cmd_load_desc = {
	.name = "load",
	.summary = "drive open-loop load at a URL or a spec's implementation",
	.synopsis = "URL --rate R --duration D [options]\n"
		    "SPEC.yaml --impl NAME [--url URL] --rate R --duration D [options]",
	.about =
	"Open-loop load: request k is due at start + k/R (constant) or after\n"
	"exponential gaps (poisson), whatever the server does. Latency is measured\n"
	"from that intended send time (a stalled server shows its stall), service\n"
	"time from the actual send. Lateness is actual - intended send: it includes\n"
	"waiting for a free connection (the server's backpressure). Schedule lag is\n"
	"intended send -> the generator handling the request (sent, queued or\n"
	"dropped): the generator's own health, which the generator gate judges.\n"
	"A due request with no free connection waits in a backlog of --backlog-max;\n"
	"beyond it, it is counted as dropped.\n"
	"\n"
	"Accounting: every due request (\"requests\") ends as completed (by status\n"
	"class), an error (connect, reset, timeout, parse, other) or dropped. A\n"
	"completed response that is not what the request expects (default: any 2xx\n"
	"or 3xx; a spec's expect, or --expect-status / --expect-body / --expect-type)\n"
	"is also counted as unexpected, and the first few are shown with what came\n"
	"back. A\n"
	"response cut short after its status line is unexpected (truncated). When\n"
	"the duration is over, requests still in flight or in the backlog get up\n"
	"to --timeout-ms more to finish; the rest are counted as timeout errors.\n"
	"A request is attributed to the second in which it completed or failed.\n"
	"A kept-alive connection that breaks before any response byte gets its\n"
	"request re-sent once on a new connection (keeping its send times).\n"
	"\n"
	"CPU: above 4000 req/s per thread a generator thread wakes on a short tick\n"
	"(about 4 requests, 200..600 us) instead of for every event; sends are then\n"
	"up to one tick late, which shows as lateness and in latency.\n"
	"\n"
	"Scheduling: each generator thread runs SCHED_FIFO at priority 1 where\n"
	"permitted (root, CAP_SYS_NICE or ulimit -r 1), so it wakes on time on a\n"
	"busy host; else SCHED_OTHER. The last line says how many did\n"
	"(JSON generator_rt_threads). Processes the harness starts never inherit it.\n"
	"\n"
	"With a spec, the workload (requests, vars, arrival, connections,\n"
	"backlog_max, timeout_ms, threads, transport, http, tls, seed) comes from\n"
	"the spec; options given on the command line override it. A templated\n"
	"workload (vars) draws its pool of workload.pool requests (default: those\n"
	"due, rate x duration) from the seed; the same seed sends the same ids.\n"
	"A spec's implementation started by load\n"
	"logs into RUNS_DIR/load-<time>-<pid>/logs; one whose spec says\n"
	"`sandbox: always` runs in bwrap as in a run (its own uid, its repo\n"
	"read-only, its own network, reached from inside it; needs root), said\n"
	"on stderr with the bwrap argv. Progress is printed to stderr each\n"
	"second when stderr is a terminal. Latencies print as - when no request\n"
	"completed. Exit: 0 when the error rate is at most --error-rate-max, 1 when\n"
	"it is above, 2 bad arguments, 3 setup failure (an agent unreachable, of\n"
	"another version, or lost during the load).\n",
	.opts = cmd_load_options,
	.flags = CMD_RUNS_DIR | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_load,
};
