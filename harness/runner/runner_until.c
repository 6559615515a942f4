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
#include "runner/runner_until.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

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
		if (!until_arm_named(rc, base.buf))
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
		r.method = (char *)decide_method_name((enum decide_method)sc->sequential.method);
		r.guard = (char *)decide_guard_rule_name(DECIDE_GUARD_DROP_WORST_RISE);
		r.margin_rule = (char *)decide_margin_rule_name(
			(enum decide_margin_rule)sc->sequential.margin_rule);
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
		p->arm = until_arm_named(rc, r->impl);
		p->base = until_arm_named(rc, rates.buf);
		if (!p->arm || !p->base) {
			error("%s: the stopping rule of %s has no arms %s and %s", rc->run_id,
			      r->impl, r->impl, rates.buf);
			goto out;
		}
		p->on[0] = !!(rc->spec->compare.metrics & CMP_P99);
		p->on[1] = !!(rc->spec->compare.metrics & CMP_CPU_PER_REQUEST);
		if (r->rates) {
			until_rates_parse(p, r->rates);
			continue;
		}
		/* fixed now, before the first sequential block */
		until_judged_rates(p, &w);
		sbuf_reset(&rates);
		until_rates_text(p, &rates);
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
	const char *stop = until_outcome_stop(rc, p, w, &why);

	if (stop && !strcmp(stop, "failed_windows") && seq != DECIDE_UNDECIDED)
		stop = NULL;
	if (!stop) {
		p->answer = seq;
		sbuf_release(&why);
		return 0;
	}
	fprintf(stderr, "harness: sequential %s: %s\n", p->rule->impl, why.buf);
	store_event(&rc->st, rc->run_id, -1, "sequential_rerun", "%s: %s", p->rule->impl, why.buf);
	until_finish(rc, u, p, stop, blocks);
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
			until_add_rate(&p->rates, &p->nrates, &alloc, w->v[i].rate);
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
			until_judge(rc, p, &w);
			p->answer = DECIDE_UNDECIDED;
			if (!stop_without_rates(rc, u, p, &w, blocks))
				until_finish(rc, u, p, "no_rates", blocks);
			continue;
		}
		until_judge(rc, p, &w);
		until_store_metrics(rc, u, p);
		if (show)
			until_progress(rc, p, blocks);
		if (stop_by_outcome(rc, u, p, &w, blocks))
			continue;
		if (p->answer != DECIDE_UNDECIDED)
			until_finish(rc, u, p, "decided", blocks);
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
			until_finish(rc, u, &u->p[i], why, blocks);
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

	if (until_stored_blocks(rc, &planned, &open, &rate, arms, &n)) {
		ret = -1;
		goto out;
	}
	if (open >= 0 && n && (ret = until_seq_block(rc, open, rate, arms, n)))
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
		n = until_next_block(u, &w, &rate, arms);
		window_rows_release(&w);
		if (!n) {
			stop_all(rc, u, "no_rates", planned);
			break;
		}
		t0 = runner_now(rc);
		ret = until_seq_block(rc, planned, rate, arms, n);
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
