/*
 * runner_window: one window, start to stored.
 *
 *   restart policy -> implementation up and healthy -> warm-up at the
 *   warm-up rate, warm-up gates every second (min_s .. max_s) -> discard
 *   -> measured seconds (accounting sampled, runtime stats polled) ->
 *   window gates -> one transaction.
 *
 * A window that is interrupted (SIGINT/SIGTERM) stores nothing but an
 * event and goes back to `planned`; resume runs it again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "bind.h"
#include "evidence.h"
#include "gate.h"
#include "hist.h"
#include "judge.h"
#include "load.h"
#include "rtstats.h"
#include "runner_internal.h"
#include "sut.h"
#include "util.h"

/* One stored second of the seconds table. */
struct sec_rec {
	const char *phase;
	unsigned idx;
	double rate;
	struct load_counts c;
	double p50, p99, p999, max, lateness_p99, sched_lag_p99;
	char *hist;
	size_t hist_len;
};

struct window_ctx {
	struct run_ctx *rc;
	const struct window_plan *wp;
	struct arm *arm;
	const struct spec *spec;

	struct sec_rec *secs;
	size_t nsecs, asecs;

	/* warm-up */
	double warm_rate;
	uint64_t warm_t0_ns;
	struct evidence warm;
	struct load_stats warm_total;
	struct gate_result *warm_res; /* [ngates] of the last evaluation */
	unsigned warm_evals;
	int warm_passed;
	unsigned warm_secs;

	/* measured */
	unsigned discard;
	uint64_t meas_t0_ns;
	int meas_started;
	struct load_stats meas_total;
	struct evidence meas;
	unsigned meas_secs;
	int acct_open;
	int sut_exited;
	double started_wall;
};

/* ------------------------------------------------------------ seconds */

static double ms_or_nan(const struct hist *h, double p)
{
	return h->total ? hist_percentile_ms(h, p) : NAN;
}

static void record_second(struct window_ctx *w, const char *phase, unsigned idx,
			  double rate, const struct load_stats *sec)
{
	struct sec_rec *r;
	struct sbuf blob = SBUF_INIT;

	XGROW(w->secs, w->asecs, w->nsecs + 1);
	r = &w->secs[w->nsecs++];
	memset(r, 0, sizeof(*r));
	r->phase = phase;
	r->idx = idx;
	r->rate = rate;
	r->c = sec->counts;
	r->p50 = ms_or_nan(&sec->latency, 50);
	r->p99 = ms_or_nan(&sec->latency, 99);
	r->p999 = ms_or_nan(&sec->latency, 99.9);
	r->max = sec->latency.total ? (double)sec->latency.max / 1e6 : NAN;
	r->lateness_p99 = ms_or_nan(&sec->lateness, 99);
	r->sched_lag_p99 = ms_or_nan(&sec->sched_lag, 99);
	hist_serialize(&sec->latency, &blob);
	r->hist = sbuf_detach(&blob, &r->hist_len);
}

/* ------------------------------------------------------- runtime stats */

/* Copy the runtime-stats polls taken since t0 into the evidence (t
 * relative to t0). */
static void collect_rtstats(struct window_ctx *w, struct evidence *e, uint64_t t0_ns)
{
	struct rtstats *rs = w->arm->rts;
	struct rtstats_poll *polls = NULL;
	size_t n, i, k;

	if (!rs)
		return;
	n = rtstats_since(rs, t0_ns, &polls);
	for (i = 0; i < n; i++) {
		const struct rtstats_poll *p = &polls[i];
		double t = (double)(p->t_ns - t0_ns) / 1e9;
		if (p->status != RTS_OK) {
			evidence_add_stat(e, t, "", NULL, NAN, rtstats_status_name(p->status));
			continue;
		}
		for (k = 0; k < p->nvalues && k < w->arm->impl.nsignals; k++) {
			const struct rtstats_value *v = &p->values[k];
			const char *sig = w->arm->impl.signals[k].name;
			size_t c;

			switch (v->kind) {
			case RTV_NUMBER:
				evidence_add_stat(e, t, sig, NULL, v->num, NULL);
				break;
			case RTV_COUNTERS:
				for (c = 0; c < v->ncounters; c++)
					evidence_add_stat(e, t, sig, v->counters[c].name,
							  v->counters[c].value, NULL);
				break;
			default:
				evidence_add_stat(e, t, sig, NULL, NAN, rtstats_kind_name(v->kind));
			}
		}
	}
	rtstats_polls_free(polls, n);
}

