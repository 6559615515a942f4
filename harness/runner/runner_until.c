/*
 * runner_until: `harness rerun --until-decided` (docs/STATISTICS.md
 * "Sequential rerun"; the rule is decide.h's, its rows store_seq.h's).
 *
 * When the rerun starts, one stopping rule per implementation with an
 * "<impl>@base" arm is stored: the sequence's level and tuning, the
 * margins, the budget. After the pre-registered stages, the judged rates
 * are fixed (and stored): the rates where both arms ran in one block (a
 * void pair is measured again) and neither has a failed window (a rate
 * where one fails the SLO is the outcome and knee rules' to judge, not a
 * shift's). Then, one
 * round at a time, a block (NEW and @base once each, in the stage's
 * counterbalanced order) at every judged rate whose paired count lags, and
 * after each block every undecided rule is judged again from the stored
 * windows. A rule stops when its answer is known (every metric decided,
 * or one a regression) or the budget ends (no round starts that the last
 * round's duration says would end past max_minutes; max_blocks). A void
 * (rejected) window leaves its rate lagging, so the next round measures it
 * again: it is replaced, never judged. A failed window is a measurement
 * of the outcome (its pair counts as measured), judged by compare's
 * outcome rule (NEW failed most of its valid windows at a judged rate,
 * @base none: regression, stop "outcome"); a rate whose failed sequential
 * pairs (min_pairs or more) outnumber its usable ones stops an undecided
 * rule ("failed_windows"), never holding the rounds back to the budget.
 *
 * Everything is read from the store, so `harness resume` continues the
 * same rule from where it stopped (a block planned but not finished is
 * finished first).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/decide.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

#define SEQ_STAGE "sequential"

static const char *const metric_names[2] = { "latency", "cpu_per_request" };

/* One rule and its arms. */
struct pair {
	struct seq_rule *rule;       /* borrowed from struct until */
	struct arm *arm, *base;
	double *rates;               /* judged rates */
	size_t nrates;
	struct decide_metric m[2];
	int on[2];                   /* metric judged (compare.metric) */
	enum decide_verdict answer;
};

struct until {
	const struct run_ctx *rc;    /* its clock (runner_now) */
	struct seq_rule *rules;
	size_t n;
	struct pair *p;
	double block_s;              /* seconds of the last block run here */
	double round_s;              /* block_s x the judged rates: a round */
};

static struct arm *arm_named(struct run_ctx *rc, const char *name)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		if (!strcmp(rc->arms[i].name, name))
			return &rc->arms[i];
	return NULL;
}

static size_t nmetrics(const struct spec *s)
{
	return (size_t)!!(s->compare.metrics & CMP_P99) +
	       (size_t)!!(s->compare.metrics & CMP_CPU_PER_REQUEST);
}

int runner_until_register(struct run_ctx *rc, const struct run_opts *o)
{
	const struct spec_compare *sc = &rc->spec->compare;
	struct sbuf base = SBUF_INIT;
	size_t i, n = 0;
	int ret = 0;

	for (i = 0; i < rc->narms && !ret; i++) {
		struct seq_rule r;

		sbuf_reset(&base);
		sbuf_addf(&base, "%s@base", rc->arms[i].name);
		if (!arm_named(rc, base.buf))
			continue;
		memset(&r, 0, sizeof(r));
		r.run_id = rc->run_id;
		r.impl = rc->arms[i].name;
		/* Bonferroni over the metrics: every answer of the run is
		 * right with probability >= 1 - compare.alpha */
		r.alpha = sc->alpha / (double)(nmetrics(rc->spec) ? nmetrics(rc->spec) : 1);
		r.t_star = DECIDE_T_STAR;
		r.margin_pct = sc->margin_pct;
		r.margin_ms = sc->margin_ms;
		r.margin_cpu_us = sc->margin_cpu_us;
		r.max_minutes = o->max_minutes > 0 ? o->max_minutes : sc->sequential.max_minutes;
		r.max_blocks = sc->sequential.max_blocks;
		r.started_at = runner_now(rc);
		r.elapsed_s = NAN;
		ret = store_seq_rule_put(&rc->st, &r);
		n++;
	}
	sbuf_release(&base);
	if (!ret && !n)
		return error("rerun: --until-decided: no implementation has an @base arm "
			     "(give --with-baseline)");
	return ret;
}

