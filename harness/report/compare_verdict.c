/*
 * compare_verdict: from two loaded runs to a verdict per implementation and
 * an exit code that fails closed (the rules are in compare.h). The metric
 * cells each verdict reads (their rates, shifts, Holm family, MDE) are
 * compare_cells.c's; this file adds the run states, outcome failures and
 * knees, and decides.
 */
#include "report/compare.h"
#include "report/compare_cells.h"
#include "report/compare_pooled.h"
#include "report/compare_seq.h"
#include "base/rate.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_NO_CHANGE: return "no change";
	case CMP_IMPROVEMENT: return "improvement";
	case CMP_REGRESSION: return "regression";
	case CMP_INCONCLUSIVE: return "inconclusive";
	case CMP_NO_REGRESSION: return "no regression";
	case CMP_NA: break;
	}
	return "n/a";
}

/* ------------------------------------------------------------ helpers */

static int impl_index(const struct cmp_run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (!strcmp(r->impls[i], name))
			return (int)i;
	return -1;
}

static int is_control(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, "@base");
}

/* ------------------------------------------------------------ knee */

/* The valid windows of the rung at rate in a knee's table (0: none). */
static size_t rung_windows(const struct knee_result *k, double rate)
{
	size_t i;

	for (i = 0; i < k->nrungs; i++)
		if (rate_same(k->rungs[i].rate, rate))
			return k->rungs[i].nwin;
	return 0;
}

/* The highest rung where base's knee holds (NAN: none): its floor, or the
 * rung below its crossing. */
static double held_rung(const struct knee_result *k)
{
	if (k->kind == KNEE_FLOOR)
		return k->highest_rung_rps;
	if (k->crossed && !k->at_first_rung && k->lo < k->nrungs)
		return k->rungs[k->lo].rate;
	return NAN;
}

/* compare.h: NEW crosses at a rung where BASE holds (min_pairs valid
 * windows on both sides there), or NEW's point interval lies wholly below
 * BASE's. Writes the reason to why. */
static int knee_regression(const struct compare *c, const struct cmp_impl *ci,
			   struct sbuf *why)
{
	const struct knee_result *n = ci->knew, *b = ci->kbase;
	double cross, held;

	if (!n || !b || !n->crossed || b->kind == KNEE_NONE || n->hi >= n->nrungs)
		return 0;
	/* A crossing one stalled window makes (a rung's mean percentile
	 * pulled over the SLO) is not a regression: at least 1 - alpha of
	 * NEW's bootstrap resamples must cross too. */
	if (!n->nboot || (double)n->ncrossed < (1 - c->alpha) * (double)n->nboot)
		return 0;
	cross = n->rungs[n->hi].rate;
	held = held_rung(b);
	if (isfinite(held) && (cross < held || rate_same(cross, held)) &&
	    rung_windows(n, cross) >= c->min_pairs && rung_windows(b, cross) >= c->min_pairs) {
		sbuf_addf(why, "the knee: new crosses the SLO at %g req/s, where base holds "
			  "(%s)", cross, n->kind == KNEE_BRACKET ? n->reason : "latency");
		return 1;
	}
	if (n->kind == KNEE_POINT && b->kind == KNEE_POINT && n->has_ci && b->has_ci &&
	    n->inferential && b->inferential && n->ci_hi < b->ci_lo) {
		sbuf_addf(why, "the knee: new [%.0f, %.0f] req/s lies below base [%.0f, %.0f]",
			  n->ci_lo, n->ci_hi, b->ci_lo, b->ci_hi);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ one implementation */

/* Distinct failing gates of impl's failed windows at rate, into o. */
static void failed_gates(const struct cmp_run *r, const char *impl, double rate,
			 struct sbuf *o)
{
	size_t i, start = o->len;

	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		const char *g, *e;
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) ||
		    !w->failed || !w->reasons)
			continue;
		for (g = w->reasons; *g; g = *e ? e + 1 : e) {
			struct sbuf one = SBUF_INIT;
			e = strchrnul(g, ',');
			sbuf_add(&one, g, (size_t)(e - g));
			if (one.len && !strstr(o->buf + start, one.buf))
				sbuf_addf(o, "%s%s", o->len > start ? ", " : "", one.buf);
			sbuf_release(&one);
		}
	}
	if (o->len == start)
		sbuf_adds(o, "outcome gates");
}