/* ------------------------------------------------------------- warm-up */

static void evidence_totals(struct evidence *e, const struct load_stats *t,
			    unsigned secs, double rate, const struct spec *spec)
{
	const char **names = xcalloc(spec->workload.nrequests, sizeof(*names));
	uint64_t *sent = xcalloc(spec->workload.nrequests, sizeof(*sent));
	size_t i;

	e->duration_s = secs;
	e->offered_rps = rate;
	e->achieved_rps = secs ? (double)t->counts.completed / secs : NAN;
	e->due = t->counts.due;
	e->sent = t->counts.sent;
	e->completed = t->counts.completed;
	e->errors = load_counts_errors(&t->counts);
	e->dropped = t->counts.dropped;
	for (i = 0; i < ST_CLASSES; i++)
		e->status[i] = t->counts.status[i];
	e->status_other = t->counts.status_other;
	for (i = 0; i < spec->workload.nrequests && i < t->nreq; i++) {
		names[i] = spec->workload.requests[i].name;
		sent[i] = t->req_counts[i].sent;
	}
	evidence_set_requests(e, spec->workload.nrequests, names, sent);
	free(names);
	free(sent);
}

/* Evaluate the warm-up gates on the evidence so far; 1 when every
 * enforced gate passes. */
static int warm_evaluate(struct window_ctx *w)
{
	const struct spec *spec = w->spec;
	struct gate_input in;
	struct evidence_scratch scratch;
	size_t g;
	int all = 1;

	evidence_totals(&w->warm, &w->warm_total, w->warm_secs, w->warm_rate, spec);
	w->warm.lateness_p99_ms = NAN;
	w->warm.generator_cpu_s = NAN;
	/* Runtime stats: re-read every poll since the warm-up started. */
	evidence_release_stats(&w->warm);
	collect_rtstats(w, &w->warm, w->warm_t0_ns);
	evidence_gate_input(&w->warm, spec, &w->arm->impl, spec->warmup.trailing_s, &in, &scratch);
	for (g = 0; g < spec->warmup.ngates; g++) {
		const struct spec_gate *cfg = spec_gate_find(spec, spec->warmup.gates[g]);
		gate_eval(spec, spec->warmup.gates[g], &in, &w->warm_res[g]);
		if (w->warm_res[g].status != GATE_PASS && (!cfg || cfg->enforce))
			all = 0;
	}
	evidence_scratch_release(&scratch);
	w->warm_evals++;
	return all;
}

static int warm_on_second(void *ctx, unsigned idx, const struct load_stats *sec)
{
	struct window_ctx *w = ctx;
	const struct spec_warmup *W = &w->spec->warmup;

	record_second(w, "warmup", idx, w->warm_rate, sec);
	evidence_add_second(&w->warm, w->secs[w->nsecs - 1].p99, w->secs[w->nsecs - 1].p999);
	load_stats_merge(&w->warm_total, sec);
	w->warm_secs = idx + 1;
	if (w->arm->sut && sut_exited(w->arm->sut)) {
		w->sut_exited = 1;
		return 1;
	}
	if (w->warm_secs < (unsigned)ceil(W->min_s))
		return 0;
	if (!W->ngates) {
		w->warm_passed = 1;
		return 1;
	}
	w->warm_passed = warm_evaluate(w);
	return w->warm_passed;
}

/* ------------------------------------------------------------ measured */

static int meas_on_second(void *ctx, unsigned idx, const struct load_stats *sec)
{
	struct window_ctx *w = ctx;

	if (idx < w->discard) {
		record_second(w, "discard", idx, w->wp->rate, sec);
		if (idx + 1 == w->discard) {
			w->meas_t0_ns = now_ns();
			w->started_wall = now_wall();
			w->acct_open = account_window_begin(sut_account(w->arm->sut)) == 0;
			w->meas_started = 1;
		}
	} else {
		record_second(w, "measured", idx - w->discard, w->wp->rate, sec);
		evidence_add_second(&w->meas, w->secs[w->nsecs - 1].p99, w->secs[w->nsecs - 1].p999);
		load_stats_merge(&w->meas_total, sec);
		w->meas_secs++;
		w->rc->last_p99_ms = w->secs[w->nsecs - 1].p99;
	}
	if (sut_exited(w->arm->sut)) {
		w->sut_exited = 1;
		return 1;
	}
	return 0;
}

