/*
 * runner_window: one window, start to stored, in four steps that
 * runner_window() (at the end) calls in order:
 *
 *   1. window_warmup:  restart policy -> implementation up and healthy ->
 *                      warm-up at the warm-up rate, warm-up gates every
 *                      second (min_s .. max_s)
 *   2. window_measure: discard -> measured seconds (accounting sampled,
 *                      runtime stats polled)
 *   3. window_judge:   window gates on the measured evidence -> status and
 *                      reasons (judge.h)
 *   4. window_store:   one transaction through the column lists
 *                      (runner_store.h, store_window.h)
 *
 * A window that is interrupted (SIGINT/SIGTERM) stores nothing but an
 * event and goes back to `planned`; resume runs it again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account/account.h"
#include "sut/bind.h"
#include "model/evidence.h"
#include "gate/gate.h"
#include "base/hist.h"
#include "gate/judge.h"
#include "model/head.h"
#include "load/load.h"
#include "sut/rtstats.h"
#include "runner/runner_internal.h"
#include "runner/runner_store.h"
#include "store/store_window.h"
#include "sut/sut.h"
#include "base/util.h"

struct window_ctx {
	struct run_ctx *rc;
	const struct window_plan *wp;
	struct arm *arm;
	const struct spec *spec;

	double window_s, discard_s;
	struct window_seconds secs;  /* every second, all phases, in order */
	size_t asecs;

	/* warm-up */
	double warm_rate;
	uint64_t warm_t0_ns;
	struct evidence warm;
	struct load_stats warm_total;
	struct gate_result *warm_res; /* [ngates] of the last evaluation */
	unsigned warm_evals;
	int warm_passed;
	unsigned warm_secs;           /* whole seconds through on_second */
	double warm_s;                /* its length: warm_secs, or min_s run through */

	/* measured */
	unsigned discard;
	uint64_t meas_t0_ns;
	int meas_started;
	struct load_stats meas_total;  /* measured seconds + the drain */
	uint64_t meas_done;            /* completed in the measured seconds */
	double meas_cpu_s;             /* generator CPU of the measured seconds */
	struct evidence meas;
	struct evidence head;          /* the discard seconds (head.h) */
	unsigned meas_secs;
	int acct_open;
	int have_acct;
	struct account_window acct;
	int sut_exited;
	double started_wall;
	/* workload.generators: an agent lost, a clock beyond max_offset_ms */
	int agent_lost, clock_offset;
	struct sbuf url;             /* the URL the agents load */

	/* resets run before it (runner_reset.c) */
	struct window_reset_rows resets;
	int reset_failed;

	/* the other arms, frozen or measured while it is loaded */
	struct runner_idle *idle;
	/* its own paths for some requests (implementations[].paths), or NULL */
	struct load_request *reqs;
};

/* ------------------------------------------------------------ seconds */

static double ms_or_nan(const struct hist *h, double p)
{
	return h->total ? hist_percentile_ms(h, p) : NAN;
}

static void record_second(struct window_ctx *w, const char *phase, unsigned idx,
			  double rate, const struct load_stats *sec)
{
	struct window_second *r;
	struct sbuf blob = SBUF_INIT;

	XGROW(w->secs.v, w->asecs, w->secs.n + 1);
	r = &w->secs.v[w->secs.n++];
	memset(r, 0, sizeof(*r));
	r->window_id = w->wp->id;
	r->phase = xstrdup(phase);
	r->idx = (int)idx;
	r->rate = rate;
	r->due = (int64_t)sec->counts.due;
	r->sent = (int64_t)sec->counts.sent;
	r->completed = (int64_t)sec->counts.completed;
	r->errors = (int64_t)load_counts_errors(&sec->counts);
	r->dropped = (int64_t)sec->counts.dropped;
	r->s4xx = (int64_t)sec->counts.status[ST_4XX];
	r->s5xx = (int64_t)sec->counts.status[ST_5XX];
	r->s_other = (int64_t)sec->counts.status_other;
	r->unexpected = (int64_t)sec->counts.unexpected;
	r->p50_ms = ms_or_nan(&sec->latency, 50);
	r->p99_ms = ms_or_nan(&sec->latency, 99);
	r->p999_ms = ms_or_nan(&sec->latency, 99.9);
	r->max_ms = sec->latency.total ? (double)sec->latency.max / 1e6 : NAN;
	r->lateness_p99_ms = ms_or_nan(&sec->lateness, 99);
	r->sched_lag_p99_ms = ms_or_nan(&sec->sched_lag, 99);
	hist_serialize(&sec->latency, &blob);
	r->hist.p = (unsigned char *)sbuf_detach(&blob, &r->hist.len);
}