/* ------------------------------------------------------------ evidence */

/* x's partner in w: the other arm's window of the same stage, block and
 * rate, or NULL. */
static const struct window_row *partner(const struct window_rows *w, const struct window_row *x,
					const char *other)
{
	size_t j;

	for (j = 0; j < w->n; j++)
		if (w->v[j].impl && !strcmp(w->v[j].impl, other) &&
		    !strcmp(w->v[j].stage, x->stage) && w->v[j].block == x->block &&
		    rate_same(w->v[j].rate, x->rate) && w->v[j].state == WINDOW_DONE)
			return &w->v[j];
	return NULL;
}

static void add_rate(double **v, size_t *n, size_t *alloc, double r)
{
	size_t j;

	for (j = 0; j < *n; j++)
		if (rate_same((*v)[j], r))
			return;
	XGROW(*v, *alloc, *n + 1);
	(*v)[(*n)++] = r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The judged rates of p from the pre-registered windows (file comment):
 * the rates where both arms ran in one block (void windows included:
 * they are measured again), less those where either has a failed one. */
static void judged_rates(struct pair *p, const struct window_rows *w)
{
	double *bad = NULL;
	size_t i, j, nbad = 0, abad = 0, alloc = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (x->state == WINDOW_DONE && x->status == WINDOW_FAILED && x->impl &&
		    (!strcmp(x->impl, p->arm->name) || !strcmp(x->impl, p->base->name)))
			add_rate(&bad, &nbad, &abad, x->rate);
	}
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE ||
		    !strcmp(x->stage, SEQ_STAGE) || !partner(w, x, p->base->name))
			continue;
		for (j = 0; j < nbad && !rate_same(bad[j], x->rate); j++)
			;
		if (j == nbad)
			add_rate(&p->rates, &p->nrates, &alloc, x->rate);
	}
	if (p->nrates)
		qsort(p->rates, p->nrates, sizeof(*p->rates), cmp_double);
	free(bad);
}

static void rates_text(const struct pair *p, struct sbuf *out)
{
	size_t j;

	for (j = 0; j < p->nrates; j++)
		sbuf_addf(out, "%s%.17g", j ? "," : "", p->rates[j]);
}

static void rates_parse(struct pair *p, const char *s)
{
	size_t alloc = 0;

	while (s && *s) {
		char *end;
		double r = strtod(s, &end);

		if (end == s)
			break;
		add_rate(&p->rates, &p->nrates, &alloc, r);
		s = *end == ',' ? end + 1 : end;
	}
}

/* The pairs of p's arms at its judged rates, both accepted (decide.h). */
static size_t pairs_of(const struct pair *p, const struct window_rows *w,
		       const struct spec *s, int cpu, struct decide_obs *obs)
{
	size_t i, j, n = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE)
			continue;
		for (j = 0; j < p->nrates && !rate_same(p->rates[j], x->rate); j++)
			;
		if (j == p->nrates || !(y = partner(w, x, p->base->name)))
			continue;
		obs[n].rate = x->rate;
		obs[n].order = x->id > y->id ? x->id : y->id;
		/* CPU in us/request, the unit of compare.margin_cpu_us */
		obs[n].new_ = runner_seq_value(x, s, cpu) * (cpu ? 1e3 : 1);
		obs[n].base = runner_seq_value(y, s, cpu) * (cpu ? 1e3 : 1);
		n++;
	}
	return n;
}