/* -------------------------------------------------------- load config */

static void load_config_for(struct window_ctx *w, struct load_config *cfg, double rate,
			    double duration_s, uint64_t stream)
{
	bind_load(cfg, w->spec, sut_url(w->arm->sut), rate, duration_s,
		  bind_window_seed(w->spec, w->wp->id, stream));
	cfg->stop = &runner_stop;
}

static double warmup_rate(struct window_ctx *w)
{
	const struct spec_warmup *W = &w->spec->warmup;
	double r;

	if (W->fixed_rps > 0)
		return W->fixed_rps;
	/* Before the ladder has found this arm's knee, a fraction of the
	 * window's own rate; after, a fraction of the knee (or of the highest
	 * rung when it never crossed). Never above the window's rate. */
	if (w->arm->knee_known)
		r = W->knee_fraction * (w->arm->knee.crossed ? w->arm->knee.knee_rps
							     : w->arm->knee.highest_rung_rps);
	else
		r = W->knee_fraction * w->wp->rate;
	if (r < W->min_rps)
		r = W->min_rps;
	if (r > w->wp->rate)
		r = w->wp->rate;
	return r;
}

/* -------------------------------------------------------------- store */

static void row_counts(struct store_row *row, const struct load_counts *c)
{
	store_row_int(row, "due", (int64_t)c->due);
	store_row_int(row, "sent", (int64_t)c->sent);
	store_row_int(row, "completed", (int64_t)c->completed);
	store_row_int(row, "dropped", (int64_t)c->dropped);
}

static int store_seconds(struct window_ctx *w)
{
	struct store_row row;
	size_t i;

	for (i = 0; i < w->nsecs; i++) {
		const struct sec_rec *r = &w->secs[i];
		store_row_init(&row, "seconds");
		store_row_int(&row, "window_id", w->wp->id);
		store_row_text(&row, "phase", r->phase);
		store_row_int(&row, "idx", r->idx);
		store_row_real(&row, "rate", r->rate);
		row_counts(&row, &r->c);
		store_row_int(&row, "errors", (int64_t)load_counts_errors(&r->c));
		store_row_int(&row, "s4xx", (int64_t)r->c.status[2]);
		store_row_int(&row, "s5xx", (int64_t)r->c.status[3]);
		store_row_int(&row, "s_other", (int64_t)r->c.status_other);
		store_row_real(&row, "p50_ms", r->p50);
		store_row_real(&row, "p99_ms", r->p99);
		store_row_real(&row, "p999_ms", r->p999);
		store_row_real(&row, "max_ms", r->max);
		store_row_real(&row, "lateness_p99_ms", r->lateness_p99);
		store_row_real(&row, "sched_lag_p99_ms", r->sched_lag_p99);
		store_row_blob(&row, "hist", r->hist, r->hist_len);
		if (store_row_insert(&w->rc->st, &row, NULL))
			return -1;
	}
	return 0;
}

static int store_requests(struct window_ctx *w, const char *phase, const struct load_stats *t)
{
	struct store_row row;
	struct sbuf blob = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < t->nreq && i < w->spec->workload.nrequests && !ret; i++) {
		sbuf_reset(&blob);
		hist_serialize(&t->req_latency[i], &blob);
		store_row_init(&row, "window_requests");
		store_row_int(&row, "window_id", w->wp->id);
		store_row_text(&row, "phase", phase);
		store_row_text(&row, "name", w->spec->workload.requests[i].name);
		store_row_int(&row, "sent", (int64_t)t->req_counts[i].sent);
		store_row_int(&row, "completed", (int64_t)t->req_counts[i].completed);
		store_row_int(&row, "errors", (int64_t)load_counts_errors(&t->req_counts[i]));
		store_row_real(&row, "p99_ms", ms_or_nan(&t->req_latency[i], 99));
		store_row_blob(&row, "hist", blob.buf, blob.len);
		ret = store_row_insert(&w->rc->st, &row, NULL);
	}
	sbuf_release(&blob);
	return ret;
}