static int run_finished(const struct cmp_run *r)
{
	return !strcmp(r->status, "finished");
}

static void run_state(struct sbuf *o, const struct cmp_run *r)
{
	sbuf_addf(o, "run %s %s", r->id, *r->status ? r->status : "(no status)");
	if (r->failure)
		sbuf_addf(o, " (%s)", r->failure);
}

/* Each unconfirmed rise: metric, shift, rate, p raw -> adjusted, MDE. */
static void suspects_why(const struct compare *c, const struct cmp_impl *ci, struct sbuf *why)
{
	size_t i;
	int j, n = 0;

	for (i = 0; i < ci->nrates; i++)
		for (j = 0; j < 2; j++) {
			const struct cmp_metric *m = j ? &ci->rates[i].cpu : &ci->rates[i].p99;
			if (!ci->rates[i].has_cells || m->verdict != CMP_INCONCLUSIVE ||
			    !isfinite(m->base) ||
			    !(m->ci.mean > m->margin))
				continue;
			sbuf_addf(why, "%s%s %+.1f%% at %g req/s beyond the margin (%.3g %s) but "
				  "not confirmed (p %.2g", n++ ? "; " : "",
				  j ? "cpu_per_request" : "latency", m->rel_pct, ci->rates[i].rate,
				  m->margin, j ? "us" : "ms", m->p_up);
			if (c->correction == CMP_CORRECT_HOLM)
				sbuf_addf(why, ", %.2g after Holm over %zu cells", m->padj_up,
					  m->family);
			if (isinf(m->mde))
				sbuf_adds(why, "; no shift detectable with this n");
			else if (isfinite(m->mde_pct))
				sbuf_addf(why, "; MDE %.1f%%", m->mde_pct);
			sbuf_adds(why, ")");
		}
}

/* One pooled metric for the why: "latency +245.1% (interval +180.2% to
 * +310.0%, margin 4.9%) over 2 rates, 6 pairs, sign-flip p 0.016 -> 0.031". */
static void pooled_why(const struct compare *c, const struct cmp_pooled *pm, struct sbuf *why)
{
	char nm[160];

	sbuf_addf(why, "%s %+.1f%%", cmp_pooled_name(c, pm, nm, sizeof(nm)), pm->est_pct);
	if (isfinite(pm->lo_pct))
		sbuf_addf(why, " (interval %+.1f%% to %+.1f%%", pm->lo_pct, pm->hi_pct);
	else
		sbuf_adds(why, " (no interval at this n");
	sbuf_addf(why, ", margin %.1f%%) over %zu rate%s, %zu pairs, signed-rank p %.2g",
		  pm->margin / pm->base_ref * 100, pm->nrates, pm->nrates == 1 ? "" : "s",
		  pm->npairs, pm->p_up <= pm->p_down ? pm->p_up : pm->p_down);
	if (c->correction == CMP_CORRECT_HOLM)
		sbuf_addf(why, " -> %.2g", pm->p_up <= pm->p_down ? pm->padj_up : pm->padj_down);
	if (pm->verdict == CMP_INCONCLUSIVE && isinf(pm->mde))
		sbuf_adds(why, "; no shift detectable with this n");
	else if (pm->verdict == CMP_INCONCLUSIVE && isfinite(pm->mde_pct))
		sbuf_addf(why, "; MDE %.1f%%", pm->mde_pct);
}

/* The regressed cells, "; "-separated after what why holds. */
static void cell_regressions(const struct compare *c, const struct cmp_impl *ci,
			     struct sbuf *why)
{
	size_t i;

