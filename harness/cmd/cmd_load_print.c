/*
 * cmd_load_print: what `harness load` measured, as text or one line of
 * JSON (cmd_load_print.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd_load_print.h"
#include "base/hist.h"
#include "base/jout.h"
#include "base/util.h"

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
double cmd_load_error_rate(const struct load_counts *c)
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

	jout_set(o, "2xx", JU(c->status[0]), "3xx", JU(c->status[1]), "4xx", JU(c->status[2]),
		 "5xx", JU(c->status[3]), NULL);
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
void cmd_load_print_json(const struct load_config *cfg, const struct load_result *r,
			 const char *transport, double error_rate_max, json_t *agents)
{
	const struct load_stats *t = &r->total;
	const struct load_counts *c = &t->counts;
	json_t *j = json_object(), *samples = json_array(), *by = json_object();
	char proto[64];
	char *text;
	size_t i;

	jout_set(j, "requests", JU(c->due), "completed", JU(c->completed), "sent", JU(c->sent),
		 "offered_rps", jout_num(r->offered_rps), "achieved_rps", jout_num(r->achieved_rps),
		 "target_rps", jout_num(cfg->rate), "elapsed_s", jout_num(r->elapsed_s),
		 "latency_ms", pcts_json(&t->latency, 1), "service_ms", pcts_json(&t->service, 0),
		 "lateness_ms", pcts_json(&t->lateness, 0),
		 "schedule_lag_ms", pcts_json(&t->sched_lag, 0), "errors", errors_json(c),
		 "status", status_json(c, 1), "unexpected", JU(c->unexpected),
		 "error_rate", jout_num(cmd_load_error_rate(c)),
		 "error_rate_max", jout_num(error_rate_max), NULL);
	for (i = 0; i < t->nsamples; i++) {
		const struct load_sample *x = &t->samples[i];
		json_t *so = json_object();
		struct sbuf b = SBUF_INIT;

		add_body(&b, x);
		jout_set(so, "request", jout_str(req_name(cfg, x->req)),
			 "status", json_integer(x->status), "why", jout_str(x->why),
			 "body", jout_str(b.buf), NULL);
		json_array_append_new(samples, so);
		sbuf_release(&b);
	}
	jout_set(j, "samples", samples,
		 "protocol", jout_str(load_counts_protocol(c, proto, sizeof(proto))),
		 "bytes_sent", JU(c->bytes_sent), "bytes_received", JU(c->bytes_received),
		 "dropped", JU(c->dropped), "generator_cpu_s", jout_num(r->generator_cpu_s),
		 "generator_threads", json_integer(r->threads),
		 "generator_rt_threads", json_integer(r->rt_threads),
		 "cpu_us_per_request",
		 jout_num(c->completed ? r->generator_cpu_s * 1e6 / (double)c->completed : 0.0),
		 "transport", jout_str(transport), "threads", json_integer(cfg->threads),
		 "connections", json_integer(cfg->connections),
		 "stopped_early", json_boolean(r->stopped_early), NULL);
	for (i = 0; i < t->nreq; i++) {
		const struct load_counts *rc = &t->req_counts[i];
		json_t *ro = json_object();

		jout_set(ro, "requests", JU(rc->due), "completed", JU(rc->completed),
			 "unexpected", JU(rc->unexpected), "dropped", JU(rc->dropped),
			 "status", status_json(rc, 0), "errors", errors_json(rc),
			 "latency_ms", pcts_json(&t->req_latency[i], 1), NULL);
		json_object_set_new(by, req_name(cfg, i), ro);
	}
	json_object_set_new(j, "by_request", by);
	if (agents)
		json_object_set_new(j, "agents", json_incref(agents));
	text = jout_dumps_line(j);
	fputs(text, stdout);
	free(text);
}

void cmd_load_print_text(const struct load_config *cfg, const struct load_result *r,
			 const char *transport, double error_rate_max)
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
	       cmd_load_error_rate(c), error_rate_max);
	printf("generator   %.3f s CPU, %.2f µs per completed request; %d of %d threads SCHED_FIFO\n",
	       r->generator_cpu_s, c->completed ? r->generator_cpu_s * 1e6 / (double)c->completed : 0.0,
	       r->rt_threads, r->threads);
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