/* Judge p again from the stored windows w. */
static void judge(struct run_ctx *rc, struct pair *p, const struct window_rows *w)
{
	struct decide_obs *obs = xcalloc(w->n + 1, sizeof(*obs));
	enum decide_verdict v[2];
	size_t k = 0;
	int cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		struct decide_rule r = { p->rule->alpha, p->rule->t_star, p->rule->margin_pct,
					 cpu ? p->rule->margin_cpu_us : p->rule->margin_ms };
		size_t n;

		if (!p->on[cpu])
			continue;
		n = pairs_of(p, w, rc->spec, cpu, obs);
		decide_metric(&r, p->rates, p->nrates, obs, n, &p->m[cpu]);
		v[k++] = p->m[cpu].verdict;
	}
	p->answer = decide_overall(v, k);
	free(obs);
}

/* ------------------------------------------------------------ failed windows */

/* Valid (accepted or failed) and failed windows of impl at rate, every
 * stage: compare's counts (compare_cells.c). */
static void valid_counts(const struct window_rows *w, const char *impl, double rate,
			 size_t *nvalid, size_t *nfailed)
{
	size_t i;

	*nvalid = *nfailed = 0;
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (!x->impl || strcmp(x->impl, impl) || !rate_same(x->rate, rate) ||
		    x->state != WINDOW_DONE ||
		    (x->status != WINDOW_ACCEPTED && x->status != WINDOW_FAILED))
			continue;
		(*nvalid)++;
		*nfailed += x->status == WINDOW_FAILED;
	}
}

/* Sequential pairs of p at rate with a failed window (either arm), and
 * the pairs there with both accepted (every stage). */
static void failed_pairs(const struct pair *p, const struct window_rows *w, double rate,
			 size_t *nfailed, size_t *nusable)
{
	size_t i;

	*nfailed = *nusable = 0;
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE ||
		    !rate_same(x->rate, rate) || !(y = partner(w, x, p->base->name)))
			continue;
		if (x->status == WINDOW_ACCEPTED && y->status == WINDOW_ACCEPTED)
			(*nusable)++;
		else if (!strcmp(x->stage, SEQ_STAGE) &&
			 (x->status == WINDOW_FAILED || y->status == WINDOW_FAILED))
			(*nfailed)++;
	}
}

/* The failed windows' verdict on p (file comment): NULL while none, else
 * the stop reason, p->answer set and the rate named in why. */
