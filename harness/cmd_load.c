/*
 * cmd_load: `harness load URL ...` and `harness load spec.yaml --impl NAME
 * --url URL ...`: drive open-loop load with the engine in load.c and print
 * what it measured (text, or --json for scripts).
 */
#include <math.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "cmd.h"
#include "jout.h"
#include "load.h"
#include "fleet.h"
#include "load_internal.h"
#include "spec.h"
#include "sut.h"
#include "util.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
}

struct opts {
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

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "harness: load: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* "200,201": statuses 100..599, no repeats. 0 or -1. */
static int parse_statuses(const char *v, struct opts *o)
{
	char *copy = xstrdup(v), *tok, *save = NULL;
	long st;
	size_t i;
	int ret = 0;

	free(o->expect_status);
	o->expect_status = xcalloc(strlen(v) + 1, sizeof(*o->expect_status));
	o->nexpect_status = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_long(tok, &st) || st < 100 || st > 599) {
			ret = -1;
			break;
		}
		for (i = 0; i < o->nexpect_status && o->expect_status[i] != st; i++)
			;
		if (i == o->nexpect_status)
			o->expect_status[o->nexpect_status++] = (int)st;
	}
	free(copy);
	return ret || !o->nexpect_status ? -1 : 0;
}

/* The options that shape the one request of `harness load URL`: 0 when a
 * is one of them (taken), -1 when it is not, EXIT_USAGE after one line. */
static int parse_request_option(struct opts *o, const char *a, const char *v)
{
	if (!strcmp(a, "--method")) {
		if (!*v || strpbrk(v, " \t\r\n:/"))
			return bad("--method: bad method '%s'%s", v, "");
		o->method = v;
	} else if (!strcmp(a, "--header")) {
		const char *colon = strchr(v, ':');
		struct kv *kv;

		if (!colon || colon == v || strpbrk(v, "\r\n"))
			return bad("--header: want 'Name: value', got '%s'%s", v, "");
		XGROW(o->headers, o->aheaders, o->nheaders + 1);
		kv = &o->headers[o->nheaders++];
		kv->key = xstrndup(v, (size_t)(colon - v));
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		kv->value = xstrdup(colon);
	} else if (!strcmp(a, "--body")) {
		o->body = v;
	} else if (!strcmp(a, "--expect-status")) {
		if (parse_statuses(v, o))
			return bad("--expect-status: want statuses 100..599 like 200,201, got '%s'%s",
				   v, "");
	} else if (!strcmp(a, "--expect-body")) {
		if (!*v || strlen(v) > LOAD_EXPECT_MAX_BODY)
			return bad("--expect-body: want 1 to 256 bytes, got '%s'%s", v, "");
		o->expect_body = v;
	} else if (!strcmp(a, "--expect-type")) {
		if (!*v || strlen(v) >= LOAD_CTYPE_MAX || strpbrk(v, "\r\n"))
			return bad("--expect-type: want a media type like application/json, got '%s'%s",
				   v, "");
		o->expect_type = v;
	} else if (!strcmp(a, "--error-rate-max")) {
		if (parse_double(v, &o->error_rate_max) || !(o->error_rate_max >= 0) ||
		    o->error_rate_max > 1)
			return bad("--error-rate-max: want a fraction in 0..1, got '%s'%s", v, "");
	} else {
		return -1;
	}
	return 0;
}

static struct opts o = {
	.connections = -1, .threads = -1, .timeout_ms = -1, .backlog_max = -1, .seed = -1,
	.rate = -1, .duration = -1, .error_rate_max = 0.001,
};

/* --method, --header, --body, --expect-*, --error-rate-max. */
static int opt_request(const struct opt *op, const char *v)
{
	char a[48];

	snprintf(a, sizeof(a), "--%s", op->name);
	return parse_request_option(&o, a, v) ? -1 : 0;
}

static int opt_arrival(const struct opt *op, const char *v)
{
	if (strcmp(v, "constant") && strcmp(v, "poisson"))
		return bad("--arrival: want constant or poisson, got '%s'%s", v, ""), -1;
	o.arrival = v;
	return 0;
}