	for (i = 0; i < ci->nrates; i++) {
		const struct cmp_rate *r = &ci->rates[i];
		int j;
		for (j = 0; j < 2; j++) {
			const struct cmp_metric *m = j ? &r->cpu : &r->p99;
			if (m->verdict == CMP_REGRESSION)
				sbuf_addf(why, "%s%s +%.1f%% at %g req/s", why->len ? "; " : "",
					  j ? "cpu_per_request" : "latency", m->rel_pct, r->rate);
		}
		for (j = 0; j < (int)r->nreq; j++)
			if (r->req[j].verdict == CMP_REGRESSION && cmp_req_judged(c, (size_t)j))
				sbuf_addf(why, "%srequest %s's latency +%.1f%% at %g req/s",
					  why->len ? "; " : "", c->new_.reqs[j], r->req[j].rel_pct,
					  r->rate);
	}
}

/* Each pooled metric with verdict v (any when v is CMP_NA) into why. */
static void pooled_list(const struct compare *c, const struct cmp_impl *ci,
			enum cmp_verdict v, struct sbuf *why)
{
	size_t i;

	for (i = 0; i < ci->npooled; i++) {
		const struct cmp_pooled *pm = &ci->pooled[i];
		if (pm->verdict == CMP_NA || (v != CMP_NA && pm->verdict != v))
			continue;
		if (why->len)
			sbuf_adds(why, "; ");
		pooled_why(c, pm, why);
		if (v == CMP_NA)
			sbuf_addf(why, ": %s", cmp_verdict_name(pm->verdict));
	}
}

/* Cells only (unpaired, or judged by the confidence sequence): the rule
 * of compare.h's cells. */
static void cells_verdict(struct compare *c, struct cmp_impl *ci, const int tally[6],
			  struct sbuf *why)
{
	ci->decided_by = "cells";
	if (ci->suspects) {
		/* A rise beyond the margin the test could not confirm (too few
		 * windows after the correction) is no pass: fail closed. */
		ci->verdict = CMP_INCONCLUSIVE;
		suspects_why(c, ci, why);
		return;
	} else if (!tally[CMP_IMPROVEMENT] && !tally[CMP_NO_CHANGE]) {
		/* Pairs enough, but no interval decided anything: "no
		 * regression" would be a guess. */
		ci->verdict = CMP_INCONCLUSIVE;
		sbuf_addf(why, "no metric decided at any of %zu rates (%d undecided cells: "
			  "intervals wider than the margin, or too few accepted pairs for the "
			  "level); %zu valid pairs at best", ci->nrates, tally[CMP_INCONCLUSIVE],
			  ci->max_vpairs);
		return;
	} else if (tally[CMP_IMPROVEMENT])
		ci->verdict = CMP_IMPROVEMENT;
	else if (tally[CMP_INCONCLUSIVE] || !tally[CMP_NO_CHANGE])
		ci->verdict = CMP_NO_REGRESSION;
	else
		ci->verdict = CMP_NO_CHANGE;
	sbuf_addf(why, "%d improved, %d equivalent, %d undecided cells over %zu rates; "
		  "%zu valid pairs at best", tally[CMP_IMPROVEMENT], tally[CMP_NO_CHANGE],
		  tally[CMP_INCONCLUSIVE], ci->nrates, ci->max_vpairs);
}

/*
 * The metrics' verdict (compare.h, "Pooled evidence decides"): a
 * regression of a pooled metric or of a cell; else the pooled metrics
 * decide: one undecided beyond +margin is inconclusive, none decided is
 * inconclusive, an improvement (pooled or cell) is one, all equivalent is
 * no change (no regression when a cell rose beyond the margin
 * unconfirmed), else no regression.
 */
static void metric_verdict(struct compare *c, struct cmp_impl *ci, const int tally[6],
			   struct sbuf *why)
{
	int pt[6] = { 0 };
	size_t i, tested = 0, suspects = 0;

