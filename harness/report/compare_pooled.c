/*
 * compare_pooled: one stratified paired test per judged metric over every
 * rate (compare.h, struct cmp_pooled; docs/STATISTICS.md, "Pooled
 * evidence"): van Elteren's stratified signed-rank test of the pairs' log
 * ratios NEW / BASE, strata = rates (stat_strat_signed_rank). A pair is
 * the unit whose sign is exchangeable: in a block each arm runs once at
 * one rate (docs/DESIGN.md, "Interleaving"), so a block holds at most one
 * pair of a metric, and the arms' order in it was randomised.
 */
#include "report/compare.h"
#include "report/compare_pooled.h"
#include "store/store_seq.h"
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cell of pm's metric at rate i (NULL: not measured there). */
static const struct cmp_metric *cell_of(const struct cmp_impl *ci, size_t i,
					const struct cmp_pooled *pm)
{
	const struct cmp_rate *r = &ci->rates[i];

	if (!r->has_cells)
		return NULL;
	if (pm->req >= 0)
		return (size_t)pm->req < r->nreq ? &r->req[pm->req] : NULL;
	return pm->cpu ? &r->cpu : &r->p99;
}

static int usable(double a, double b)
{
	return isfinite(a) && isfinite(b) && a > 0 && b > 0;
}

/* One metric's pairs over the rates. */
struct pool {
	double *d;            /* log ratios NEW / BASE */
	size_t *st;           /* their stratum (rate) */
	double *dev;          /* each one less its rate's median */
	size_t n, alloc, alloc2, alloc3;
	double logb, wsum;    /* sum w log base, sum w (w = 1 / (pairs + 1)) */
	size_t nrates;
};

/* Adds the rate's usable pairs of m as stratum p->nrates. */
static void pool_rate(struct pool *p, const struct cmp_metric *m)
{
	size_t i, k = 0, first = p->n;
	double med, w;

	for (i = 0; i < m->nxa; i++) {
		if (!usable(m->xa[i], m->xb[i]))
			continue;
		XGROW(p->d, p->alloc, p->n + 1);
		XGROW(p->st, p->alloc2, p->n + 1);
		XGROW(p->dev, p->alloc3, p->n + 1);
		p->d[p->n] = log(m->xa[i] / m->xb[i]);
		p->st[p->n++] = p->nrates;
		k++;
	}
	if (!k)
		return;
	med = stat_median(p->d + first, k);
	w = 1.0 / (double)(k + 1);
	for (i = 0, k = first; i < m->nxa; i++) {
		if (!usable(m->xa[i], m->xb[i]))
			continue;
		p->dev[k] = p->d[k] - med;
		p->logb += w * log(m->xb[i]);
		p->wsum += w;
		k++;
	}
	p->nrates++;
}

static double pct_of(double x)
{
	return isnan(x) ? NAN : 100.0 * expm1(x);  /* +inf stays +inf */
}

/* 1.4826 x the median absolute deviation of x (NAN below 2 values). */
static double robust_sd(const double *x, size_t n)
{
	double *a, s;
	size_t i;

	if (n < 2)
		return NAN;
	a = xmalloc(n * sizeof(*a));
	for (i = 0; i < n; i++)
		a[i] = fabs(x[i]);
	s = 1.4826 * stat_median(a, n);
	free(a);
	return s;
}