static const char *outcome_stop(const struct run_ctx *rc, struct pair *p,
				const struct window_rows *w, struct sbuf *why)
{
	size_t j, min = rc->spec->compare.min_pairs > 0 ? (size_t)rc->spec->compare.min_pairs : 3;

	for (j = 0; j < p->nrates; j++) {
		size_t vn, fn, vb, fb, nf, nu;

		valid_counts(w, p->arm->name, p->rates[j], &vn, &fn);
		valid_counts(w, p->base->name, p->rates[j], &vb, &fb);
		if (vn >= min && vb >= min && 2 * fn > vn && fb == 0) {
			p->answer = DECIDE_REGRESSION;
			sbuf_addf(why, "at %g req/s %s failed %zu of %zu valid windows where %s "
				  "held", p->rates[j], p->arm->name, fn, vn, p->base->name);
			return "outcome";
		}
		failed_pairs(p, w, p->rates[j], &nf, &nu);
		if (nf >= min && nf > nu) {
			p->answer = DECIDE_UNDECIDED;
			sbuf_addf(why, "at %g req/s %zu sequential pairs had a failed window, %zu "
				  "pairs are usable (%s failed %zu, %s %zu)", p->rates[j], nf, nu,
				  p->arm->name, fn, p->base->name, fb);
			return "failed_windows";
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ reporting */

static double need_seconds(const struct until *u, const struct pair *p, int cpu)
{
	const struct decide_metric *m = &p->m[cpu];
	/* the pace of the sequential rounds, else of the whole rerun so far */
	double per = u->round_s > 0 ? u->round_s
		     : m->rounds ? (runner_now(u->rc) - p->rule->started_at) / (double)m->rounds : NAN;

	if (m->verdict != DECIDE_UNDECIDED || m->rounds_needed == DECIDE_NEVER || !(per > 0))
		return NAN;
	return (double)(m->rounds_needed - m->rounds) * per;
}

static void store_metrics(struct run_ctx *rc, const struct until *u, const struct pair *p)
{
	int cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &p->m[cpu];
		struct seq_metric row;

		if (!p->on[cpu])
			continue;
		row.run_id = rc->run_id;
		row.impl = p->rule->impl;
		row.metric = (char *)metric_names[cpu];
		row.verdict = (char *)decide_verdict_name(m->verdict);
		row.rounds = (int)m->rounds;
		row.est_pct = decide_pct(m->est);
		row.lo_pct = decide_pct(m->lo);
		row.hi_pct = decide_pct(m->hi);
		row.margin_pct = decide_pct(m->margin);
		row.mde_pct = decide_pct(m->mde);
		row.need_s = need_seconds(u, p, cpu);
		store_seq_metric_put(&rc->st, &row);
	}
}

/* "latency +1.2% [-3.0%, +5.5%] margin +-40.0%: no change" per metric. */
static void describe(const struct pair *p, struct sbuf *out)
{
	int cpu, k = 0;

	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &p->m[cpu];

		if (!p->on[cpu])
			continue;
		sbuf_addf(out, "%s%s ", k++ ? "; " : "", metric_names[cpu]);
		if (isfinite(m->lo))
			sbuf_addf(out, "%+.1f%% [%+.1f%%, %+.1f%%]", decide_pct(m->est),
				  decide_pct(m->lo), decide_pct(m->hi));
		else
			sbuf_adds(out, "(no interval yet)");
		if (isfinite(m->margin))
			sbuf_addf(out, " margin +-%.1f%%", decide_pct(m->margin));
		sbuf_addf(out, ": %s", decide_verdict_name(m->verdict));
	}
}

static void progress(struct run_ctx *rc, const struct pair *p, int blocks)
{
	struct sbuf s = SBUF_INIT;

	describe(p, &s);
	fprintf(stderr, "harness: sequential %s: block %d, %zu rounds over %zu rates: %s\n",
		p->rule->impl, blocks, p->m[p->on[0] ? 0 : 1].rounds, p->nrates, s.buf);
	(void)rc;
	sbuf_release(&s);
}

/* The rule stops: its outcome and why, stored and said. */
static void finish(struct run_ctx *rc, const struct until *u, struct pair *p, const char *stop,
		   int blocks)
{
	struct seq_rule *r = p->rule;
	struct sbuf s = SBUF_INIT;
	int cpu;

	free(r->outcome);
	free(r->stop);
	r->outcome = xstrdup(p->answer == DECIDE_UNDECIDED ? "inconclusive"
							    : decide_verdict_name(p->answer));
	r->stop = xstrdup(stop);
	r->blocks = blocks;
	r->rounds = (int)p->m[p->on[0] ? 0 : 1].rounds;
	r->elapsed_s = runner_now(rc) - r->started_at;
	store_seq_rule_put(&rc->st, r);
	store_metrics(rc, u, p);
	describe(p, &s);
	fprintf(stderr, "harness: sequential %s: %s (%s) after %d sequential blocks, %d rounds, "
			"%.0f s: %s\n", r->impl, r->outcome, stop, blocks, r->rounds, r->elapsed_s,
		s.buf);
	for (cpu = 0; cpu < 2 && p->answer == DECIDE_UNDECIDED; cpu++) {
		const struct decide_metric *m = &p->m[cpu];
		double need = need_seconds(u, p, cpu);

		if (!p->on[cpu] || m->verdict != DECIDE_UNDECIDED)
			continue;
		fprintf(stderr, "harness: sequential %s: %s undecided: MDE %+.1f%% (the smallest "
				"shift called with 80%% power at %zu rounds); ", r->impl,
			metric_names[cpu], decide_pct(m->mde), m->rounds);
		if (isfinite(need))
			fprintf(stderr, "a decision would need about %zu rounds more, ~%.0f min\n",
				m->rounds_needed - m->rounds, need / 60);
		else
			fprintf(stderr, "no decision in sight at this estimate\n");
	}
	store_event(&rc->st, rc->run_id, -1, "sequential_rerun", "%s: %s (%s) after %d blocks, "
		    "%d rounds: %s", r->impl, r->outcome, stop, blocks, r->rounds, s.buf);
	sbuf_release(&s);
}

/* ------------------------------------------------------------ blocks */

/* Run sequential block `block` at rate with these arms (planned first
 * when new, counterbalanced; windows done are kept): 0, 1, -1. */
static int seq_block(struct run_ctx *rc, int block, double rate, struct arm **arms, size_t n)
{
	struct block_spec b = { SEQ_STAGE, STAGE_ID_SEQUENTIAL, -1, block, rate, arms, n, NULL,
				NULL };
	size_t j;

	for (j = 0; j < rc->nrungs; j++)
		if (rate_same(rc->rungs[j], rate))
			b.rung = (int)j;
	rc->cur_stage = SEQ_STAGE;
	rc->cur_rung = b.rung;
	return runner_run_block(rc, &b);
}

static int valid_status(enum window_status s)
{
	return s == WINDOW_ACCEPTED || s == WINDOW_FAILED;
}

/* Measured pairs of p at rate: both windows valid (accepted or failed; a
 * rejected one is void and measured again). */
static size_t paired_at(const struct pair *p, const struct window_rows *w, double rate)
{
	size_t i, n = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (x->impl && !strcmp(x->impl, p->arm->name) && x->state == WINDOW_DONE &&
		    valid_status(x->status) && rate_same(x->rate, rate) &&
		    (y = partner(w, x, p->base->name)) && valid_status(y->status))
			n++;
	}
	return n;
}