	for (i = 0; i < ci->npooled; i++) {
		const struct cmp_pooled *pm = &ci->pooled[i];
		pt[pm->verdict]++;
		tested += pm->verdict != CMP_NA;
		suspects += pm->verdict == CMP_INCONCLUSIVE && pm->shift > pm->margin;
	}
	if (ci->verdict == CMP_REGRESSION || pt[CMP_REGRESSION] || tally[CMP_REGRESSION]) {
		if (ci->verdict != CMP_REGRESSION)
			ci->decided_by = pt[CMP_REGRESSION] && tally[CMP_REGRESSION]
				? "pooled test and cell" : pt[CMP_REGRESSION] ? "pooled test" : "cell";
		ci->verdict = CMP_REGRESSION;
		pooled_list(c, ci, CMP_REGRESSION, why);
		cell_regressions(c, ci, why);
		return;
	}
	if (!tested) {
		cells_verdict(c, ci, tally, why);
		return;
	}
	ci->decided_by = "pooled test";
	if (suspects || (!pt[CMP_IMPROVEMENT] && !pt[CMP_NO_CHANGE] && !tally[CMP_IMPROVEMENT])) {
		/* a rise nobody confirmed, or nothing decided: no pass */
		ci->verdict = CMP_INCONCLUSIVE;
		pooled_list(c, ci, CMP_NA, why);
		return;
	}
	if (pt[CMP_IMPROVEMENT] || tally[CMP_IMPROVEMENT]) {
		ci->verdict = CMP_IMPROVEMENT;
		if (!pt[CMP_IMPROVEMENT])
			ci->decided_by = "cell";
	} else if ((size_t)pt[CMP_NO_CHANGE] == tested && !ci->suspects) {
		ci->verdict = CMP_NO_CHANGE;
	} else {
		ci->verdict = CMP_NO_REGRESSION;
	}
	pooled_list(c, ci, CMP_NA, why);
	sbuf_addf(why, "; cells: %d improved, %d equivalent, %d undecided", tally[CMP_IMPROVEMENT],
		  tally[CMP_NO_CHANGE], tally[CMP_INCONCLUSIVE]);
	if (ci->suspects)
		sbuf_addf(why, " (%zu beyond +margin unconfirmed)", ci->suspects);
}

/* The verdict and its one-line why, in compare.h's order. */
static void impl_verdict(struct compare *c, struct cmp_impl *ci, const int tally[6],
			 struct sbuf *why)
{
	const struct cmp_run *nw = &c->new_;
	size_t i;

	if (!strcmp(nw->status, "failed") && nw->failure_kind && nw->failure_impl &&
	    !strcmp(nw->failure_impl, ci->name) &&
	    (!strcmp(nw->failure_kind, "build") || !strcmp(nw->failure_kind, "start") ||
	     !strcmp(nw->failure_kind, "limit") || !strcmp(nw->failure_kind, "preflight"))) {
		ci->verdict = CMP_REGRESSION;
		ci->decided_by = "the new commit";
		sbuf_addf(why, "the new commit %s (run %s failed; see %s)",
			  !strcmp(nw->failure_kind, "build") ? "failed to build"
			  : !strcmp(nw->failure_kind, "start") ? "never came up healthy"
			  : !strcmp(nw->failure_kind, "limit") ? "hit its sandbox limits"
			  : "answered its pre-flight wrong",
			  nw->id, !strcmp(nw->failure_kind, "preflight")
			  ? "harness status, or runs.preflight" : "its logs/");
		/* the pre-flight's failure names the case and shows the difference */
		if (!strcmp(nw->failure_kind, "preflight") && nw->failure)
			sbuf_addf(why, ": %s", nw->failure);
		return;
	}
	if (!run_finished(nw) || !run_finished(&c->base)) {
		ci->verdict = CMP_INCONCLUSIVE;
		ci->decided_by = "run state";
		run_state(why, !run_finished(nw) ? nw : &c->base);
		if (!run_finished(nw) && !run_finished(&c->base)) {
			sbuf_adds(why, "; ");
			run_state(why, &c->base);
		}
		return;
	}
	for (i = 0; i < ci->nrates; i++) {
		const struct cmp_rate *r = &ci->rates[i];
		if (!r->outcome_regression)
			continue;
		if (ci->verdict != CMP_REGRESSION) {
			ci->verdict = CMP_REGRESSION;
			ci->decided_by = "outcome gates";
		} else {
			sbuf_adds(why, "; ");
		}
		sbuf_addf(why, "at %g req/s new failed %zu of %zu valid windows (", r->rate, r->fnew,
			  r->vnew);
		failed_gates(nw, ci->name, r->rate, why);
		sbuf_addf(why, ") where base held (all %zu valid windows accepted)", r->vbase);
	}
	{
		struct sbuf k = SBUF_INIT;
		if (knee_regression(c, ci, &k)) {
			sbuf_addf(why, "%s%s", ci->verdict == CMP_REGRESSION ? "; " : "", k.buf);
			if (ci->verdict != CMP_REGRESSION)
				ci->decided_by = "knee";
			ci->verdict = CMP_REGRESSION;
		}
		sbuf_release(&k);
	}
	/* A sequential rerun is judged by its own rule: a fixed-n test of
	 * data it stopped collecting when they looked decided is invalid. */
	if (ci->seq && ci->verdict != CMP_REGRESSION) {
		ci->decided_by = "sequential";
		cmp_seq_verdict(ci, why);
		return;
	}
	if (ci->verdict != CMP_REGRESSION && ci->max_vpairs < c->min_pairs) {
		ci->verdict = CMP_INCONCLUSIVE;
		ci->decided_by = "evidence";
		sbuf_addf(why, "not enough valid evidence: at most %zu valid window pairs at any "
			  "rate (compare.min_pairs %zu)", ci->max_vpairs, c->min_pairs);
		return;
	}
	metric_verdict(c, ci, tally, why);
}