static int store_stats(struct window_ctx *w, const char *phase, const struct evidence *e)
{
	struct store_row row;
	size_t i;

	for (i = 0; i < e->nstats; i++) {
		const struct ev_stat *s = &e->stats[i];
		store_row_init(&row, "rtstats");
		store_row_int(&row, "window_id", w->wp->id);
		store_row_text(&row, "phase", phase);
		store_row_real(&row, "t_s", s->t);
		store_row_text(&row, "signal", s->signal);
		store_row_text(&row, "key", s->key);
		store_row_real(&row, "value", s->value);
		store_row_text(&row, "error", s->error);
		if (store_row_insert(&w->rc->st, &row, NULL))
			return -1;
	}
	return 0;
}

static int store_gate(struct window_ctx *w, const char *phase, const char *gate,
		      const struct gate_result *r, unsigned evals)
{
	const struct spec_gate *cfg = spec_gate_find(w->spec, gate);
	struct store_row row;

	store_row_init(&row, "gate_results");
	store_row_int(&row, "window_id", w->wp->id);
	store_row_text(&row, "phase", phase);
	store_row_text(&row, "gate", gate);
	store_row_text(&row, "status", gate_status_name(r->status));
	store_row_int(&row, "enforced", cfg ? cfg->enforce : 1);
	store_row_text(&row, "stat_name", r->stat_name);
	store_row_real(&row, "statistic", r->statistic);
	store_row_real(&row, "threshold", r->threshold);
	store_row_text(&row, "evidence", r->evidence);
	store_row_int(&row, "evaluations", evals);
	return store_row_insert(&w->rc->st, &row, NULL);
}

/* The window's status from its window gates (harness/judge.h). */
static void judge(const struct window_ctx *w, const struct gate_result *wres,
		  struct window_verdict *v)
{
	const struct spec *spec = w->spec;
	struct judge_gate *jg = xcalloc(spec->nwindow_gates + 1, sizeof(*jg));
	struct judge_input in = { 0 };
	size_t g;

	for (g = 0; g < spec->nwindow_gates; g++) {
		const struct spec_gate *gc = spec_gate_find(spec, spec->window_gates[g]);

		jg[g].name = spec->window_gates[g];
		jg[g].status = wres[g].status;
		jg[g].enforced = gc ? gc->enforce : 1;
	}
	in.warmup_gates = spec->warmup.ngates > 0;
	in.warm_passed = w->warm_passed;
	in.sut_exited = w->sut_exited;
	in.ngates = spec->nwindow_gates;
	in.gates = jg;
	judge_window(&in, v);
	free(jg);
}

/* ------------------------------------------------------------- window */

static void window_ctx_release(struct window_ctx *w)
{
	size_t i;

	for (i = 0; i < w->nsecs; i++)
		free(w->secs[i].hist);
	free(w->secs);
	evidence_release(&w->warm);
	evidence_release(&w->meas);
	load_stats_release(&w->warm_total);
	load_stats_release(&w->meas_total);
	free(w->warm_res);
}

static int mark_state(struct run_ctx *rc, int64_t id, const char *state, int bump)
{
	sqlite3_stmt *s = store_prepare(&rc->st, bump
		? "UPDATE windows SET state = ?, attempts = attempts + 1 WHERE id = ?"
		: "UPDATE windows SET state = ? WHERE id = ?");
	int ret;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, id);
	ret = sqlite3_step(s) == SQLITE_DONE ? 0 : error("%s: %s", rc->st.path, sqlite3_errmsg(rc->st.db));
	sqlite3_finalize(s);
	return ret;
}

static void check_drift(struct run_ctx *rc, int64_t wid)
{
	struct hostfacts now = HOSTFACTS_INIT;
	struct sbuf what = SBUF_INIT;

	if (!hostfacts_read(&now) && hostfacts_drift(&rc->facts, &now, &what) > 0)
		store_event(&rc->st, rc->run_id, wid, "host_drift", "%s", what.buf);
	hostfacts_release(&now);
	sbuf_release(&what);
}