/* The implementation is gone: 1 (w->sut_exited set). When it was on
 * another host and its agent's channel broke (armops lost), that is not
 * its doing: the window is void (agent_lost, validity wins over
 * sut_alive), with an event naming where it ran (armops place). */
static int arm_gone(struct window_ctx *w)
{
	const char *why = "";

	if (!runner_arm_exited(w->arm))
		return 0;
	w->sut_exited = 1;
	if (!w->agent_lost && runner_arm_lost(w->arm, &why)) {
		struct sbuf place = SBUF_INIT;

		w->agent_lost = 1;
		armops_place(runner_arm_site(w->rc, w->arm), &place);  /* " on HOST" */
		store_event(&w->rc->st, w->rc->run_id, w->wp->id, "agent_lost", "%s%s: %s",
			    w->arm->name, place.buf, why);
		sbuf_release(&place);
	}
	return 1;
}

/* The p99 of the second just recorded. */
static double last_p99(const struct window_ctx *w)
{
	return w->secs.v[w->secs.n - 1].p99_ms;
}

/* ------------------------------------------------------- runtime stats */

/* Copy the runtime-stats polls taken since t0 into the evidence (t
 * relative to t0). */
static void collect_rtstats(struct window_ctx *w, struct evidence *e, uint64_t t0_ns)
{
	struct rtstats *rs = runner_arm_rts(w->arm);
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
			    double secs, double rate, const struct spec *spec)
{
	const char **names = xcalloc(spec->workload.nrequests, sizeof(*names));
	uint64_t *sent = xcalloc(spec->workload.nrequests, sizeof(*sent));
	size_t i;

	e->duration_s = secs;
	e->offered_rps = rate;
	e->achieved_rps = secs > 0 ? (double)t->counts.completed / secs : NAN;
	e->due = t->counts.due;
	e->sent = t->counts.sent;
	e->completed = t->counts.completed;
	e->secs_completed = t->counts.completed;   /* a window's: meas_evidence() */
	e->errors = load_counts_errors(&t->counts);
	e->dropped = t->counts.dropped;
	for (i = 0; i < ST_CLASSES; i++)
		e->status[i] = t->counts.status[i];
	e->status_other = t->counts.status_other;
	e->unexpected = t->counts.unexpected;
	e->host_void = t->host_void;
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
		const struct gate_params *cfg = spec_gate_find(spec, spec->warmup.gates[g]);
		gate_eval(spec_gate_find(spec, spec->warmup.gates[g]), spec->warmup.gates[g], &in, &w->warm_res[g]);
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
	evidence_add_second(&w->warm, last_p99(w), w->secs.v[w->secs.n - 1].p999_ms);
	load_stats_merge(&w->warm_total, sec);
	w->warm_secs = idx + 1;
	if (arm_gone(w))
		return 1;
	/* without gates nothing is waited for: the load is min_s long
	 * (warmup_load_s) and runs to its end */
	if (!W->ngates || w->warm_secs < (unsigned)ceil(W->min_s))
		return 0;
	w->warm_passed = warm_evaluate(w);
	return w->warm_passed;
}

/* What a warm-up without gates ran after its last whole second (or all
 * of it, shorter than a second): its totals' too (not a seconds row). */
static void warm_on_drain(void *ctx, const struct load_stats *drain)
{
	struct window_ctx *w = ctx;

	load_stats_merge(&w->warm_total, drain);
}

