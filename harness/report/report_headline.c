/* report_headline: a run's one line, and the knee's range (headline.h). */
#include "report/headline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "base/util.h"

int headline_knee_range(const struct knee_result *k, double *lo, double *hi)
{
	*lo = *hi = NAN;
	switch (k->kind) {
	case KNEE_NONE:
		return 0;
	case KNEE_FLOOR:
		*lo = k->highest_rung_rps;
		*hi = INFINITY;
		return 1;
	case KNEE_BRACKET:
		*lo = isnan(k->lo_rps) ? 0 : k->lo_rps;
		*hi = k->hi_rps;
		return 1;
	case KNEE_POINT:
		if (k->at_first_rung) {
			*lo = 0;
			*hi = k->knee_rps;
		} else if (k->has_ci && k->inferential && k->ncrossed && isfinite(k->ci_lo) &&
			   isfinite(k->ci_hi)) {
			*lo = k->ci_lo;
			*hi = k->ci_hi;
		} else {
			*lo = k->lo_rps;
			*hi = k->hi_rps;
		}
		return 1;
	}
	return 0;
}

/* An implementation's knee, short: ">= 3375", "in (1350, 2025]", "<= 500",
 * "1180 [1150, 1210]", "between 3375 and 4050"; then " req/s". */
static void knee_short(struct sbuf *o, const struct knee_result *k)
{
	double lo, hi;

	headline_knee_range(k, &lo, &hi);
	if (k->kind == KNEE_FLOOR) {
		sbuf_adds(o, ">= ");
		report_fmt_rate(o, lo);
	} else if (!(lo > 0)) {
		sbuf_adds(o, "<= ");
		report_fmt_rate(o, hi);
	} else if (k->kind == KNEE_BRACKET) {
		sbuf_adds(o, "in (");
		report_fmt_rate(o, lo);
		sbuf_adds(o, ", ");
		report_fmt_rate(o, hi);
		sbuf_adds(o, "]");
	} else if (k->has_ci && k->inferential && lo == k->ci_lo) {
		report_fmt_rate(o, k->knee_rps);
		sbuf_adds(o, " [");
		report_fmt_rate(o, lo);
		sbuf_adds(o, ", ");
		report_fmt_rate(o, hi);
		sbuf_adds(o, "]");
	} else {
		sbuf_adds(o, "between ");
		report_fmt_rate(o, lo);
		sbuf_adds(o, " and ");
		report_fmt_rate(o, hi);
	}
	sbuf_adds(o, " req/s");
}

/* "p99 <= 20 ms" */
static void slo_words(struct sbuf *o, const struct report *r)
{
	sbuf_addf(o, "%s <= %g ms", r->slo_label, r->slo_ms);
}

/* One implementation's knee as a sentence. */
static void one_impl(struct sbuf *o, const struct report *r, const struct report_impl *im)
{
	const struct knee_result *k = im->kres;
	double lo, hi;

	headline_knee_range(k, &lo, &hi);
	sbuf_addf(o, "%s ", im->name);
	if (!(lo > 0)) {
		sbuf_adds(o, "does not hold ");
		slo_words(o, r);
		sbuf_adds(o, " even at the lowest rate measured, ");
		report_fmt_rate(o, hi);
		sbuf_addf(o, " req/s%s", k->kind == KNEE_BRACKET ? " (failed windows)" : "");
		return;
	}
	sbuf_adds(o, "holds ");
	slo_words(o, r);
	switch (k->kind) {
	case KNEE_FLOOR:
		sbuf_adds(o, " at every rate measured: at least ");
		report_fmt_rate(o, lo);
		sbuf_adds(o, " req/s (its limit was not reached)");
		return;
	case KNEE_BRACKET:
		sbuf_adds(o, " at ");
		report_fmt_rate(o, lo);
		sbuf_adds(o, " req/s and not at ");
		report_fmt_rate(o, hi);
		sbuf_adds(o, " req/s (failed windows)");
		return;
	default:
		break;
	}
	if (lo == k->ci_lo && k->has_ci && k->inferential) {
		sbuf_adds(o, " up to ");
		report_fmt_rate(o, k->knee_rps);
		sbuf_addf(o, " req/s (%.0f%% interval [", r->level * 100);
		report_fmt_rate(o, lo);
		sbuf_adds(o, ", ");
		report_fmt_rate(o, hi);
		sbuf_adds(o, "])");
		return;
	}
	sbuf_adds(o, " up to between ");
	report_fmt_rate(o, lo);
	sbuf_adds(o, " and ");
	report_fmt_rate(o, hi);
	sbuf_adds(o, " req/s (the rungs around its knee have too few windows for an interval)");
}

/* x rounded down to 2 significant figures: "at least" stays true. */
static void ratio_down(struct sbuf *o, double x)
{
	double d = x >= 10 ? floor(x) : x >= 1.1 ? floor(x * 10) / 10 : floor(x * 100) / 100;

	sbuf_addf(o, x >= 10 ? "%.0f" : x >= 1.1 ? "%.1f" : "%.2f", d);
}

static int by_low_end(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[1] > y[1] ? -1 : x[1] < y[1] ? 1 : x[2] > y[2] ? -1 : x[2] < y[2];
}