static void impl_compare(struct compare *c, struct cmp_impl *ci, const char *name)
{
	const struct cmp_run *bs = &c->base;
	struct sbuf arm = SBUF_INIT, why = SBUF_INIT;
	int tally[6] = { 0 };
	int bi = impl_index(&c->base, name), ni = impl_index(&c->new_, name);

	ci->name = xstrdup(name);
	ci->base_commit = bi >= 0 ? c->base.commits[bi] : NULL;
	ci->new_commit = ni >= 0 ? c->new_.commits[ni] : NULL;
	ci->new_ref = ni >= 0 ? c->new_.refs[ni] : NULL;
	sbuf_addf(&arm, "%s@base", name);
	if (ci->paired) {
		int ai = impl_index(&c->new_, arm.buf);
		bs = &c->new_;
		if (ai >= 0 && c->new_.commits[ai])
			ci->base_commit = c->new_.commits[ai];
	} else {
		sbuf_reset(&arm);
		sbuf_adds(&arm, name);
	}
	cmp_impl_rates(c, ci, bs, arm.buf, tally);
	cmp_seq_judge(c, ci);
	{
		int kb = impl_index(bs, arm.buf);
		ci->kbase = kb >= 0 ? cmp_run_knee(bs, (size_t)kb) : NULL;
		ci->knew = ni >= 0 ? cmp_run_knee(&c->new_, (size_t)ni) : NULL;
	}
	impl_verdict(c, ci, tally, &why);
	ci->why = sbuf_detach(&why, NULL);
	sbuf_release(&arm);
}

/* ------------------------------------------------------------ the runs */

static int commit_changed(const struct compare *c, const char *name)
{
	int bi = impl_index(&c->base, name), ni = impl_index(&c->new_, name);

	if (bi < 0 || ni < 0 || !c->base.commits[bi] || !c->new_.commits[ni])
		return 1;  /* unknown: treat as changed */
	return strcmp(c->base.commits[bi], c->new_.commits[ni]) != 0;
}

static int same_run(const struct cmp_run *a, const struct cmp_run *b)
{
	return !strcmp(a->id, b->id) && !strcmp(a->dir, b->dir);
}