static int opt_transport(const struct opt *op, const char *v)
{
	if (strcmp(v, "native") && strcmp(v, "curl") && strcmp(v, "auto"))
		return bad("--transport: want native or curl, got '%s'%s", v, ""), -1;
	o.transport = v;
	return 0;
}

static int opt_cacert(const struct opt *op, const char *v)
{
	if (access(v, R_OK))
		return bad("--cacert: cannot read '%s'%s", v, ""), -1;
	o.cacert = v;
	return 0;
}

static int opt_agent(const struct opt *op, const char *v)
{
	const char *why = "";

	if (!strcmp(op->name, "agent")) {
		if (agent_dest_check(v, &why))
			return bad("--agent: '%s': %s", v, why), -1;
		XGROW(o.agents, o.aagents, o.nagents + 1);
		o.agents[o.nagents++] = v;
	} else if (!strcmp(op->name, "agent-binary")) {
		if (agent_binary_check(v, &why))
			return bad("--agent-binary: '%s': %s", v, why), -1;
		o.agent_binary = v;
	} else if (!strcmp(op->name, "ssh-option")) {
		XGROW(o.ssh_options, o.assh, o.nssh + 1);
		o.ssh_options[o.nssh++] = v;
	} else {
		/* --part I/N: this generator's share (load.h), for the tests
		 * of the schedule split */
		if (sscanf(v, "%d/%d", &o.part, &o.parts) != 2 || o.parts < 1 ||
		    o.parts > 1024 || o.part < 0 || o.part >= o.parts)
			return bad("--part: want I/N with 0 <= I < N, got '%s'%s", v, ""), -1;
	}
	return 0;
}

static int opt_http(const struct opt *op, const char *v)
{
	if (strcmp(v, "1.1") && strcmp(v, "2") && strcmp(v, "h2c"))
		return bad("--http: want 1.1, 2 or h2c, got '%s'%s", v, ""), -1;
	o.http = v;
	return 0;
}

static const struct opt options[] = {
	OPT_RATE("rate", &o.rate, "requests per second (> 0; 1k = 1000)"),
	OPT_DURATION("duration", &o.duration, "seconds (> 0; suffix ms, s, m or h allowed)"),
	OPT_CALLBACK("arrival", "A", opt_arrival, "constant (default) or poisson"),
	OPT_LONG("connections", "C", &o.connections, 1, 100000, "connection cap (default 64)"),
	OPT_LONG("threads", "T", &o.threads, 1, 256,
		 "generator threads, one event loop each (default 1)"),
	OPT_CALLBACK("transport", "X", opt_transport,
		     "native (http://, default) or curl (anything);\nhttps:// uses curl"),
	OPT_CALLBACK("method", "M", opt_request, "request method (default GET, POST with --body)"),
	OPT_CALLBACK("header", "'K: V'", opt_request, "add a header (repeatable)"),
	OPT_CALLBACK("body", "B|@FILE", opt_request, "request body, literal or read from FILE"),
	OPT_LONG("timeout-ms", "N", &o.timeout_ms, 1, 100000000,
		 "per-request timeout (default 5000)"),
	OPT_LONG("backlog-max", "N", &o.backlog_max, 0, 100000000,
		 "backlog bound (default 10000)"),
	OPT_LONG("seed", "N", &o.seed, 0, 100000000,
		 "PRNG seed for arrivals, the mix and a spec's request\n"
		 "pool (default 1; with a spec, its seed)"),
	OPT_STRING(0, "cpus", "LIST", &o.cpus, "pin generator threads (e.g. 0 or 2-3)"),
	OPT_CALLBACK("cacert", "FILE", opt_cacert,
		     "curl: verify https servers with these CA certificates"),
	OPT_BOOL(0, "insecure", &o.insecure, "curl: do not verify https servers' certificates"),
	OPT_CALLBACK("http", "V", opt_http,
		     "1.1, 2 (default: HTTP/2 by ALPN over https, 1.1 over\n"
		     "http://) or h2c (HTTP/2 over plain TCP, prior\n"
		     "knowledge; curl transport)"),
	OPT_CALLBACK("expect-status", "LIST", opt_request,
		     "with a URL: the statuses expected, e.g. 200,201\n"
		     "(default: any 2xx or 3xx)"),
	OPT_CALLBACK("expect-body", "TEXT", opt_request,
		     "with a URL: bytes the response body must contain"),
	OPT_CALLBACK("expect-type", "TYPE", opt_request,
		     "with a URL: the Content-Type expected, e.g.\n"
		     "application/json (parameters after ; ignored)"),
	OPT_CALLBACK("error-rate-max", "X", opt_request,
		     "exit 1 when (unexpected + errors + dropped) / requests\n"
		     "exceeds X (default 0.001)"),
	OPT_STRING(0, "impl", "NAME", &o.impl, "with a spec: the implementation to target"),
	OPT_STRING(0, "url", "URL", &o.url,
		   "with a spec: where that implementation already\n"
		   "listens; without it the implementation is started\n"
		   "(and stopped after), waiting for its health URL"),
	OPT_BOOL(0, "build", &o.build, "with a spec and no --url: run its build first"),
	OPT_CALLBACK("agent", "DEST", opt_agent,
		     "drive the load from an agent on DEST (repeatable):\n"
		     "`ssh -T DEST harness agent`, or `local` for one on\n"
		     "this host; the schedule is split between them exactly\n"
		     "(docs/AGENT_PROTOCOL.md) and their histograms merged;\n"
		     "--threads and --cpus apply to each agent"),
	OPT_CALLBACK("agent-binary", "PATH", opt_agent, "the harness binary on the agents' hosts"),
	OPT_CALLBACK("ssh-option", "OPTION", opt_agent, "passed to ssh as -o OPTION (repeatable)"),
	/* hidden: the wake-up policy (load.h), and the arrival-process tests */
	OPT_LONG("batch-us", "US", &o.batch_us, -1, 100000, NULL),
	OPT_STRING(0, "dump-send-times", "FILE", &o.send_times, NULL),
	OPT_CALLBACK("part", "I/N", opt_agent, NULL),
	OPT_END(),
};

