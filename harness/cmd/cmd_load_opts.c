/*
 * cmd_load_opts: the options of `harness load` (cmd_load_opts.h): the
 * table, its callbacks and the checks the table cannot make alone, the
 * one request of `harness load URL`, and the overrides applied to any
 * workload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "agent/agent_link.h"
#include "sut/bind.h"
#include "cmd/cmd.h"
#include "cmd/cmd_load_opts.h"
#include "load/load.h"
#include "base/util.h"

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "harness: load: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* "200,201": statuses 100..599, no repeats. 0 or -1. */
static int parse_statuses(const char *v, struct cmd_load_opts *o)
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
static int parse_request_option(struct cmd_load_opts *o, const char *a, const char *v)
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

static struct cmd_load_opts o = {
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

const struct opt cmd_load_options[] = {
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

int cmd_load_check_args(const struct cmd_load_opts *o)
{
	if (o->rate < 0)
		return bad("--rate is required%s%s", "", "");
	if (o->duration < 0)
		return bad("--duration is required%s%s", "", "");
	if (o->rate > 1e7)
		return bad("--rate: at most 10M requests per second%s%s", "", "");
	if (o->duration > 1e7)
		return bad("--duration: at most 1e7 seconds%s%s", "", "");
	if (o->nagents && o->send_times)
		return bad("--dump-send-times is not sent to agents%s%s", "", "");
	if (!o->nagents && (o->agent_binary || o->nssh))
		return bad("--agent-binary and --ssh-option go with --agent%s%s", "", "");
	return 0;
}

int cmd_load_target_is_url(const char *t)
{
	return !strncasecmp(t, "http://", 7) || !strncasecmp(t, "https://", 8) ||
	       strstr(t, "://") != NULL || !strchr(t, '.');
}

int cmd_load_check_target(const struct cmd_load_opts *o, int is_url, const char **target)
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

int cmd_load_url_workload(const struct cmd_load_opts *o, struct load_request *req,
			  struct sbuf *body, struct load_config *cfg)
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

void cmd_load_apply(const struct cmd_load_opts *o, struct load_config *cfg)
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

struct cmd_load_opts *cmd_load_opts_get(void)
{
	return &o;
}

void cmd_load_opts_release(struct cmd_load_opts *o)
{
	size_t i;

	for (i = 0; i < o->nheaders; i++) {
		free(o->headers[i].key);
		free(o->headers[i].value);
	}
	free(o->headers);
	free(o->agents);
	free(o->ssh_options);
	free(o->expect_status);
}