int runner_window(struct run_ctx *rc, const struct window_plan *wp)
{
	const struct spec *spec = rc->spec;
	struct window_ctx w;
	struct load_config cfg;
	struct load_result res;
	struct account_window acct;
	struct gate_input in;
	struct evidence_scratch scratch;
	struct gate_result *wres = NULL;
	struct window_verdict verdict;
	struct sbuf hist = SBUF_INIT, svc = SBUF_INIT, late = SBUF_INIT;
	struct store_row row;
	double window_s = spec->ladder.window_s, discard_s = spec->ladder.discard_s;
	int ret = -1, have_acct = 0, accepted;
	size_t g;

	memset(&w, 0, sizeof(w));
	memset(&acct, 0, sizeof(acct));
	w.rc = rc;
	w.wp = wp;
	w.arm = wp->arm;
	w.spec = spec;
	evidence_init(&w.warm, GATE_PHASE_WARMUP);
	evidence_init(&w.meas, GATE_PHASE_WINDOW);
	load_stats_init(&w.warm_total, spec->workload.nrequests);
	load_stats_init(&w.meas_total, spec->workload.nrequests);
	w.warm_res = xcalloc(spec->warmup.ngates + 1, sizeof(*w.warm_res));
	if (!strcmp(wp->stage, "confirm")) {
		window_s = spec->confirm.window_s;
		discard_s = spec->confirm.discard_s;
	} else if (!strcmp(wp->stage, "soak")) {
		window_s = spec->soak.window_s;
		discard_s = spec->soak.discard_s;
	}
	w.discard = (unsigned)llround(discard_s);

	if (mark_state(rc, wp->id, "running", 1))
		goto out;
	check_drift(rc, wp->id);
	if (runner_arm_start(rc, wp->arm, wp)) {
		if (wp->arm->starts == 0) {
			rc->fatal = 1;
			goto out;  /* never came up: an environment error (exit 3) */
		}
		/* It ran before and will not come back: reject the window. */
		w.sut_exited = 1;
		store_event(&rc->st, rc->run_id, wp->id, "sut_start_failed",
			    "%s did not come back up", wp->arm->name);
		goto decide;
	}
	wp->arm->last_block = wp->block;

	/* Warm-up. */
	w.warm_rate = warmup_rate(&w);
	runner_progress(rc, "warm-up");
	load_config_for(&w, &cfg, w.warm_rate, spec->warmup.max_s, 1);
	cfg.on_second = warm_on_second;
	cfg.ctx = &w;
	w.warm_t0_ns = now_ns();
	/* Polls of earlier windows are stored already; an implementation kept
	 * up all night must not accumulate them. */
	if (wp->arm->rts)
		rtstats_forget_before(wp->arm->rts, w.warm_t0_ns);
	if (load_run(&cfg, &res)) {
		rc->fatal = 1;
		goto out;
	}
	load_result_release(&res);
	if (runner_stop)
		goto interrupted;

	/* Discard and measured part, one continuous schedule. */
	if (!w.sut_exited) {
		runner_progress(rc, "measuring");
		load_config_for(&w, &cfg, wp->rate, window_s, 2);
		cfg.on_second = meas_on_second;
		cfg.ctx = &w;
		if (w.discard == 0) {
			w.meas_t0_ns = now_ns();
			w.started_wall = now_wall();
			w.acct_open = account_window_begin(sut_account(wp->arm->sut)) == 0;
			w.meas_started = 1;
		}
		if (load_run(&cfg, &res)) {
			rc->fatal = 1;
			goto out;
		}
		if (runner_stop) {
			load_result_release(&res);
			goto interrupted;
		}
		if (w.acct_open)
			have_acct = account_window_end(sut_account(wp->arm->sut), &acct) == 0;
		/* The generator's CPU over exactly the measured seconds (each
		 * second carries its threads' clock deltas). */
		w.meas.generator_cpu_s = w.meas_total.cpu_s;
		load_result_release(&res);
		if (sut_exited(wp->arm->sut))
			w.sut_exited = 1;
	}

decide:
	/* Evidence of the measured part, and window gates. */
	evidence_totals(&w.meas, &w.meas_total, w.meas_secs, wp->rate, spec);
	/* The generator gate judges the generator's own delay, not the wait
	 * for a free connection (that is the server pushing back). */
	w.meas.lateness_p99_ms = ms_or_nan(&w.meas_total.sched_lag, 99);
	w.meas.sut_exited = w.sut_exited;
	if (have_acct) {
		w.meas.acct_backend = xstrdup(acct.backend);
		w.meas.has_throttle = acct.has_throttle;
		w.meas.nr_throttled = acct.nr_throttled;
		w.meas.throttled_usec = acct.throttled_usec;
		w.meas.has_oom = acct.has_oom;
		w.meas.oom_events = acct.oom;
		w.meas.oom_kills = acct.oom_kill;
		w.meas.has_majfault = acct.has_majfault;
		w.meas.major_faults = acct.pgmajfault;
	}
	if (w.meas_started)
		collect_rtstats(&w, &w.meas, w.meas_t0_ns);
	wres = xcalloc(spec->nwindow_gates + 1, sizeof(*wres));
	evidence_gate_input(&w.meas, spec, &wp->arm->impl, 0, &in, &scratch);
	for (g = 0; g < spec->nwindow_gates; g++)
		gate_eval(spec, spec->window_gates[g], &in, &wres[g]);
	evidence_scratch_release(&scratch);

	judge(&w, wres, &verdict);
	accepted = verdict.status == WINDOW_ACCEPTED;

	/* One transaction: the window, its seconds, requests, samples, polls,
	 * gate results. */
	if (store_begin(&rc->st))
		goto out;
	hist_serialize(&w.meas_total.latency, &hist);
	hist_serialize(&w.meas_total.service, &svc);
	hist_serialize(&w.meas_total.lateness, &late);
	store_row_init(&row, "windows");
	store_row_text(&row, "state", "done");
	store_row_text(&row, "status", window_status_name(verdict.status));
	store_row_text(&row, "reasons", verdict.reasons[0] ? verdict.reasons : NULL);
	store_row_int(&row, "warm", w.warm_passed);
	store_row_real(&row, "warmup_s", w.warm_secs);
	store_row_real(&row, "warmup_rate", w.warm_rate);
	store_row_real(&row, "started_at", w.meas_started ? w.started_wall : NAN);
	store_row_real(&row, "ended_at", now_wall());
	store_row_real(&row, "duration_s", w.meas.duration_s);
	store_row_real(&row, "offered_rps", wp->rate);
	store_row_real(&row, "achieved_rps", w.meas.achieved_rps);
	row_counts(&row, &w.meas_total.counts);
	store_row_int(&row, "s2xx", (int64_t)w.meas_total.counts.status[0]);
	store_row_int(&row, "s3xx", (int64_t)w.meas_total.counts.status[1]);
	store_row_int(&row, "s4xx", (int64_t)w.meas_total.counts.status[2]);
	store_row_int(&row, "s5xx", (int64_t)w.meas_total.counts.status[3]);
	store_row_int(&row, "s_other", (int64_t)w.meas_total.counts.status_other);
	store_row_int(&row, "err_connect", (int64_t)w.meas_total.counts.errors[LERR_CONNECT]);
	store_row_int(&row, "err_reset", (int64_t)w.meas_total.counts.errors[LERR_RESET]);
	store_row_int(&row, "err_timeout", (int64_t)w.meas_total.counts.errors[LERR_TIMEOUT]);
	store_row_int(&row, "err_parse", (int64_t)w.meas_total.counts.errors[LERR_PARSE]);
	store_row_int(&row, "err_other", (int64_t)w.meas_total.counts.errors[LERR_OTHER]);
	store_row_real(&row, "p50_ms", ms_or_nan(&w.meas_total.latency, 50));
	store_row_real(&row, "p90_ms", ms_or_nan(&w.meas_total.latency, 90));
	store_row_real(&row, "p99_ms", ms_or_nan(&w.meas_total.latency, 99));
	store_row_real(&row, "p999_ms", ms_or_nan(&w.meas_total.latency, 99.9));
	store_row_real(&row, "max_ms", w.meas_total.latency.total
			? (double)w.meas_total.latency.max / 1e6 : NAN);
	store_row_real(&row, "service_p50_ms", ms_or_nan(&w.meas_total.service, 50));
	store_row_real(&row, "service_p99_ms", ms_or_nan(&w.meas_total.service, 99));
	store_row_real(&row, "lateness_p50_ms", ms_or_nan(&w.meas_total.lateness, 50));
	store_row_real(&row, "lateness_p99_ms", ms_or_nan(&w.meas_total.lateness, 99));
	store_row_real(&row, "sched_lag_p99_ms", w.meas.lateness_p99_ms);
	store_row_real(&row, "sched_lag_max_ms", w.meas_total.sched_lag.total
			? (double)w.meas_total.sched_lag.max / 1e6 : NAN);
	store_row_real(&row, "lateness_max_ms", w.meas_total.lateness.total
			? (double)w.meas_total.lateness.max / 1e6 : NAN);
	store_row_blob(&row, "latency_hist", hist.buf, hist.len);
	store_row_blob(&row, "service_hist", svc.buf, svc.len);
	store_row_blob(&row, "lateness_hist", late.buf, late.len);
	store_row_real(&row, "gen_cpu_s", w.meas.generator_cpu_s);
	store_row_int(&row, "sut_exited", w.sut_exited);
	if (have_acct) {
		store_row_text(&row, "acct_backend", acct.backend);
		store_row_real(&row, "cpu_s", acct.cpu_s);
		store_row_real(&row, "cpu_user_s", acct.user_s);
		store_row_real(&row, "cpu_system_s", acct.system_s);
		if (acct.has_throttle) {
			store_row_int(&row, "nr_throttled", (int64_t)acct.nr_throttled);
			store_row_int(&row, "throttled_usec", (int64_t)acct.throttled_usec);
		}
		store_row_real(&row, "anon_p50", acct.anon_p50);
		store_row_real(&row, "anon_p99", acct.anon_p99);
		store_row_real(&row, "anon_max", acct.anon_max);
		if (acct.has_peak) {
			store_row_int(&row, "mem_peak", (int64_t)acct.mem_peak);
			store_row_text(&row, "mem_peak_scope", acct.peak_scope);
		}
		if (acct.has_oom) {
			store_row_int(&row, "oom", (int64_t)acct.oom);
			store_row_int(&row, "oom_kill", (int64_t)acct.oom_kill);
		}
		if (acct.has_majfault)
			store_row_int(&row, "pgmajfault", (int64_t)acct.pgmajfault);
		store_row_real(&row, "sampler_cpu_s", acct.sampler_cpu_s);
	}
	if (store_row_update(&rc->st, &row, "id", wp->id) || store_seconds(&w) ||
	    store_requests(&w, "warmup", &w.warm_total) ||
	    store_requests(&w, "measured", &w.meas_total) ||
	    store_stats(&w, "warmup", &w.warm) || store_stats(&w, "measured", &w.meas))
		goto rollback;
	if (have_acct) {
		size_t i;
		for (i = 0; i < acct.nsamples; i++) {
			store_row_init(&row, "acct_samples");
			store_row_int(&row, "window_id", wp->id);
			store_row_real(&row, "t_ms", acct.samples[i].t_ms);
			store_row_real(&row, "anon_bytes", (double)acct.samples[i].anon);
			store_row_real(&row, "cpu_s", acct.samples[i].cpu_s);
			if (store_row_insert(&rc->st, &row, NULL))
				goto rollback;
		}
	}
	if (w.warm_evals)
		for (g = 0; g < spec->warmup.ngates; g++)
			if (store_gate(&w, "warmup", spec->warmup.gates[g], &w.warm_res[g], w.warm_evals))
				goto rollback;
	for (g = 0; g < spec->nwindow_gates; g++)
		if (store_gate(&w, "window", spec->window_gates[g], &wres[g], 1))
			goto rollback;
	if (w.sut_exited)
		store_event(&rc->st, rc->run_id, wp->id, "sut_exited",
			    "%s exited during the window", wp->arm->name);
	if (store_commit(&rc->st))
		goto rollback;

	rc->done++;
	if (accepted)
		rc->accepted++;
	else if (verdict.status == WINDOW_FAILED)
		rc->failed++;
	else
		rc->rejected++;
	runner_progress(rc, accepted ? "accepted" : verdict.reasons);
	if (w.sut_exited || wp->arm->impl.restart == RESTART_PER_WINDOW)
		runner_arm_stop(wp->arm);
	ret = 0;
	goto out;

rollback:
	store_rollback(&rc->st);
	rc->fatal = 1;
	goto out;
interrupted:
	mark_state(rc, wp->id, "planned", 0);
	store_event(&rc->st, rc->run_id, wp->id, "window_interrupted",
		    "%s: interrupted; resume runs it again", wp->arm->name);
	ret = 1;
out:
	if (have_acct)
		account_window_release(&acct);
	free(wres);
	sbuf_release(&hist);
	sbuf_release(&svc);
	sbuf_release(&late);
	window_ctx_release(&w);
	return ret;
}
