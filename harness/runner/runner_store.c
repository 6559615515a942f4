/*
 * runner_store: step 4 of a window (runner_window.c), the judged window
 * into the run database: one transaction through the store's column lists
 * (store_window.h) holds its windows row, its series (seconds, drain row
 * included; per-request counts; unexpected samples; runtime-stats polls;
 * accounting samples), its resets, its dependencies' figures and every
 * gate result. The evidence <-> column map is evidence_load.c's, the one
 * audit --recheck reads back.
 */
#include <math.h>
#include <string.h>

#include "account/account.h"
#include "model/evidence.h"
#include "model/evidence_load.h"
#include "gate/gate.h"
#include "base/hist.h"
#include "gate/judge.h"
#include "load/load.h"
#include "runner/runner_internal.h"
#include "runner/runner_store.h"
#include "store/store_window.h"
#include "base/util.h"

static double ms_or_nan(const struct hist *h, double p)
{
	return h->total ? hist_percentile_ms(h, p) : NAN;
}

static void row_hist(struct store_blob *b, const struct hist *h)
{
	struct sbuf sb = SBUF_INIT;

	hist_serialize(h, &sb);
	b->p = (unsigned char *)sbuf_detach(&sb, &b->len);
}

static double max_ms(const struct hist *h)
{
	return h->total ? (double)h->max / 1e6 : NAN;
}

static void row_acct(struct window_row *row, const struct account_window *a)
{
	row->cpu_s = a->cpu_s;
	row->cpu_user_s = a->user_s;
	row->cpu_system_s = a->system_s;
	row->anon_p50 = a->anon_p50;
	row->anon_p99 = a->anon_p99;
	row->anon_max = a->anon_max;
	row->has_mem_peak = a->has_peak;
	row->mem_peak = (int64_t)a->mem_peak;
	row->mem_peak_scope = a->has_peak && a->peak_scope ? xstrdup(a->peak_scope) : NULL;
	row->sampler_cpu_s = a->sampler_cpu_s;
	row->cpu_wait_s = a->has_wait ? a->wait_s : NAN;
}

/* The windows row of a judged window: every result column. */
static void window_row_fill(const struct run_ctx *rc, const struct window_record *r,
			    struct window_row *row)
{
	const struct window_verdict *v = r->verdict;
	const struct load_stats *t = r->meas_total;

	row->id = r->id;
	row->state = WINDOW_DONE;
	row->status = v->status;
	row->reasons = v->reasons[0] ? xstrdup(v->reasons) : NULL;
	row->warm = r->warm_passed;
	/* The warm-up's totals, then the measured part's, through the one
	 * evidence <-> column map (evidence_load.c) audit --recheck reads. */
	evidence_to_window_row(r->warm, row);
	evidence_to_window_row(r->meas, row);
	row->started_at = r->started_wall;
	row->ended_at = runner_now(rc);
	row->err_connect = (int64_t)t->counts.errors[LERR_CONNECT];
	row->err_reset = (int64_t)t->counts.errors[LERR_RESET];
	row->err_timeout = (int64_t)t->counts.errors[LERR_TIMEOUT];
	row->err_parse = (int64_t)t->counts.errors[LERR_PARSE];
	row->err_other = (int64_t)t->counts.errors[LERR_OTHER];
	{
		char proto[64];
		const char *p = load_counts_protocol(&t->counts, proto, sizeof(proto));

		row->protocol = p ? xstrdup(p) : NULL;
	}
	row->bytes_sent = (int64_t)t->counts.bytes_sent;
	row->bytes_received = (int64_t)t->counts.bytes_received;
	row->p50_ms = ms_or_nan(&t->latency, 50);
	row->p90_ms = ms_or_nan(&t->latency, 90);
	row->p99_ms = ms_or_nan(&t->latency, 99);
	row->p999_ms = ms_or_nan(&t->latency, 99.9);
	row->max_ms = max_ms(&t->latency);
	row->service_p50_ms = ms_or_nan(&t->service, 50);
	row->service_p99_ms = ms_or_nan(&t->service, 99);
	row->lateness_p50_ms = ms_or_nan(&t->lateness, 50);
	row->lateness_p99_ms = ms_or_nan(&t->lateness, 99);
	row->lateness_max_ms = max_ms(&t->lateness);
	row->sched_lag_max_ms = max_ms(&t->sched_lag);
	row_hist(&row->latency_hist, &t->latency);
	row_hist(&row->service_hist, &t->service);
	row_hist(&row->lateness_hist, &t->lateness);
	if (r->acct)
		row_acct(row, r->acct);
}

static int store_requests(struct store *st, const struct window_record *r, const char *phase,
			  const struct load_stats *t)
{
	struct sbuf blob = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < t->nreq && i < r->spec->workload.nrequests && !ret; i++) {
		struct window_request q = {
			.window_id = r->id,
			.phase = (char *)phase,
			.name = (char *)r->spec->workload.requests[i].name,
			.sent = (int64_t)t->req_counts[i].sent,
			.completed = (int64_t)t->req_counts[i].completed,
			.errors = (int64_t)load_counts_errors(&t->req_counts[i]),
			.unexpected = (int64_t)t->req_counts[i].unexpected,
			.p99_ms = ms_or_nan(&t->req_latency[i], 99),
		};

		sbuf_reset(&blob);
		hist_serialize(&t->req_latency[i], &blob);
		q.hist.p = (unsigned char *)blob.buf;
		q.hist.len = blob.len;
		ret = store_request_insert(st, &q);
	}
	sbuf_release(&blob);
	return ret;
}