/* The next block: the judged rate (of a live pair) with the fewest
 * accepted pairs, lowest rate first, and the live pairs' arms that lag
 * there. Returns the arm count (0: nothing to run). */
static size_t next_block(struct until *u, const struct window_rows *w, double *rate,
			 struct arm **arms)
{
	size_t i, j, best = (size_t)-1, n = 0;

	for (i = 0; i < u->n; i++)
		for (j = 0; !u->rules[i].outcome && j < u->p[i].nrates; j++) {
			size_t c = paired_at(&u->p[i], w, u->p[i].rates[j]);

			if (c < best || (c == best && u->p[i].rates[j] < *rate)) {
				best = c;
				*rate = u->p[i].rates[j];
			}
		}
	for (i = 0; best != (size_t)-1 && i < u->n; i++)
		for (j = 0; !u->rules[i].outcome && j < u->p[i].nrates; j++)
			if (rate_same(u->p[i].rates[j], *rate) &&
			    paired_at(&u->p[i], w, *rate) == best) {
				arms[n++] = u->p[i].arm;
				arms[n++] = u->p[i].base;
			}
	return n;
}

/* Sequential blocks planned so far (*planned: one more than the highest
 * block number), and the first one not finished (-1: none) with its
 * rate and arms (resume). */
static int stored_blocks(struct run_ctx *rc, int *planned, int *open_block, double *rate,
			 struct arm **arms, size_t *narms)
{
	struct window_query q = { .stage = SEQ_STAGE };
	struct window_rows w;
	size_t i, j;

	*planned = 0;
	*open_block = -1;
	*narms = 0;
	if (store_windows_load(&rc->st, rc->run_id, &q, &w))
		return -1;
	for (i = 0; i < w.n; i++) {
		if (w.v[i].block + 1 > *planned)
			*planned = w.v[i].block + 1;
		if (w.v[i].state != WINDOW_DONE && *open_block < 0)
			*open_block = w.v[i].block;
	}
	for (i = 0; i < w.n && *open_block >= 0; i++) {
		struct arm *a = w.v[i].impl ? arm_named(rc, w.v[i].impl) : NULL;

		if (w.v[i].block != *open_block || !a)
			continue;
		for (j = 0; j < *narms && arms[j] != a; j++)
			;
		if (j == *narms)
			arms[(*narms)++] = a;
		*rate = w.v[i].rate;
	}
	window_rows_release(&w);
	return 0;
}

/* ------------------------------------------------------------ the rule */