/*
 * How long the warm-up's load runs (docs/DESIGN.md "Warm-up"). With
 * gates it runs until they pass, polled at the end of each whole second
 * from ceil(min_s), or max_s (under-warmed). Without gates nothing is
 * waited for: it ends at min_s, to the millisecond (0: no warm-up load
 * at all); it rounded up to the end of a whole second before, so the
 * shortest warm-up was 1 s whatever the spec said.
 */
static double warmup_load_s(const struct spec_warmup *W)
{
	return W->ngates ? W->max_s : W->min_s;
}

/* ------------------------------------------------------------ measured */

/* The measured part starts: its clock, and the accounting window. */
static void meas_begin(struct window_ctx *w)
{
	w->meas_t0_ns = now_ns();
	w->started_wall = runner_now(w->rc);
	w->acct_open = runner_arm_acct_begin(w->arm) == 0;
	runner_deps_window_begin(w->rc);
	runner_idle_meas_begin(w->idle);
	w->meas_started = 1;
}

static int meas_on_second(void *ctx, unsigned idx, const struct load_stats *sec)
{
	struct window_ctx *w = ctx;

	if (idx < w->discard) {
		record_second(w, "discard", idx, w->wp->rate, sec);
		evidence_add_second(&w->head, last_p99(w), w->secs.v[w->secs.n - 1].p999_ms);
		if (idx + 1 == w->discard)
			meas_begin(w);
	} else {
		record_second(w, "measured", idx - w->discard, w->wp->rate, sec);
		evidence_add_second(&w->meas, last_p99(w), w->secs.v[w->secs.n - 1].p999_ms);
		load_stats_merge(&w->meas_total, sec);
		w->meas_done += sec->counts.completed;
		w->meas_cpu_s += sec->cpu_s;
		w->meas_secs++;
		w->rc->last_p99_ms = last_p99(w);
	}
	return arm_gone(w);
}

/*
 * The load's drain (load.h): what completed, failed or was made due after
 * the last measured second is the window's (docs/DESIGN.md, "The drain"):
 * in its totals and histograms, and one `drain` row beside its seconds
 * (not in the per-second series). A load stopped in the head has no
 * measured part to give it to (the implementation is gone: failed).
 */
static void meas_on_drain(void *ctx, const struct load_stats *drain)
{
	struct window_ctx *w = ctx;

	if (!w->meas_started)
		return;
	record_second(w, "drain", 0, w->wp->rate, drain);
	load_stats_merge(&w->meas_total, drain);
}

/* -------------------------------------------------------- load config */

/* Requests a real-time generator thread was held back from by the host
 * longer than the generator gate's lateness limit are void (load.h
 * host_void_ms); only where that gate judges the windows, which counts
 * them (0 otherwise: none is void). */
static double host_void_ms(const struct spec *spec)
{
	size_t g;

	for (g = 0; g < spec->nwindow_gates; g++)
		if (!strcmp(spec->window_gates[g], "generator"))
			return gate_generator_lateness_ms(spec_gate_find(spec, "generator"),
							  spec_slo_tightest_ms(spec));
	return 0;
}

static void load_config_for(struct window_ctx *w, struct load_config *cfg, double rate,
			    double duration_s, uint64_t stream)
{
	bind_load(cfg, w->spec, runner_gens_url(w->rc, runner_arm_url(w->arm), &w->url), rate,
		  duration_s, bind_window_seed(w->spec, w->wp->id, stream));
	cfg->stop = &runner_stop;
	cfg->host_void_ms = host_void_ms(w->spec);
	if (!w->reqs)
		w->reqs = spec_impl_requests(w->spec, &w->arm->impl);
	if (w->reqs)
		cfg->requests = w->reqs;
	/* a jailed implementation listens on its own namespace's loopback */
	cfg->netns_fd = runner_arm_netns(w->arm);
	/* The pool is drawn once per run, before the first load; if that
	 * fails (it cannot for a validated spec) every load tries again and
	 * fails with the reason. */
	if (!w->rc->have_pool && w->spec->workload.nvars) {
		const struct spec_workload *wl = &w->spec->workload;

		if (!load_pool_build(&w->rc->pool, wl->requests, wl->nrequests, wl->vars,
				     wl->nvars, w->spec->seed, spec_pool_size(w->spec)))
			w->rc->have_pool = 1;
	}
	if (w->rc->have_pool)
		cfg->pool = &w->rc->pool;
}