static int store_stats(struct store *st, int64_t wid, const char *phase, const struct evidence *e)
{
	size_t i;

	for (i = 0; i < e->nstats; i++) {
		const struct ev_stat *s = &e->stats[i];
		struct rtstat_row q = {
			.window_id = wid, .phase = (char *)phase, .t_s = s->t,
			.signal = s->signal, .key = s->key, .value = s->value, .error = s->error,
		};

		if (store_rtstat_insert(st, &q))
			return -1;
	}
	return 0;
}

static int store_gates(struct store *st, const struct window_record *r, const char *phase,
		       const char *const *gates, size_t n, const struct gate_result *res,
		       unsigned evals)
{
	size_t g;

	for (g = 0; g < n; g++) {
		const struct gate_params *cfg = spec_gate_find(r->spec, gates[g]);
		struct gate_row q = {
			.window_id = r->id, .phase = (char *)phase, .gate = (char *)gates[g],
			.status = (char *)gate_status_name(res[g].status),
			.enforced = !strcmp(phase, "head") ? r->spec->warmup.head_enforce
				    : cfg ? cfg->enforce : 1,
			.stat_name = (char *)res[g].stat_name,
			.statistic = res[g].statistic, .threshold = res[g].threshold,
			.evidence = (char *)res[g].evidence, .evaluations = (int)evals,
		};

		if (store_gate_insert(st, &q))
			return -1;
	}
	return 0;
}

/* The first unexpected responses of a phase. */
static int store_unexpected(struct store *st, const struct window_record *r, const char *phase,
			    const struct load_stats *t)
{
	size_t i;

	for (i = 0; i < t->nsamples; i++) {
		const struct load_sample *x = &t->samples[i];
		struct unexpected_row q = {
			.window_id = r->id, .phase = (char *)phase, .seq = (int)i,
			.name = x->req < r->spec->workload.nrequests ?
				r->spec->workload.requests[x->req].name : (char *)"?",
			.status = x->status, .why = (char *)x->why,
			.body = { (unsigned char *)x->body, x->body_len },
		};

		if (store_unexpected_insert(st, &q))
			return -1;
	}
	return 0;
}

/* The window's series: seconds, requests, runtime stats, samples. */
static int store_series(struct store *st, const struct window_record *r)
{
	size_t i;

	for (i = 0; i < r->secs->n; i++)
		if (store_second_insert(st, &r->secs->v[i]))
			return -1;
	if (store_requests(st, r, "warmup", r->warm_total) ||
	    store_requests(st, r, "measured", r->meas_total) ||
	    store_unexpected(st, r, "warmup", r->warm_total) ||
	    store_unexpected(st, r, "measured", r->meas_total) ||
	    store_stats(st, r->id, "warmup", r->warm) || store_stats(st, r->id, "measured", r->meas))
		return -1;
	for (i = 0; r->acct && i < r->acct->nsamples; i++) {
		struct acct_sample_row q = {
			.window_id = r->id, .t_ms = r->acct->samples[i].t_ms,
			.anon_bytes = (double)r->acct->samples[i].anon,
			.cpu_s = r->acct->samples[i].cpu_s,
		};

		if (store_acct_sample_insert(st, &q))
			return -1;
	}
	return 0;
}

/* The resets run before the window (window_resets). */
static int store_resets(struct store *st, const struct window_reset_rows *resets)
{
	size_t i;

	for (i = 0; i < resets->n; i++)
		if (store_window_reset_insert(st, &resets->v[i]))
			return -1;
	return 0;
}

int runner_store_window(struct run_ctx *rc, const struct window_record *r)
{
	const struct spec *spec = r->spec;
	struct store *st = &rc->st;
	struct window_row row;
	int ret = -1;

	window_row_init(&row);
	window_row_fill(rc, r, &row);
	if (store_begin(st))
		goto out;
	if (store_window_update(st, &row) || store_series(st, r) || store_resets(st, r->resets) ||
	    runner_deps_store(rc, r->id, r->meas) || runner_depstats_store(rc, r->id) ||
	    runner_idle_store(rc, r->id, r->meas) ||
	    (r->warm_evals && store_gates(st, r, "warmup", (const char *const *)spec->warmup.gates,
					  spec->warmup.ngates, r->warm_gates, r->warm_evals)) ||
	    store_gates(st, r, "window", (const char *const *)spec->window_gates,
			spec->nwindow_gates, r->gates, 1) ||
	    store_gates(st, r, "head", (const char *const *)spec->warmup.head_gates,
			spec->warmup.nhead_gates, r->head, 1))
		goto rollback;
	if (r->sut_exited)
		store_event(st, rc->run_id, r->id, "sut_exited", "%s exited during the window",
			    r->impl);
	if (store_commit(st))
		goto rollback;
	ret = 0;
	goto out;
rollback:
	store_rollback(st);
out:
	window_row_release(&row);
	return ret;
}