/* What the table cannot say alone. 0 or EXIT_USAGE after one line. */
static int check_args(void)
{
	if (o.rate < 0)
		return bad("--rate is required%s%s", "", "");
	if (o.duration < 0)
		return bad("--duration is required%s%s", "", "");
	if (o.rate > 1e7)
		return bad("--rate: at most 10M requests per second%s%s", "", "");
	if (o.duration > 1e7)
		return bad("--duration: at most 1e7 seconds%s%s", "", "");
	if (o.nagents && o.send_times)
		return bad("--dump-send-times is not sent to agents%s%s", "", "");
	if (!o.nagents && (o.agent_binary || o.nssh))
		return bad("--agent-binary and --ssh-option go with --agent%s%s", "", "");
	return 0;
}

/* ----------------------------------------------------------- printing */

/* A percentile in ms, or "-" (JSON: null) when nothing was recorded. */
static const char *pct(char buf[32], const struct hist *h, double p, int json)
{
	if (!h->total)
		return json ? "null" : "-";
	snprintf(buf, 32, "%.3f", hist_percentile_ms(h, p));
	return buf;
}

/* A percentile in ms to the microsecond, or null when nothing was
 * recorded. */
static json_t *pct_json(const struct hist *h, double p)
{
	return h->total ? json_real(round(hist_percentile_ms(h, p) * 1e3) / 1e3) : json_null();
}

static json_t *pcts_json(const struct hist *h, int full)
{
	json_t *o = json_object();

	json_object_set_new(o, "p50", pct_json(h, 50));
	if (full)
		json_object_set_new(o, "p90", pct_json(h, 90));
	json_object_set_new(o, "p99", pct_json(h, 99));
	if (full)
		json_object_set_new(o, "p999", pct_json(h, 99.9));
	json_object_set_new(o, "max", pct_json(h, 100));
	return o;
}

/* (unexpected + transport errors + dropped) / due: what --error-rate-max
 * judges, as the error_rate gate does. */