/* The load, from this host's engine or from the generators' agents. */
static int run_load(struct window_ctx *w, const char *phase, const struct load_config *cfg,
		    struct load_result *res)
{
	if (w->rc->seams && w->rc->seams->load)
		return w->rc->seams->load(w->rc->seams->ctx, cfg, res);
	if (!w->rc->ngens)
		return load_run(cfg, res);
	return runner_gens_load(w->rc, w->wp->id, phase, cfg, res, &w->agent_lost,
				&w->clock_offset);
}

static double warmup_rate(struct window_ctx *w)
{
	const struct spec_warmup *W = &w->spec->warmup;
	double r;

	if (W->fixed_rps > 0)
		return W->fixed_rps;
	/* Before the ladder has found this arm's knee, a fraction of the
	 * window's own rate; after, a fraction of the rate it holds (or of the highest
	 * rung when it never crossed). Never above the window's rate. */
	if (isfinite(runner_arm_hold_rps(w->arm)))
		r = W->knee_fraction * runner_arm_hold_rps(w->arm);
	else
		r = W->knee_fraction * w->wp->rate;
	if (r < W->min_rps)
		r = W->min_rps;
	if (r > w->wp->rate)
		r = w->wp->rate;
	return r;
}

/* ------------------------------------------------------------ window */

static void window_ctx_init(struct window_ctx *w, struct run_ctx *rc,
			    const struct window_plan *wp)
{
	const struct spec *spec = rc->spec;

	memset(w, 0, sizeof(*w));
	sbuf_init(&w->url);
	w->rc = rc;
	w->wp = wp;
	w->arm = wp->arm;
	w->spec = spec;
	evidence_init(&w->warm, GATE_PHASE_WARMUP);
	evidence_init(&w->meas, GATE_PHASE_WINDOW);
	evidence_init(&w->head, GATE_PHASE_WARMUP);
	load_stats_init(&w->warm_total, spec->workload.nrequests);
	load_stats_init(&w->meas_total, spec->workload.nrequests);
	w->warm_res = xcalloc(spec->warmup.ngates + 1, sizeof(*w->warm_res));
	w->window_s = spec->ladder.window_s;
	w->discard_s = spec->ladder.discard_s;
	if (!strcmp(wp->stage, "confirm")) {
		w->window_s = spec->confirm.window_s;
		w->discard_s = spec->confirm.discard_s;
	} else if (!strcmp(wp->stage, "refine")) {
		w->window_s = spec->refine.window_s;
		w->discard_s = spec->refine.discard_s;
	} else if (!strcmp(wp->stage, "soak")) {
		w->window_s = spec->soak.window_s;
		w->discard_s = spec->soak.discard_s;
	}
	w->discard = (unsigned)llround(w->discard_s);
}

