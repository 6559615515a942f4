/*
 * report_ratio: the intervals of the ratios (report_rollup.c builds the
 * ratios; this adds, for each, a conservative interval from each side's
 * own): the SLO percentile's from the merged histograms' order-statistic
 * intervals, [a.lo / b.hi, a.hi / b.lo]; CPU per request's from a t
 * interval (at the report's level) over each side's accepted windows'
 * CPU per request, divided the same way. NAN when a side has no interval
 * (fewer than 2 windows, no accounting, a bound <= 0).
 */
#include "report.h"

#include <math.h>
#include <string.h>

#include "util.h"

static const struct report_rung *rung_at(const struct report *r, int impl, const char *stage,
					 double rate)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (r->rungs[i].impl == impl && !strcmp(r->rungs[i].stage, stage) &&
		    fabs(r->rungs[i].rate - rate) <= 1e-9 * rate)
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
		const struct report_window *w = &r->windows[i];

		if (w->impl_idx != impl || !w->accepted || strcmp(w->stage, stage) ||
		    fabs(w->rate - rate) > 1e-9 * rate || !isfinite(w->cpu_ms_per_req))
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

void report_ratio_intervals(struct report *r)
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