static int setup(struct run_ctx *rc, struct until *u)
{
	struct window_query q = { .done_only = 1 };
	struct window_rows w;
	struct sbuf rates = SBUF_INIT;
	size_t i;
	int ret = -1;

	if (store_windows_load(&rc->st, rc->run_id, &q, &w))
		return -1;
	u->p = xcalloc(u->n + 1, sizeof(*u->p));
	for (i = 0; i < u->n; i++) {
		struct pair *p = &u->p[i];
		struct seq_rule *r = &u->rules[i];

		p->rule = r;
		sbuf_reset(&rates);
		sbuf_addf(&rates, "%s@base", r->impl);
		p->arm = arm_named(rc, r->impl);
		p->base = arm_named(rc, rates.buf);
		if (!p->arm || !p->base) {
			error("%s: the stopping rule of %s has no arms %s and %s", rc->run_id,
			      r->impl, r->impl, rates.buf);
			goto out;
		}
		p->on[0] = !!(rc->spec->compare.metrics & CMP_P99);
		p->on[1] = !!(rc->spec->compare.metrics & CMP_CPU_PER_REQUEST);
		if (r->rates) {
			rates_parse(p, r->rates);
			continue;
		}
		/* fixed now, before the first sequential block */
		judged_rates(p, &w);
		sbuf_reset(&rates);
		rates_text(p, &rates);
		r->rates = sbuf_detach(&rates, NULL);
		if (store_seq_rule_put(&rc->st, r))
			goto out;
		store_event(&rc->st, rc->run_id, -1, "sequential_rerun",
			    "%s: judged rates %s req/s (paired blocks, no failed window)", r->impl,
			    *r->rates ? r->rates : "(none)");
	}
	ret = 0;
out:
	window_rows_release(&w);
	sbuf_release(&rates);
	return ret;
}

/* Stop p by its failed windows (outcome_stop): 1 stopped, 0 not. An
 * outcome regression wins over the sequence, as in compare; a rate that
 * cannot be judged stops only a rule the sequence left undecided. */
static int stop_by_outcome(struct run_ctx *rc, struct until *u, struct pair *p,
			   const struct window_rows *w, int blocks)
{
	enum decide_verdict seq = p->answer;
	struct sbuf why = SBUF_INIT;
	const char *stop = outcome_stop(rc, p, w, &why);

	if (stop && !strcmp(stop, "failed_windows") && seq != DECIDE_UNDECIDED)
		stop = NULL;
	if (!stop) {
		p->answer = seq;
		sbuf_release(&why);
		return 0;
	}
	fprintf(stderr, "harness: sequential %s: %s\n", p->rule->impl, why.buf);
	store_event(&rc->st, rc->run_id, -1, "sequential_rerun", "%s: %s", p->rule->impl, why.buf);
	finish(rc, u, p, stop, blocks);
	sbuf_release(&why);
	return 1;
}

/* No judged rate (every rate has a failed window): the outcome rule over
 * every rate NEW ran at, as compare applies it. 1 stopped, 0 not. */
static int stop_without_rates(struct run_ctx *rc, struct until *u, struct pair *p,
			      const struct window_rows *w, int blocks)
{
	size_t i, alloc = 0;
	int stopped;

	for (i = 0; i < w->n; i++)
		if (w->v[i].impl && !strcmp(w->v[i].impl, p->arm->name))
			add_rate(&p->rates, &p->nrates, &alloc, w->v[i].rate);
	stopped = stop_by_outcome(rc, u, p, w, blocks);
	free(p->rates);
	p->rates = NULL;
	p->nrates = 0;
	return stopped;
}