int compare_runs(struct compare *c, struct cmp_run *base, struct cmp_run *new_,
		 const struct compare_opts *opts)
{
	const char *only = opts ? opts->only : NULL;
	struct sbuf arm = SBUF_INIT;
	size_t i, alloc = 0;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->base = *base;
	c->new_ = *new_;
	memset(base, 0, sizeof(*base));
	memset(new_, 0, sizeof(*new_));
	c->margin_pct = c->new_.margin_pct;
	c->margin_ms = c->new_.margin_ms;
	c->margin_cpu_us = c->new_.margin_cpu_us;
	c->alpha = c->new_.alpha;
	c->min_pairs = c->new_.min_pairs;
	c->metrics = c->new_.metrics;
	{
		int iv = opts && opts->interval >= 0 ? opts->interval : c->new_.interval;

		c->correction = opts && opts->correction >= 0 ? opts->correction
							      : c->new_.correction;
		c->method_unpaired = iv == CMP_INTERVAL_T ? STAT_T : STAT_HL;
		/* A run that stopped its confirm by looking at its intervals is
		 * judged by the sequence it stopped by (valid at any stopping
		 * time); an interval forced on the command line wins. */
		if (iv == CMP_INTERVAL_CS ||
		    (c->new_.sequential && !(opts && opts->interval >= 0)))
			c->method_paired = STAT_CS;
		else
			c->method_paired = c->method_unpaired;
	}
	c->same_spec = !strcmp(c->base.spec_hash, c->new_.spec_hash);
	c->same_run = same_run(&c->base, &c->new_);
	c->version_diffs = cmp_version_diffs(&c->base, &c->new_);
	if (only && (impl_index(&c->base, only) < 0 || impl_index(&c->new_, only) < 0)) {
		error("--impl %s: not an implementation of both %s and %s", only, c->base.id,
		      c->new_.id);
		goto out;
	}
	for (i = 0; i < c->new_.nimpls; i++) {
		const char *name = c->new_.impls[i];
		struct cmp_impl *ci;
		int paired;

		if (is_control(name) || impl_index(&c->base, name) < 0 || (only && strcmp(only, name)))
			continue;
		sbuf_reset(&arm);
		sbuf_addf(&arm, "%s@base", name);
		paired = impl_index(&c->new_, arm.buf) >= 0;
		if (c->same_run && !paired)
			continue;  /* a run against itself: nothing to learn */
		XGROW(c->impls, alloc, c->nimpls + 1);
		ci = &c->impls[c->nimpls++];
		memset(ci, 0, sizeof(*ci));
		ci->paired = paired;
		ci->judged = only ? 1 : paired || (opts && opts->judge_unpaired &&
						   commit_changed(c, name));
		impl_compare(c, ci, name);
		if (!ci->judged)
			continue;
		c->judged++;
		c->regressions += ci->verdict == CMP_REGRESSION;
		c->inconclusive += ci->verdict == CMP_INCONCLUSIVE;
	}
	if (!c->nimpls) {
		if (c->same_run)
			error("compare: BASE and NEW are the same run (%s) and it has no "
			      "<impl>@base arm: nothing to compare", c->new_.id);
		else
			error("%s and %s have no implementation in common", c->base.id, c->new_.id);
		goto out;
	}
	c->exit_code = c->regressions ? 1 : (c->inconclusive || !c->judged) ? 3 : 0;
	ret = 0;
out:
	sbuf_release(&arm);
	return ret;
}

void compare_release(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nimpls; i++) {
		for (size_t j = 0; j < c->impls[i].nrates; j++) {
			for (size_t k = 0; k < c->impls[i].rates[j].nreq; k++) {
				free(c->impls[i].rates[j].req[k].xa);
				free(c->impls[i].rates[j].req[k].xb);
			}
			free(c->impls[i].rates[j].req);
		}
		free(c->impls[i].name);
		free(c->impls[i].pooled);
		cmp_seq_free(c->impls[i].seq);
		free(c->impls[i].rates);
		free(c->impls[i].why);
	}
	free(c->impls);
	free(c->version_diffs);
	cmp_run_release(&c->base);
	cmp_run_release(&c->new_);
	memset(c, 0, sizeof(*c));
}
