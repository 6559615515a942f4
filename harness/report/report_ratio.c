/*
 * report_ratio: the ratios between implementations (report.h,
 * report_ratios): for each chosen pair A/B (default: every implementation
 * over the first), A's value over B's at every stage and rate where both
 * have accepted windows, for the SLO percentile (merged), CPU per request
 * and memory (pooled), each with a conservative interval from each side's
 * own: the SLO percentile's from the merged histograms' order-statistic
 * intervals, [a.lo / b.hi, a.hi / b.lo]; CPU per request's from a t
 * interval (at the report's level) over each side's accepted windows'
 * CPU per request, divided the same way. NAN when a side has no interval
 * (fewer than 2 windows, no accounting, a bound <= 0).
 */
#include "base/rate.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const struct report_rung *rung_at(const struct report *r, int impl, const char *stage,
					 double rate)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (r->rungs[i].impl == impl && !strcmp(r->rungs[i].stage, stage) &&
		    rate_same(r->rungs[i].rate, rate))
			return &r->rungs[i];
	return NULL;
}

/* The t interval of impl's accepted windows' CPU ms per request at
 * (stage, rate); 0 when fewer than 2 windows have it. */
static int cpu_interval(const struct report *r, int impl, const char *stage, double rate,
			double *lo, double *hi)
{
	double s = 0, ss = 0, m, half;
	size_t i, n = 0;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (w->impl_idx != impl || !w->accepted || strcmp(w->stage, stage) ||
		    !rate_same(w->rate, rate) || !isfinite(w->cpu_ms_per_req))
			continue;
		s += w->cpu_ms_per_req;
		ss += w->cpu_ms_per_req * w->cpu_ms_per_req;
		n++;
	}
	if (n < 2)
		return 0;
	m = s / (double)n;
	half = stat_t_quantile(1 - (1 - r->level) / 2, (double)(n - 1)) *
	       sqrt(fmax(0, (ss - s * m) / (double)(n - 1)) / (double)n);
	*lo = m - half;
	*hi = m + half;
	return 1;
}

static void quotient(double alo, double ahi, double blo, double bhi, double *lo, double *hi)
{
	if (isfinite(alo) && isfinite(ahi) && alo >= 0 && blo > 0 && isfinite(bhi)) {
		*lo = alo / bhi;
		*hi = ahi / blo;
	} else {
		*lo = *hi = NAN;
	}
}

static void intervals(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nratios; i++) {
		struct report_ratio *q = &r->ratios[i];
		const struct report_rung *a = rung_at(r, q->impl, q->stage, q->rate);
		const struct report_rung *b = rung_at(r, q->base, q->stage, q->rate);
		double alo, ahi, blo, bhi;

		q->pslo_lo = q->pslo_hi = q->cpu_lo = q->cpu_hi = NAN;
		if (!a || !b)
			continue;
		quotient(a->pslo.lo_ms, a->pslo.hi_ms, b->pslo.lo_ms, b->pslo.hi_ms, &q->pslo_lo,
			 &q->pslo_hi);
		if (cpu_interval(r, q->impl, q->stage, q->rate, &alo, &ahi) &&
		    cpu_interval(r, q->base, q->stage, q->rate, &blo, &bhi))
			quotient(alo, ahi, blo, bhi, &q->cpu_lo, &q->cpu_hi);
	}
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* Append impl / base at every stage and rate where both have accepted
 * windows. */
static void add_pair(struct report *r, int impl, int base, size_t *alloc)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i], *b;
		struct report_ratio *q;

		if (g->impl != impl || !g->accepted)
			continue;
		b = rung_at(r, base, g->stage, g->rate);
		if (!b || !b->accepted)
			continue;
		XGROW(r->ratios, *alloc, r->nratios + 1);
		q = &r->ratios[r->nratios++];
		memset(q, 0, sizeof(*q));
		q->stage = g->stage;
		q->rate = g->rate;
		q->impl = impl;
		q->base = base;
		q->pslo = ratio(g->pslo.ms, b->pslo.ms);
		q->cpu = ratio(g->cpu_ms_per_req, b->cpu_ms_per_req);
		q->anon = ratio(g->anon_p99, b->anon_p99);
	}
}

static int impl_named(const struct report *r, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (strlen(r->impls[i].name) == len && !strncmp(r->impls[i].name, name, len))
			return (int)i;
	return -1;
}

/* The pairs as (impl, base) indices into *v; -1 after an error(). */
static int parse_pairs(const struct report *r, const char *pairs, int **v, size_t *n)
{
	const char *p = pairs;
	size_t alloc = 0;

	*v = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ","), slash = strcspn(p, "/");
		int a, b;

		if (slash >= len || !slash || slash + 1 == len)
			return error("report: ratio pair '%.*s': expected NEW/BASE", (int)len, p);
		a = impl_named(r, p, slash);
		b = impl_named(r, p + slash + 1, len - slash - 1);
		if (a < 0 || b < 0 || a == b)
			return error("report: ratio pair '%.*s': %s", (int)len, p, a == b && a >= 0 ?
				     "an implementation over itself" : "no such implementation in the run");
		XGROW(*v, alloc, 2 * (*n + 1));
		(*v)[2 * *n] = a;
		(*v)[2 * *n + 1] = b;
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
	}
	return *n ? 0 : error("report: --ratios: no pair given");
}

int report_ratios(struct report *r, const char *pairs)
{
	int *v = NULL;
	size_t n = 0, i, alloc = 0;

	if (pairs && parse_pairs(r, pairs, &v, &n)) {
		free(v);
		return -1;
	}
	free(r->ratios);
	r->ratios = NULL;
	r->nratios = 0;
	if (pairs)
		for (i = 0; i < n; i++)
			add_pair(r, v[2 * i], v[2 * i + 1], &alloc);
	else
		for (i = 1; i < r->nimpls; i++)
			add_pair(r, (int)i, 0, &alloc);
	free(v);
	intervals(r);
	return 0;
}