static double error_rate(const struct load_counts *c)
{
	uint64_t bad = c->unexpected + load_counts_errors(c) + c->dropped;

	return c->due ? (double)bad / (double)c->due : bad ? 1.0 : 0.0;
}

/* A sample's body, printable, at most n bytes. */
static void add_body(struct sbuf *sb, const struct load_sample *x)
{
	size_t i;

	for (i = 0; i < x->body_len; i++)
		sbuf_addf(sb, "%c", x->body[i] >= 0x20 && x->body[i] < 0x7f ? x->body[i] : '.');
}

#define JU(x) json_integer((json_int_t)(x))

static json_t *errors_json(const struct load_counts *c)
{
	json_t *o = json_object();
	int k;

	for (k = 0; k < LERR_KINDS; k++)
		json_object_set_new(o, load_error_name(k), JU(c->errors[k]));
	return o;
}

static json_t *status_json(const struct load_counts *c, int with_other)
{
	json_t *o = json_object();

	json_object_set_new(o, "2xx", JU(c->status[0]));
	json_object_set_new(o, "3xx", JU(c->status[1]));
	json_object_set_new(o, "4xx", JU(c->status[2]));
	json_object_set_new(o, "5xx", JU(c->status[3]));
	if (with_other)
		json_object_set_new(o, "other", JU(c->status_other));
	return o;
}

static const char *req_name(const struct load_config *cfg, size_t i)
{
	return cfg->requests[i].name ? cfg->requests[i].name : "request";
}

/* One line of JSON: every count, the percentiles in ms, the samples of
 * unexpected responses, per request name. */
static void print_json(const struct load_config *cfg, const struct load_result *r,
		       const char *transport, const struct opts *o, json_t *agents)
{
	const struct load_stats *t = &r->total;
	const struct load_counts *c = &t->counts;
	json_t *j = json_object(), *samples = json_array(), *by = json_object();
	char proto[64];
	char *text;
	size_t i;

	json_object_set_new(j, "requests", JU(c->due));
	json_object_set_new(j, "completed", JU(c->completed));
	json_object_set_new(j, "sent", JU(c->sent));
	json_object_set_new(j, "offered_rps", jout_num(r->offered_rps));
	json_object_set_new(j, "achieved_rps", jout_num(r->achieved_rps));
	json_object_set_new(j, "target_rps", jout_num(cfg->rate));
	json_object_set_new(j, "elapsed_s", jout_num(r->elapsed_s));
	json_object_set_new(j, "latency_ms", pcts_json(&t->latency, 1));
	json_object_set_new(j, "service_ms", pcts_json(&t->service, 0));
	json_object_set_new(j, "lateness_ms", pcts_json(&t->lateness, 0));
	json_object_set_new(j, "schedule_lag_ms", pcts_json(&t->sched_lag, 0));
	json_object_set_new(j, "errors", errors_json(c));
	json_object_set_new(j, "status", status_json(c, 1));
	json_object_set_new(j, "unexpected", JU(c->unexpected));
	json_object_set_new(j, "error_rate", jout_num(error_rate(c)));
	json_object_set_new(j, "error_rate_max", jout_num(o->error_rate_max));
	for (i = 0; i < t->nsamples; i++) {
		const struct load_sample *x = &t->samples[i];
		json_t *so = json_object();
		struct sbuf b = SBUF_INIT;

		add_body(&b, x);
		json_object_set_new(so, "request", jout_str(req_name(cfg, x->req)));
		json_object_set_new(so, "status", json_integer(x->status));
		json_object_set_new(so, "why", jout_str(x->why));
		json_object_set_new(so, "body", jout_str(b.buf));
		json_array_append_new(samples, so);
		sbuf_release(&b);
	}
	json_object_set_new(j, "samples", samples);
	json_object_set_new(j, "protocol", jout_str(load_counts_protocol(c, proto, sizeof(proto))));
	json_object_set_new(j, "bytes_sent", JU(c->bytes_sent));
	json_object_set_new(j, "bytes_received", JU(c->bytes_received));
	json_object_set_new(j, "dropped", JU(c->dropped));
	json_object_set_new(j, "generator_cpu_s", jout_num(r->generator_cpu_s));
	json_object_set_new(j, "cpu_us_per_request",
			    jout_num(c->completed ? r->generator_cpu_s * 1e6 / (double)c->completed
						  : 0.0));
	json_object_set_new(j, "transport", jout_str(transport));
	json_object_set_new(j, "threads", json_integer(cfg->threads));
	json_object_set_new(j, "connections", json_integer(cfg->connections));
	json_object_set_new(j, "stopped_early", json_boolean(r->stopped_early));
	for (i = 0; i < t->nreq; i++) {
		const struct load_counts *rc = &t->req_counts[i];
		json_t *ro = json_object();

		json_object_set_new(ro, "requests", JU(rc->due));
		json_object_set_new(ro, "completed", JU(rc->completed));
		json_object_set_new(ro, "unexpected", JU(rc->unexpected));
		json_object_set_new(ro, "dropped", JU(rc->dropped));
		json_object_set_new(ro, "status", status_json(rc, 0));
		json_object_set_new(ro, "errors", errors_json(rc));
		json_object_set_new(ro, "latency_ms", pcts_json(&t->req_latency[i], 1));
		json_object_set_new(by, req_name(cfg, i), ro);
	}
	json_object_set_new(j, "by_request", by);
	if (agents)
		json_object_set_new(j, "agents", json_incref(agents));
	text = jout_dumps_line(j);
	fputs(text, stdout);
	free(text);
}