/* Judge every live rule; stop those decided. Returns how many live on. */
static int judge_all(struct run_ctx *rc, struct until *u, int blocks, int show)
{
	struct window_query q = { .done_only = 1, .with_hists = 1 };
	struct window_rows w;
	size_t i;
	int live = 0;

	if (store_windows_load(&rc->st, rc->run_id, &q, &w))
		return -1;
	for (i = 0; i < u->n; i++) {
		struct pair *p = &u->p[i];

		if (p->rule->outcome)
			continue;
		if (!p->nrates) {
			judge(rc, p, &w);
			p->answer = DECIDE_UNDECIDED;
			if (!stop_without_rates(rc, u, p, &w, blocks))
				finish(rc, u, p, "no_rates", blocks);
			continue;
		}
		judge(rc, p, &w);
		store_metrics(rc, u, p);
		if (show)
			progress(rc, p, blocks);
		if (stop_by_outcome(rc, u, p, &w, blocks))
			continue;
		if (p->answer != DECIDE_UNDECIDED)
			finish(rc, u, p, "decided", blocks);
		else
			live++;
	}
	window_rows_release(&w);
	return live;
}

/* The budget: why no more block starts (NULL: one may): one that the
 * last block's duration says would end past max_minutes. */
static const char *over_budget(const struct until *u, int blocks)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		const struct seq_rule *r = &u->rules[i];

		if (r->outcome)
			continue;
		if (blocks >= r->max_blocks)
			return "max_blocks";
		if (runner_now(u->rc) - r->started_at + u->block_s > r->max_minutes * 60)
			return "max_minutes";
	}
	return NULL;
}

static void stop_all(struct run_ctx *rc, struct until *u, const char *why, int blocks)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (!u->rules[i].outcome)
			finish(rc, u, &u->p[i], why, blocks);
}

static int exit_of(const struct until *u)
{
	size_t i;
	int code = EXIT_OK;

	for (i = 0; i < u->n; i++) {
		const char *o = u->rules[i].outcome ? u->rules[i].outcome : "inconclusive";

		if (!strcmp(o, "regression"))
			return EXIT_NEGATIVE;
		if (!strcmp(o, "inconclusive"))
			code = EXIT_ENV;
	}
	return code;
}

/* Blocks until every rule stopped; 0, 1 interrupted, -1 fatal. */
static int loop(struct run_ctx *rc, struct until *u)
{
	struct arm **arms = xcalloc(2 * rc->narms + 2, sizeof(*arms));
	int planned, open, live, ret = 0;
	double rate = 0;
	size_t n;

	if (stored_blocks(rc, &planned, &open, &rate, arms, &n)) {
		ret = -1;
		goto out;
	}
	if (open >= 0 && n && (ret = seq_block(rc, open, rate, arms, n)))
		goto out;
	for (;;) {
		struct window_query q = { .done_only = 1 };
		struct window_rows w;
		const char *why;
		double t0;

		live = judge_all(rc, u, planned, 1);
		if (live <= 0) {
			ret = live < 0 ? -1 : 0;
			break;
		}
		if ((why = over_budget(u, planned))) {
			stop_all(rc, u, why, planned);
			break;
		}
		if (store_windows_load(&rc->st, rc->run_id, &q, &w)) {
			ret = -1;
			break;
		}
		rate = INFINITY;
		n = next_block(u, &w, &rate, arms);
		window_rows_release(&w);
		if (!n) {
			stop_all(rc, u, "no_rates", planned);
			break;
		}
		t0 = runner_now(rc);
		ret = seq_block(rc, planned, rate, arms, n);
		if (ret)
			break;
		planned++;
		/* a round is a block at every judged rate */
		u->block_s = runner_now(rc) - t0;
		u->round_s = u->block_s * (double)u->p[0].nrates;
	}
out:
	free(arms);
	return ret;
}

int runner_until(struct run_ctx *rc)
{
	struct until u;
	int ret;

	memset(&u, 0, sizeof(u));
	u.rc = rc;
	rc->until_exit = -1;
	if (store_seq_rules_load(&rc->st, rc->run_id, &u.rules, &u.n))
		return -1;
	if (!u.n)
		return 0;
	rc->cur_stage = SEQ_STAGE;
	ret = setup(rc, &u);
	if (!ret)
		ret = loop(rc, &u);
	if (!ret)
		rc->until_exit = exit_of(&u);
	for (size_t i = 0; u.p && i < u.n; i++)
		free(u.p[i].rates);
	free(u.p);
	seq_rules_free(u.rules, u.n);
	return ret;
}