/* A knee's central figure: the point, a bracket's or a floor's low end. */
static double estimate(const struct knee_result *k)
{
	return k->kind == KNEE_POINT ? k->knee_rps : k->kind == KNEE_FLOOR ? k->highest_rung_rps
			: isnan(k->lo_rps) ? 0 : k->lo_rps;
}

/* Two or more implementations with a knee: the best against the next. */
static void pair_of(struct sbuf *o, const struct report *r, const double *ab, size_t nknee)
{
	const struct report_impl *a = &r->impls[(size_t)ab[0]], *b = &r->impls[(size_t)ab[3]];
	double alo = ab[1], bhi = ab[5];

	if (a->kres->kind == KNEE_FLOOR && b->kres->kind == KNEE_FLOOR) {
		sbuf_addf(o, "%s and %s both hold ", a->name, b->name);
		slo_words(o, r);
		sbuf_adds(o, " at every rate measured (");
	} else if (alo > bhi && bhi > 0 && floor(alo / bhi * 100) / 100 > 1) {
		sbuf_addf(o, "%s holds at least ", a->name);
		ratio_down(o, alo / bhi);
		sbuf_addf(o, "x the rate of %s at ", b->name);
		slo_words(o, r);
		sbuf_adds(o, " (");
	} else if (alo >= bhi && bhi > 0) {   /* they meet at one rate: no ratio */
		sbuf_addf(o, "%s holds ", a->name);
		slo_words(o, r);
		sbuf_adds(o, " to at least ");
		report_fmt_rate(o, alo);
		sbuf_addf(o, " req/s, %s to at most ", b->name);
		report_fmt_rate(o, bhi);
		sbuf_adds(o, " req/s (");
	} else {
		if (estimate(b->kres) > estimate(a->kres)) {   /* the higher estimate first */
			const struct report_impl *t = a;

			a = b;
			b = t;
		}
		sbuf_addf(o, "%s and %s hold ", a->name, b->name);
		slo_words(o, r);
		sbuf_adds(o, " up to rates this run does not tell apart (");
	}
	sbuf_addf(o, "%s ", a->name);
	knee_short(o, a->kres);
	sbuf_addf(o, ", %s ", b->name);
	knee_short(o, b->kres);
	sbuf_adds(o, ")");
	if (nknee > 2)
		sbuf_addf(o, "; %zu more implementations in the Summary", nknee - 2);
}

/* An unfinished run says so first; 1 when it measured nothing (then the
 * line is complete: why it ended). */
static int status_prefix(struct sbuf *o, const struct report *r)
{
	if (!r->status || !strcmp(r->status, "finished"))
		return 0;
	if (!r->quality.windows) {
		sbuf_addf(o, "Run %s before any window was measured", r->status);
		if (r->failure && *r->failure)
			sbuf_addf(o, ": %.*s", (int)strcspn(r->failure, "\n"), r->failure);
		return 1;
	}
	sbuf_addf(o, "Run %s after %zu of %zu windows: ", r->status, r->quality.windows,
		  r->quality.windows + r->quality.not_done);
	return 0;
}

void report_headline(const struct report *r, struct sbuf *out)
{
	double *v = xcalloc(3 * (r->nimpls + 1), sizeof(*v));
	size_t i, n = 0, count = 0;
	const char *top;

	if (status_prefix(out, r))
		goto out;
	if (!r->spec_ok) {
		sbuf_addf(out, "No knee: the stored spec does not parse with this harness (the SLO is"
			       " unknown); %zu of %zu windows accepted", r->accepted, r->total);
		goto out;
	}
	for (i = 0; i < r->nimpls; i++) {
		double *x = &v[3 * n];

		if (!r->impls[i].has_knee || !headline_knee_range(r->impls[i].kres, &x[1], &x[2]))
			continue;
		x[0] = (double)i;
		n++;
	}
	if (!n) {
		top = run_quality_top(&r->quality, &count);
		sbuf_addf(out, "No knee: no valid window (%zu of %zu measured windows rejected",
			  r->quality.rejected, r->quality.windows);
		if (top)
			sbuf_addf(out, ", most by %s: %zu", top, count);
		sbuf_adds(out, ")");
		goto out;
	}
	qsort(v, n, 3 * sizeof(*v), by_low_end);
	if (n == 1)
		one_impl(out, r, &r->impls[(size_t)v[0]]);
	else
		pair_of(out, r, v, n);
	if (n < r->nimpls)
		sbuf_addf(out, "; %zu without a valid window", r->nimpls - n);
out:
	free(v);
}

int headline_best(const struct report *r)
{
	double lo, hi, blo = -1, bhi = 0, top = -1;
	size_t i;
	int best = -1;

	for (i = 0; i < r->nimpls; i++) {
		if (!r->spec_ok || !r->impls[i].has_knee ||
		    !headline_knee_range(r->impls[i].kres, &lo, &hi))
			return -1;   /* an implementation without a knee: no ranking */
		if (lo > blo) {
			if (best >= 0)
				top = fmax(top, bhi);
			best = (int)i;
			blo = lo;
			bhi = hi;
		} else {
			top = fmax(top, hi);
		}
	}
	return r->nimpls > 1 && best >= 0 && blo > top ? best : -1;
}