static void print_text(const struct load_config *cfg, const struct load_result *r,
		       const char *transport, const struct opts *o)
{
	const struct load_stats *t = &r->total;
	const struct load_counts *c = &t->counts;
	char b[5][32];
	size_t i;
	int k;

	printf("%s, %s arrivals, %d connections, %d thread%s, transport %s\n", cfg->url,
	       cfg->arrival == ARRIVAL_POISSON ? "poisson" : "constant", cfg->connections,
	       cfg->threads, cfg->threads == 1 ? "" : "s", transport);
	printf("requests    %llu due, %llu sent, %llu completed, %llu dropped%s\n",
	       (unsigned long long)c->due, (unsigned long long)c->sent,
	       (unsigned long long)c->completed, (unsigned long long)c->dropped,
	       r->stopped_early ? " (stopped early)" : "");
	printf("rate        offered %.1f req/s, achieved %.1f req/s over %.2f s\n",
	       r->offered_rps, r->achieved_rps, r->elapsed_s);
	printf("latency ms  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n",
	       pct(b[0], &t->latency, 50, 0), pct(b[1], &t->latency, 90, 0),
	       pct(b[2], &t->latency, 99, 0), pct(b[3], &t->latency, 99.9, 0),
	       pct(b[4], &t->latency, 100, 0));
	printf("service ms  p50 %s  p99 %s  max %s\n", pct(b[0], &t->service, 50, 0),
	       pct(b[1], &t->service, 99, 0), pct(b[2], &t->service, 100, 0));
	printf("lateness ms p50 %s  p99 %s  max %s\n", pct(b[0], &t->lateness, 50, 0),
	       pct(b[1], &t->lateness, 99, 0), pct(b[2], &t->lateness, 100, 0));
	printf("sched lag   p50 %s  p99 %s  max %s (the generator's own delay)\n",
	       pct(b[0], &t->sched_lag, 50, 0), pct(b[1], &t->sched_lag, 99, 0),
	       pct(b[2], &t->sched_lag, 100, 0));
	printf("status      2xx %llu  3xx %llu  4xx %llu  5xx %llu  other %llu\n",
	       (unsigned long long)c->status[0], (unsigned long long)c->status[1],
	       (unsigned long long)c->status[2], (unsigned long long)c->status[3],
	       (unsigned long long)c->status_other);
	printf("unexpected  %llu (not what the request expects)\n", (unsigned long long)c->unexpected);
	for (i = 0; i < t->nsamples; i++) {
		const struct load_sample *x = &t->samples[i];
		struct sbuf body = SBUF_INIT;

		add_body(&body, x);
		printf("  %s: %s%s%s\n", cfg->requests[x->req].name ? cfg->requests[x->req].name
		       : "request", x->why, body.len ? "; body: " : "", body.len ? body.buf : "");
		sbuf_release(&body);
	}
	printf("errors     ");
	for (k = 0; k < LERR_KINDS; k++)
		printf(" %s %llu", load_error_name(k), (unsigned long long)c->errors[k]);
	printf("\nprotocol    %s; %llu bytes sent, %llu received\n",
	       load_counts_protocol(c, b[0], sizeof(b[0])) ? b[0] : "-",
	       (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_received);
	printf("error rate  %.6g (unexpected + errors + dropped over requests; max %g)\n",
	       error_rate(c), o->error_rate_max);
	printf("generator   %.3f s CPU, %.2f µs per completed request\n", r->generator_cpu_s,
	       c->completed ? r->generator_cpu_s * 1e6 / (double)c->completed : 0.0);
	for (i = 0; t->nreq > 1 && i < t->nreq; i++) {
		const struct load_counts *rc = &t->req_counts[i];

		printf("  %-10s %llu due, %llu completed, %llu unexpected, %llu errors, %llu dropped;"
		       " latency ms p50 %s p99 %s max %s\n",
		       cfg->requests[i].name ? cfg->requests[i].name : "request",
		       (unsigned long long)rc->due, (unsigned long long)rc->completed,
		       (unsigned long long)rc->unexpected,
		       (unsigned long long)load_counts_errors(rc), (unsigned long long)rc->dropped,
		       pct(b[0], &t->req_latency[i], 50, 0), pct(b[1], &t->req_latency[i], 99, 0),
		       pct(b[2], &t->req_latency[i], 100, 0));
	}
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

/* Start (and optionally build) an implementation of the spec; its logs go
 * to runs_dir/load-<time>-<pid>/logs, beside probe's (never a temporary
 * directory nobody removes). 0, or EXIT_ENV after one line. */
static int start_impl(const struct spec *spec, const struct spec_impl *impl, int build,
		      const char *runs_dir, struct sut **out)
{
	struct sbuf dir = SBUF_INIT, label = SBUF_INIT, blog = SBUF_INIT;
	struct sut_config sc;
	struct bind_sandbox sbx;
	const struct bind_sandbox *sb;
	char stamp[32], hide[PATH_MAX];
	time_t now = time(NULL);
	int ret = EXIT_ENV, err;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	sbuf_addf(&dir, "%s/load-%s-%d/logs", runs_dir, stamp, (int)getpid());
	if (mkdir_p(dir.buf, 0755)) {
		error("load: cannot create the log directory %s", dir.buf);
		goto out;
	}
	sbuf_addf(&label, "load.%d.%s", (int)getpid(), impl->name);
	/* sandbox: always holds here as in a run: bwrap, its own uid; the
	 * load then connects inside its namespace (sut_netns) */
	sb = bind_sandbox_always(spec, impl, runs_dir, &sbx, hide, &err);
	if (err)
		goto out;
	if (build && impl->build) {
		struct sut_build_config bc;

		sbuf_addf(&blog, "%s/%s.build.log", dir.buf, impl->name);
		bind_build(&bc, spec, impl, NULL, blog.buf, sb);
		if (sut_build(&bc))
			goto out;
	}
	bind_sut(&sc, spec, impl, NULL, dir.buf, label.buf, sb);
	*out = sut_start(&sc);
	if (!*out)
		goto out;
	if (sb)
		fprintf(stderr, "harness: load: %s: sandbox: always: in bwrap as uid %d, its repo "
			"read-only: %s\n", impl->name, sb->uid, sut_argv_text(*out));
	if (sut_wait_healthy(*out, impl->health_timeout_s))
		goto out;
	fprintf(stderr, "harness: load: %s started at %s (logs in %s)\n", impl->name,
		sut_url(*out), dir.buf);
	ret = 0;
out:
	sbuf_release(&dir);
	sbuf_release(&label);
	sbuf_release(&blog);
	return ret;
}

/* A URL, or a spec file (anything with a '.' and no scheme). */
static int target_is_url(const char *t)
{
	return !strncasecmp(t, "http://", 7) || !strncasecmp(t, "https://", 8) ||
	       strstr(t, "://") != NULL || !strchr(t, '.');
}

/* The options that go with a URL or with a spec, and the URL's syntax
 * (target: the URL given, or NULL for a spec without --url). 0 or
 * EXIT_USAGE after one line. */
static int check_target(const struct opts *o, int is_url, const char **target)
{
	struct load_url u;
	const char *why = "";
	int https;

	if (is_url && (o->impl || o->url || o->build))
		return bad("--impl, --url and --build go with a spec file, not a URL%s%s", "", "");
	if (!is_url && !o->impl)
		return bad("%s: with a spec, give --impl NAME (and --url URL when it already runs)%s",
			   o->target, "");
	if (!is_url && (o->method || o->body || o->nheaders || o->expect_body ||
			o->expect_type || o->nexpect_status))
		return bad("%s: --method, --header, --body and --expect-* do not apply to a spec's"
			   " workload (its requests say what they expect)%s", o->target, "");
	*target = is_url ? o->target : o->url;
	if (!*target)
		return 0;
	if (load_url_parse(*target, &u, &why))
		return bad("bad URL '%s': %s", *target, why);
	https = u.https;
	load_url_release(&u);
	if (https && o->transport && !strcmp(o->transport, "native"))
		return bad("%s: the native transport speaks plain http:// only; use --transport curl%s",
			   *target, "");
	return 0;
}

/* `harness load URL`: one request kind from --method, --header and --body
 * (read into body), with the spec language's workload defaults. */
static int url_workload(const struct opts *o, struct load_request *req, struct sbuf *body,
			struct load_config *cfg)
{
	if (o->body && o->body[0] == '@') {
		if (read_file(o->body + 1, body, 0))
			return EXIT_USAGE;
	} else if (o->body) {
		sbuf_adds(body, o->body);
	}
	memset(req, 0, sizeof(*req));
	req->name = (char *)"request";
	req->weight = 1;
	req->method = (char *)(o->method ? o->method : o->body ? "POST" : "GET");
	req->headers = o->headers;
	req->nheaders = o->nheaders;
	req->expect.status = o->expect_status;
	req->expect.nstatus = o->nexpect_status;
	req->expect.body_contains = (char *)o->expect_body;
	req->expect.body_contains_len = o->expect_body ? strlen(o->expect_body) : 0;
	req->expect.content_type = (char *)o->expect_type;
	if (o->body) {
		req->body = body->buf;
		req->body_len = body->len;
	}
	bind_load(cfg, NULL, NULL, o->rate, o->duration, 1);
	cfg->requests = req;
	cfg->nrequests = 1;
	return 0;
}

/* `harness load SPEC --impl NAME`: the spec's workload; without --url the
 * implementation is started here (*sut) and *target is its URL. 0 or an
 * exit code after one line. */
static int spec_workload(const struct opts *o, const char *runs_dir, struct spec **spec,
			 struct sut **sut, struct load_config *cfg, const char **target)
{
	const struct spec_impl *impl;
	int ret;

	*spec = spec_load(o->target);
	if (!*spec)
		return EXIT_USAGE;
	impl = spec_impl_find(*spec, o->impl);
	if (!impl)
		return bad("%s: no implementation named '%s'", o->target, o->impl);
	bind_load(cfg, *spec, NULL, o->rate, o->duration, (*spec)->seed);
	if (o->nagents && cfg->nvars)
		return bad("%s: template variables (workload.vars) are not sent to load agents yet"
			   " (docs/AGENT_PROTOCOL.md): drive this workload without --agent%s",
			   o->target, "");
	if (o->url)
		return 0;
	if (impl->host)
		return error("load: %s: implementation '%s' runs on another host (host: %s):"
			     " load starts implementations here only; give --url", o->target,
			     impl->name, impl->host), EXIT_USAGE;
	ret = start_impl(*spec, impl, o->build, runs_dir, sut);
	if (!ret) {
		*target = sut_url(*sut);
		cfg->netns_fd = sut_netns(*sut);   /* a sandboxed one's loopback */
	}
	return ret;
}

/* Command-line options override the workload's. */
static void apply_options(const struct opts *o, struct load_config *cfg)
{
	if (o->arrival)
		cfg->arrival = !strcmp(o->arrival, "poisson") ? ARRIVAL_POISSON : ARRIVAL_CONSTANT;
	if (o->seed >= 0)
		cfg->seed = cfg->pool_seed = (uint64_t)o->seed;
	if (o->http)
		cfg->http = !strcmp(o->http, "1.1") ? HTTPV_11 : !strcmp(o->http, "h2c") ? HTTPV_H2C :
			    HTTPV_2;
	if (o->insecure)
		cfg->insecure = 1;
	if (o->connections > 0)
		cfg->connections = (int)o->connections;
	if (o->backlog_max >= 0)
		cfg->backlog_max = (int)o->backlog_max;
	if (o->timeout_ms > 0)
		cfg->timeout_ms = (int)o->timeout_ms;
	if (o->threads > 0)
		cfg->threads = (int)o->threads;
	if (o->transport)
		cfg->transport = !strcmp(o->transport, "auto") ? TRANSPORT_AUTO :
				 !strcmp(o->transport, "curl") ? TRANSPORT_CURL : TRANSPORT_NATIVE;
	if (o->cpus)
		cfg->cpus = o->cpus;
	cfg->send_times_path = o->send_times;
	cfg->part = o->part;
	cfg->parts = o->parts;
	cfg->batch_us = (int)o->batch_us;
	if (o->cacert)
		cfg->ca_file = o->cacert;
	if (cfg->threads > cfg->connections)
		cfg->threads = cfg->connections;
}

/* The load from o's agents: links opened (each checked for its version),
 * the load run and merged, per-agent lines (text) or JSON into *extra.
 * EXIT_OK, or EXIT_ENV after a message when an agent cannot be used or
 * was lost (*ran: the merged result is filled, for printing). */
static int run_agents(const struct load_config *cfg, const struct opts *o,
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
static int drive(struct load_config *cfg, const struct opts *o)
{
	struct sbuf extra = SBUF_INIT;
	json_t *agents = NULL;
	struct load_result res;
	struct progress prog;
	struct sigaction sa, old_int, old_term;
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
			print_json(cfg, &res, tname, o, agents);
		else
			print_text(cfg, &res, tname, o);
		if (!o->json && extra.len)
			fwrite(extra.buf, 1, extra.len, stdout);
		if (aret)
			ret = aret;
		else if (error_rate(&res.total.counts) > o->error_rate_max) {
			fprintf(stderr, "harness: load: %s: error rate %.6g is above --error-rate-max %g\n",
				cfg->url, error_rate(&res.total.counts), o->error_rate_max);
			ret = EXIT_NEGATIVE;
		}
	}
	load_result_release(&res);
	sbuf_release(&extra);
	json_decref(agents);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

static int cmd_load(struct cmd_ctx *c)
{
	struct load_config cfg;
	struct load_request req;
	struct sbuf body = SBUF_INIT;
	const char *target = NULL;
	struct spec *spec = NULL;
	struct sut *sut = NULL;
	int ret, is_url;
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	o.target = c->args[0];
	o.json = c->json;
	ret = check_args();
	if (ret)
		goto out;
	is_url = target_is_url(o.target);
	ret = check_target(&o, is_url, &target);
	if (!ret)
		ret = is_url ? url_workload(&o, &req, &body, &cfg)
			     : spec_workload(&o, c->runs_dir, &spec, &sut, &cfg, &target);
	if (ret)
		goto out;
	cfg.url = target;
	apply_options(&o, &cfg);
	ret = drive(&cfg, &o);
out:
	for (i = 0; i < o.nheaders; i++) {
		free(o.headers[i].key);
		free(o.headers[i].value);
	}
	free(o.headers);
	free(o.agents);
	free(o.ssh_options);
	free(o.expect_status);
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
	.opts = options,
	.flags = CMD_RUNS_DIR | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_load,
};