/* Build one metric's test from the cells' pairs. */
static void pooled_one(const struct compare *c, const struct cmp_impl *ci, struct cmp_pooled *pm)
{
	struct pool p = { 0 };
	struct stat_strat f;
	size_t i;
	double floor = pm->cpu ? c->margin_cpu_us : c->margin_ms;

	pm->verdict = CMP_NA;
	pm->p_up = pm->p_down = pm->padj_up = pm->padj_down = NAN;
	pm->est_pct = pm->lo_pct = pm->hi_pct = pm->shift = pm->lo = pm->hi = NAN;
	pm->base_ref = pm->margin = pm->mde = pm->mde_pct = pm->sd_log = NAN;
	for (i = 0; i < ci->nrates; i++) {
		const struct cmp_metric *m = cell_of(ci, i, pm);
		if (m && m->xa && m->xb)
			pool_rate(&p, m);
	}
	pm->nrates = p.nrates;
	pm->npairs = p.n;
	if (!p.n)
		goto out;
	pm->verdict = CMP_INCONCLUSIVE;
	stat_strat_signed_rank(p.d, p.st, p.n, p.nrates, c->alpha, c->new_.seed, &f);
	pm->exact = f.exact;
	pm->p_up = pm->padj_up = f.p_up;
	pm->p_down = pm->padj_down = f.p_down;
	pm->base_ref = exp(p.logb / p.wsum);
	pm->margin = cmp_margin_of(c->margin_pct, floor, pm->base_ref);
	pm->est_pct = pct_of(f.est);
	pm->lo_pct = pct_of(f.lo);
	pm->hi_pct = pct_of(f.hi);
	pm->shift = pm->base_ref * expm1(f.est);
	pm->lo = pm->base_ref * expm1(f.lo);
	pm->hi = pm->base_ref * expm1(f.hi);
	pm->sd_log = robust_sd(p.dev, p.n);
out:
	free(p.d);
	free(p.st);
	free(p.dev);
}

/* NEW holds a stopping rule for impl (harness rerun --until-decided,
 * compare_seq.h): a fixed-n test of the data it stopped collecting when
 * they looked decided is not valid, so nothing is pooled. */
static int stopped_by_rule(const struct compare *c, const char *impl)
{
	size_t i;

	for (i = 0; i < c->new_.nseq; i++)
		if (c->new_.seq[i].impl && !strcmp(c->new_.seq[i].impl, impl))
			return 1;
	return 0;
}

void cmp_pooled_build(const struct compare *c, struct cmp_impl *ci)
{
	size_t k, n = 0;

	ci->pooled = NULL;
	ci->npooled = 0;
	if (!ci->paired || c->method_paired == STAT_CS || stopped_by_rule(c, ci->name))
		return;
	ci->pooled = xcalloc(2 + c->new_.nreqs, sizeof(*ci->pooled));
	if (c->metrics & CMP_P99)
		ci->pooled[n++] = (struct cmp_pooled){ .cpu = 0, .req = -1 };
	if (c->metrics & CMP_CPU_PER_REQUEST)
		ci->pooled[n++] = (struct cmp_pooled){ .cpu = 1, .req = -1 };
	for (k = 0; k < c->new_.nreqs; k++)
		if (c->new_.req_slo_ms[k] > 0)
			ci->pooled[n++] = (struct cmp_pooled){ .cpu = 0, .req = (int)k };
	for (k = 0; k < n; k++)
		pooled_one(c, ci, &ci->pooled[k]);
	ci->npooled = n;
}

void cmp_pooled_judge(const struct compare *c, struct cmp_pooled *pm, double level)
{
	double marg = pm->margin, d = pm->shift, x;

	if (pm->verdict == CMP_NA)
		return;
	x = stat_strat_mde(pm->sd_log, pm->npairs, level, STAT_MDE_POWER);
	pm->mde_pct = pct_of(x);
	pm->mde = pm->base_ref * expm1(x);
	if (pm->padj_up <= c->alpha && d > marg)
		pm->verdict = CMP_REGRESSION;
	else if (pm->padj_down <= c->alpha && d < -marg)
		pm->verdict = CMP_IMPROVEMENT;
	else if (isfinite(pm->lo) && isfinite(pm->hi) && pm->lo > -marg && pm->hi < marg)
		pm->verdict = CMP_NO_CHANGE;
	else
		pm->verdict = CMP_INCONCLUSIVE;
}

const char *cmp_pooled_name(const struct compare *c, const struct cmp_pooled *pm, char *buf,
			    size_t len)
{
	if (pm->req >= 0)
		snprintf(buf, len, "request %s's latency", c->new_.reqs[pm->req]);
	else
		snprintf(buf, len, "%s", pm->cpu ? "cpu_per_request" : "latency");
	return buf;
}