static void window_ctx_release(struct window_ctx *w)
{
	runner_idle_end(w->idle);   /* thawed on every way out */
	window_seconds_release(&w->secs);
	evidence_release(&w->warm);
	evidence_release(&w->meas);
	evidence_release(&w->head);
	load_stats_release(&w->warm_total);
	load_stats_release(&w->meas_total);
	sbuf_release(&w->url);
	free(w->warm_res);
	free(w->reqs);
	window_reset_rows_release(&w->resets);
	if (w->have_acct)
		account_window_release(&w->acct);
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

/*
 * Step 1, warm-up: the implementation up and healthy (restarted per its
 * policy), then load at the warm-up rate with the warm-up gates polled
 * every second. 0: go on (w->sut_exited when it did not come back);
 * 1: interrupted; -1: environment error.
 */
static int window_warmup(struct window_ctx *w)
{
	struct run_ctx *rc = w->rc;
	const struct window_plan *wp = w->wp;
	struct load_config cfg;
	struct load_result res;
	int cycled = 0, r;
	size_t i;

	check_drift(rc, wp->id);
	if (runner_deps_ensure(rc, wp, &cycled)) {
		if (runner_stop)
			return 1;
		rc->fail_kind = "dependency";
		return -1;
	}
	/* a dependency started afresh (lifecycle block): every implementation
	 * starts again, connecting to the new instance */
	for (i = 0; cycled && i < rc->narms; i++)
		runner_arm_stop(&rc->arms[i]);
	w->reset_failed |= runner_reset_deps(rc, wp, &w->resets);
	if (runner_stop)
		return 1;
	if (runner_arm_start(rc, wp->arm, wp)) {
		if (runner_stop)
			return 1;   /* interrupted while waiting for it: resumable */
		/* Never came up: the run fails (runner_arm_start recorded
		 * whether it was the implementation's fault; runner.c picks
		 * the exit code). */
		if (wp->arm->starts == 0)
			return -1;
		/* It ran before and will not come back: judged as exited. */
		w->sut_exited = 1;
		store_event(&rc->st, rc->run_id, wp->id, "sut_start_failed",
			    "%s did not come back up", wp->arm->name);
		return 0;
	}
	wp->arm->last_block = wp->block;
	r = runner_reset_arm(rc, wp, &w->resets);
	if (runner_stop)
		return 1;
	if (r < 0)
		return -1;  /* a sandbox limit hit: the arm's failure (runner.c) */
	w->reset_failed |= r;
	w->idle = runner_idle_begin(rc, wp);
	w->warm_rate = warmup_rate(w);
	w->warm_t0_ns = now_ns();
	/* Polls of earlier windows are stored already; an implementation kept
	 * up all night must not accumulate them. */
	if (runner_arm_rts(wp->arm))
		rtstats_forget_before(runner_arm_rts(wp->arm), w->warm_t0_ns);
	if (!w->spec->warmup.ngates && !(warmup_load_s(&w->spec->warmup) > 0)) {
		w->warm_passed = 1;     /* nothing to wait for, no load */
		return runner_stop ? 1 : 0;
	}
	runner_progress(rc, "warm-up");
	load_config_for(w, &cfg, w->warm_rate, warmup_load_s(&w->spec->warmup), 1);
	cfg.on_second = warm_on_second;
	if (!w->spec->warmup.ngates)
		cfg.on_drain = warm_on_drain;
	cfg.ctx = w;
	if (run_load(w, "warm-up", &cfg, &res))
		return -1;
	/* Without gates: warm once its min_s ran through (the drain's part
	 * of a second too), not when the implementation went (arm_gone)
	 * or the run was interrupted. */
	w->warm_s = w->warm_secs;
	if (!w->spec->warmup.ngates && !res.stopped_early && !w->sut_exited) {
		w->warm_passed = 1;
		w->warm_s = warmup_load_s(&w->spec->warmup);
	}
	load_result_release(&res);
	return runner_stop ? 1 : 0;
}

/*
 * Step 2, measure: discard and measured seconds on one continuous
 * schedule, accounting sampled over exactly the measured part. Same
 * returns as window_warmup.
 */
static int window_measure(struct window_ctx *w)
{
	struct load_config cfg;
	struct load_result res;

	if (w->sut_exited)
		return 0;
	runner_progress(w->rc, "measuring");
	load_config_for(w, &cfg, w->wp->rate, w->window_s, 2);
	cfg.test_stall_ms = runner_test_stall_ms(w->rc, w->wp);
	cfg.on_second = meas_on_second;
	cfg.on_drain = meas_on_drain;
	cfg.ctx = w;
	/* the dependencies' own statistics, read before the window's load
	 * (a command may take longer than its discard seconds) */
	runner_depstats_begin(w->rc, w->wp->id);
	if (w->discard == 0)
		meas_begin(w);
	if (run_load(w, "window", &cfg, &res))
		return -1;
	load_result_release(&res);
	if (w->meas_started) {
		runner_deps_window_end(w->rc, &w->meas);
		runner_depstats_end(w->rc, w->wp->id, &w->meas);
	}
	runner_idle_meas_end(w->idle, &w->meas);
	runner_idle_end(w->idle);
	w->idle = NULL;
	if (runner_stop)
		return 1;
	if (w->acct_open)
		w->have_acct = runner_arm_acct_end(w->arm, &w->acct) == 0;
	/* The generator's CPU over exactly the measured seconds (each second
	 * carries its threads' clock deltas; the drain's is not theirs). */
	w->meas.generator_cpu_s = w->meas_cpu_s;
	arm_gone(w);
	return 0;
}

/* ------------------------------------------------------------- judge */

/* What the judge says of one window, and the window gates it heard. */
struct window_judgement {
	struct window_verdict verdict;   /* status and reasons (judge.h) */
	struct gate_result *gates;       /* [spec->nwindow_gates] */
	struct gate_result *head;        /* [spec->warmup.nhead_gates] (head.h) */
};

/* The measured part's evidence, as the gates (and audit --recheck) see it. */
static void meas_evidence(struct window_ctx *w)
{
	const struct account_window *a = &w->acct;
	struct evidence *e = &w->meas;

	evidence_totals(e, &w->meas_total, w->meas_secs, w->wp->rate, w->spec);
	/* Counts include the drain; the achieved rate is the measured
	 * seconds' (completions after them are not the window's rate). */
	e->achieved_rps = w->meas_secs ? (double)w->meas_done / w->meas_secs : NAN;
	e->secs_completed = w->meas_done;
	/* The generator gate judges the generator's own delay, not the wait
	 * for a free connection (that is the server pushing back). */
	e->lateness_p99_ms = ms_or_nan(&w->meas_total.sched_lag, 99);
	/* the stored service_p50_ms (runner_store.c), so audit --recheck agrees */
	e->service_p50_ms = ms_or_nan(&w->meas_total.service, 50);
	e->sut_exited = w->sut_exited;
	if (w->have_acct) {
		e->acct_backend = xstrdup(a->backend);
		e->acct_span_s = a->duration_s;
		if (a->has_held) {
			e->host_held_s = a->held_s;
			e->host_held_max_s = a->held_max_s;
			e->foreign_cpu_s = a->foreign_cpu_s;
			e->host_wait_s = a->held_wait_s;
			e->host_held_ref_s = runner_held_ref(w->rc, w->wp, e->due);
		}
		e->has_throttle = a->has_throttle;
		e->nr_throttled = a->nr_throttled;
		e->throttled_usec = a->throttled_usec;
		e->has_oom = a->has_oom;
		e->oom_events = a->oom;
		e->oom_kills = a->oom_kill;
		e->has_majfault = a->has_majfault;
		e->major_faults = a->pgmajfault;
	}
	if (w->meas_started)
		collect_rtstats(w, e, w->meas_t0_ns);
}

/*
 * Step 3, judge: the window gates on the measured evidence, then the
 * window's status and reasons by judge_window() (harness/gate/judge.h: validity
 * gates reject, outcome gates fail, validity wins).
 */
static void window_judge(struct window_ctx *w, struct window_judgement *j)
{
	const struct spec *spec = w->spec;
	struct judge_gate *jg = xcalloc(spec->nwindow_gates + 1, sizeof(*jg));
	struct judge_gate *hg = xcalloc(spec->warmup.nhead_gates + 1, sizeof(*hg));
	struct judge_input in = { 0 };
	struct gate_input gin;
	struct evidence_scratch scratch;
	size_t g;

	meas_evidence(w);
	j->gates = xcalloc(spec->nwindow_gates + 1, sizeof(*j->gates));
	evidence_gate_input(&w->meas, spec, &w->arm->impl, 0, &gin, &scratch);
	for (g = 0; g < spec->nwindow_gates; g++) {
		const struct gate_params *gc = spec_gate_find(spec, spec->window_gates[g]);

		gate_eval(spec_gate_find(spec, spec->window_gates[g]), spec->window_gates[g], &gin, &j->gates[g]);
		jg[g].name = spec->window_gates[g];
		jg[g].status = j->gates[g].status;
		jg[g].enforced = gc ? gc->enforce : 1;
	}
	evidence_scratch_release(&scratch);
	in.warmup_gates = spec->warmup.ngates > 0;
	in.warm_passed = w->warm_passed;
	in.sut_exited = w->sut_exited;
	in.agent_lost = w->agent_lost;
	in.clock_offset = w->clock_offset;
	in.reset_failed = w->reset_failed;
	in.no_answer = evidence_no_answer(&w->meas);
	in.ngates = spec->nwindow_gates;
	in.gates = jg;
	j->head = xcalloc(spec->warmup.nhead_gates + 1, sizeof(*j->head));
	head_judge(spec, &w->arm->impl, &w->head, j->head, hg);
	in.nhead = spec->warmup.nhead_gates;
	in.head = hg;
	judge_window(&in, &j->verdict);
	free(jg);
	free(hg);
}

/*
 * Step 4, store (runner_store.h): the window as measured and judged, in
 * one transaction. -1 (rolled back) after an error().
 */
static int window_store(struct window_ctx *w, const struct window_judgement *j)
{
	struct window_record r = {
		.id = w->wp->id, .spec = w->spec, .impl = w->wp->arm->name,
		.verdict = &j->verdict, .warm_passed = w->warm_passed,
		.sut_exited = w->sut_exited,
		.started_wall = w->meas_started ? w->started_wall : NAN,
		.warm = &w->warm, .meas = &w->meas,
		.warm_total = &w->warm_total, .meas_total = &w->meas_total,
		.acct = w->have_acct ? &w->acct : NULL,
		.secs = &w->secs, .resets = &w->resets,
		.warm_gates = w->warm_res, .gates = j->gates, .head = j->head,
		.warm_evals = w->warm_evals,
	};

	/* The warm-up's totals (its gates saw them second by second). */
	evidence_totals(&w->warm, &w->warm_total, w->warm_s, w->warm_rate, w->spec);
	return runner_store_window(w->rc, &r);
}

/* After the window is stored: progress, and the arm's restart policy. */
static void window_done(struct window_ctx *w, const struct window_verdict *v)
{
	struct run_ctx *rc = w->rc;

	runner_progress_window_done(rc, w->wp, v->status,
				    v->status == WINDOW_ACCEPTED ? "accepted" : v->reasons);
	if (w->sut_exited || w->arm->impl.restart == RESTART_PER_WINDOW)
		runner_arm_stop(w->arm);
}

/*
 * running -> warm-up -> measure -> judge -> store -> done. An interrupted
 * window (SIGINT/SIGTERM) stores only an event and goes back to planned;
 * so does a window whose run stops on an environment error, so no window
 * is left `running`.
 */
int runner_window(struct run_ctx *rc, const struct window_plan *wp)
{
	struct window_ctx w;
	struct window_judgement j;
	int ret, limit = 0;

	memset(&j, 0, sizeof(j));
	rc->cur_impl = wp->arm->name;   /* for the progress lines */
	rc->cur_rate = wp->rate;
	window_ctx_init(&w, rc, wp);
	ret = store_window_set_state(&rc->st, wp->id, WINDOW_RUNNING, 1);
	if (ret)
		goto out;
	ret = window_warmup(&w);
	if (!ret)
		ret = window_measure(&w);
	if (!ret) {
		window_judge(&w, &j);
		ret = window_store(&w, &j);
	}
	if (!ret) {
		/* the window stands as measured; a sandbox limit hit during it
		 * then ends the run as the arm's failure (runner.c) */
		limit = runner_arm_limit_hit(rc, wp->arm, wp->id);
		window_done(&w, &j.verdict);
	} else if (ret > 0)
		store_event(&rc->st, rc->run_id, wp->id, "window_interrupted",
			    "%s: interrupted; resume runs it again", wp->arm->name);
	if (ret)
		store_window_set_state(&rc->st, wp->id, WINDOW_PLANNED, 0);
	if (limit)
		ret = -1;
out:
	if (ret < 0)
		rc->fatal = 1;
	free(j.gates);
	free(j.head);
	window_ctx_release(&w);
	return ret;
}
