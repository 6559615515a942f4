/*
 * knee: rung values, the isotonic fit, point or bracket, and the seeded
 * bootstrap. The rule and its reasons are in knee.h.
 */
#include "model/knee.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "base/rng.h"
#include "spec/spec.h"
#include "stat/stat.h"
#include "base/util.h"

/* +infinity in the PAVA input: large enough that pooling it with any
 * finite rung stays above every sane threshold, small enough to average. */
#define KNEE_INF_MS 1e12

const char *knee_kind_name(enum knee_kind k)
{
	switch (k) {
	case KNEE_POINT:
		return "point";
	case KNEE_BRACKET:
		return "bracket";
	case KNEE_FLOOR:
		return "floor";
	case KNEE_NONE:
		break;
	}
	return "none";
}

void knee_params_from_spec(struct knee_params *p, const struct spec *spec)
{
	memset(p, 0, sizeof(*p));
	p->percentile = spec->slo.percentile;
	p->threshold_ms = spec->slo.threshold_ms;
	p->error_rate_max = spec->slo.error_rate_max;
	/* Without a confirm stage the bar stays at confirm's default (10): a
	 * 1-rep ladder has nothing to resample. */
	p->min_reps = spec->confirm.present ? (size_t)spec->confirm.reps : 10;
	if (p->min_reps < 2)
		p->min_reps = 2;
	p->seed = spec->seed;
	p->nboot = 2000;
	p->level = spec->compare.alpha > 0 && spec->compare.alpha < 1 ? 1 - spec->compare.alpha
									: 0.95;
}

void knee_result_release(struct knee_result *r)
{
	free(r->rungs);
	r->rungs = NULL;
	r->nrungs = 0;
}

/* ------------------------------------------------------------ one rung */

/* The rung value over windows w[idx[pick[k]]], k < n (pick NULL: all n). */
static void rung_value(const struct knee_window *w, const size_t *idx, const size_t *pick,
		       size_t n, const struct knee_params *p, struct knee_rung_row *r)
{
	double sw = 0, swx = 0, share;
	size_t k;

	r->nwin = n;
	r->nfailed = 0;
	r->requests = r->bad = 0;
	for (k = 0; k < n; k++) {
		const struct knee_window *x = &w[idx[pick ? pick[k] : k]];
		double wt = x->requests > 0 ? x->requests : 1;

		r->requests += x->requests > 0 ? x->requests : 0;
		r->bad += x->bad > 0 ? x->bad : 0;
		r->nfailed += x->failed != 0;
		if (isfinite(x->pct_ms)) {
			sw += wt;
			swx += wt * x->pct_ms;
		}
	}
	share = r->requests > 0 ? r->bad / r->requests : 0;
	r->inf = !n || r->nfailed == n || share > 1 - p->percentile / 100 ||
		 (isfinite(p->error_rate_max) && share > p->error_rate_max) || !(sw > 0);
	r->value_ms = r->inf ? NAN : swx / sw;
}

/* ------------------------------------------------------------- the fit */

struct crossing {
	int crossed, at_first, bracket;
	size_t lo, hi, inf_rung;
	double knee, klo, khi;   /* klo/khi: the resample's contribution */
};

/* PAVA over rungs r[0..m) (sorted by rate) and the first crossing. */
static void cross(struct knee_rung_row *r, size_t m, double thr, double *y, double *wt,
		  double *fit, struct crossing *c)
{
	size_t i, j;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < m; i++) {
		y[i] = r[i].inf ? KNEE_INF_MS : r[i].value_ms;
		wt[i] = r[i].requests > 0 ? r[i].requests : (double)r[i].nwin;
	}
	stat_pava(y, wt, m, fit);
	for (i = 0; i < m; i++)
		r[i].fit_ms = fit[i] >= KNEE_INF_MS / 2 ? INFINITY : fit[i];
	c->lo = c->hi = m ? m - 1 : 0;
	c->knee = c->klo = c->khi = m ? r[m - 1].rate : NAN;
	for (i = 0; i < m && fit[i] < thr; i++)
		;
	if (i == m)
		return;
	c->crossed = 1;
	c->at_first = i == 0;
	c->lo = i ? i - 1 : 0;
	c->hi = i;
	/* The PAVA block holding the crossing starts at i (earlier rungs fit
	 * below the threshold); it is made by failure when a rung in it is
	 * infinite. */
	for (j = i; j < m && fit[j] == fit[i]; j++)
		if (r[j].inf) {
			c->bracket = 1;
			c->inf_rung = j;
			break;
		}
	if (c->at_first) {
		c->knee = c->klo = c->khi = r[0].rate;
	} else if (c->bracket) {
		c->knee = c->khi = r[i].rate;
		c->klo = r[i - 1].rate;
	} else {
		c->knee = r[i - 1].rate + (thr - fit[i - 1]) / (fit[i] - fit[i - 1]) *
						  (r[i].rate - r[i - 1].rate);
		c->klo = c->khi = c->knee;
	}
}

static int cmp_rate(const void *a, const void *b, void *ctx)
{
	const struct knee_window *w = ctx;
	double x = w[*(const size_t *)a].rate, y = w[*(const size_t *)b].rate;

	return (x > y) - (x < y);
}

/* Type-7 quantile of sorted v[0..n). */
static double quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q, f = floor(h);
	size_t i = (size_t)f;

	return i + 1 >= n ? v[n - 1] : v[i] + (h - f) * (v[i + 1] - v[i]);
}

/* A rung's mean and its standard error, for the t draw. */
struct rung_spread {
	size_t k;     /* windows with a finite percentile */
	double mean;  /* their request-weighted mean (the rung value) */
	double se;    /* sqrt(k/(k-1) sum w^2 (x - mean)^2) / sum w */
};

static void rung_spread(const struct knee_window *w, const size_t *idx, size_t n,
			struct rung_spread *s)
{
	double sw = 0, swx = 0, ss = 0;
	size_t k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < n; k++) {
		const struct knee_window *x = &w[idx[k]];
		double wt = x->requests > 0 ? x->requests : 1;

		if (!isfinite(x->pct_ms))
			continue;
		s->k++;
		sw += wt;
		swx += wt * x->pct_ms;
	}
	if (s->k < 2)
		return;
	s->mean = swx / sw;
	for (k = 0; k < n; k++) {
		const struct knee_window *x = &w[idx[k]];
		double wt = x->requests > 0 ? x->requests : 1;

		if (isfinite(x->pct_ms))
			ss += wt * wt * (x->pct_ms - s->mean) * (x->pct_ms - s->mean);
	}
	s->se = sqrt((double)s->k / (double)(s->k - 1) * ss) / sw;
}

/* Of a rung's n windows, those with a percentile. */
static size_t pct_windows(const struct knee_window *w, const size_t *idx, size_t n)
{
	size_t k, c = 0;

	for (k = 0; k < n; k++)
		c += isfinite(w[idx[k]].pct_ms) != 0;
	return c;
}

static double draw_normal(struct rng *rng)
{
	double u = rng_uniform(rng), v = rng_uniform(rng);

	return sqrt(-2 * log1p(-u)) * cos(2 * M_PI * v);
}

/* Student's t with df (a small integer) degrees of freedom. */
static double draw_t(struct rng *rng, size_t df)
{
	double z = draw_normal(rng), chi2 = 0, g;
	size_t i;

	for (i = 0; i < df; i++) {
		g = draw_normal(rng);
		chi2 += g * g;
	}
	return z / sqrt(chi2 / (double)df);
}

static void bootstrap(const struct knee_window *w, const size_t *idx, const size_t *start,
		      struct knee_result *out, const struct knee_params *p, double *y,
		      double *wt, double *fit)
{
	size_t m = out->nrungs, b, i, k, maxn = 0;
	struct knee_rung_row *rr = xcalloc(m, sizeof(*rr));
	struct rung_spread *sp = xcalloc(m, sizeof(*sp));
	double *klo = xmalloc(p->nboot * sizeof(*klo)), *khi = xmalloc(p->nboot * sizeof(*khi));
	size_t *pick;
	struct crossing c;
	struct rng rng, trng;

	for (i = 0; i < m; i++) {
		if (start[i + 1] - start[i] > maxn)
			maxn = start[i + 1] - start[i];
		rung_spread(w, idx + start[i], start[i + 1] - start[i], &sp[i]);
	}
	pick = xmalloc(maxn * sizeof(*pick));
	rng_seed(&rng, p->seed, 0x6b6e6565); /* "knee": its own stream of the seed */
	rng_seed(&trng, p->seed, 0x6b6e6574); /* "knet": the t draws, so the window
						 picks stay those of the plain bootstrap */
	for (b = 0; b < p->nboot; b++) {
		for (i = 0; i < m; i++) {
			size_t n = start[i + 1] - start[i];

			for (k = 0; k < n; k++)
				pick[k] = (size_t)rng_below(&rng, n);
			rr[i].rate = out->rungs[i].rate;
			rung_value(w, idx + start[i], pick, n, p, &rr[i]);
			/* Whether the rung is infinite (failures, errors) is
			 * resampled; a finite value is the rung's mean plus its
			 * standard error times Student's t. Resampling 3
			 * windows cannot imitate that: it shrinks the spread it
			 * saw by (n - 1) / n and never reaches past the data
			 * (docs/STATISTICS.md "The knee's interval": simulated
			 * coverage 0.77 at 3 windows a rung, 0.90 at 13, where
			 * this draw gives 0.99 and 0.95). */
			if (!p->plain_bootstrap && !rr[i].inf && sp[i].k >= 2)
				rr[i].value_ms = sp[i].mean + sp[i].se * draw_t(&trng, sp[i].k - 1);
		}
		cross(rr, m, p->threshold_ms, y, wt, fit, &c);
		out->ncrossed += c.crossed;
		klo[b] = c.klo;
		khi[b] = c.khi;
	}
	qsort(klo, p->nboot, sizeof(*klo), stat_cmp_double);
	qsort(khi, p->nboot, sizeof(*khi), stat_cmp_double);
	out->nboot = p->nboot;
	out->ci_lo = quantile(klo, p->nboot, (1 - p->level) / 2);
	out->ci_hi = quantile(khi, p->nboot, (1 + p->level) / 2);
	out->has_ci = 1;
	free(rr);
	free(sp);
	free(klo);
	free(khi);
	free(pick);
}

static void bracket_reason(const struct knee_rung_row *r, const struct knee_params *p,
			   char *buf, size_t len)
{
	double ok = r->requests > 0 ? 100.0 * (1 - r->bad / r->requests) : NAN;

	if (r->nfailed == r->nwin)
		snprintf(buf, len, "at %.0f req/s every valid window failed (%zu of %zu); "
			 "%.1f%% of offered requests served OK", r->rate, r->nfailed, r->nwin, ok);
	else
		snprintf(buf, len, "at %.0f req/s %.1f%% of offered requests served OK "
			 "(promise: %g%% errors at most); %zu of %zu windows failed",
			 r->rate, ok, 100 * (isfinite(p->error_rate_max) ? p->error_rate_max
							  : 1 - p->percentile / 100),
			 r->nfailed, r->nwin);
}

int knee_fit(const struct knee_window *w, size_t n, const struct knee_params *p,
	     struct knee_result *out)
{
	size_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	size_t *start = xmalloc((n + 1) * sizeof(*start));
	double *y = NULL, *wt = NULL, *fit = NULL;
	size_t i, m = 0, nv = 0;
	struct crossing c;

	memset(out, 0, sizeof(*out));
	out->knee_rps = out->lo_rps = out->hi_rps = out->hold_rps = NAN;
	out->highest_rung_rps = out->ci_lo = out->ci_hi = NAN;
	for (i = 0; i < n; i++)
		if (w[i].rate > 0 && isfinite(w[i].rate))
			idx[nv++] = i;
	if (!nv)
		goto out;
	qsort_r(idx, nv, sizeof(*idx), cmp_rate, (void *)w);
	out->rungs = xcalloc(nv, sizeof(*out->rungs));
	for (i = 0; i < nv; i++) {
		if (i && rate_same(w[idx[i]].rate, out->rungs[m - 1].rate))
			continue;
		start[m] = i;
		out->rungs[m++].rate = w[idx[i]].rate;
	}
	start[m] = nv;
	out->nrungs = m;
	for (i = 0; i < m; i++) {
		rung_value(w, idx + start[i], NULL, start[i + 1] - start[i], p, &out->rungs[i]);
		out->nfailed += out->rungs[i].nfailed;
	}
	out->nvalid = nv;
	y = xmalloc(m * sizeof(*y));
	wt = xmalloc(m * sizeof(*wt));
	fit = xmalloc(m * sizeof(*fit));
	cross(out->rungs, m, p->threshold_ms, y, wt, fit, &c);
	out->highest_rung_rps = out->rungs[m - 1].rate;
	out->lo = c.lo;
	out->hi = c.hi;
	out->crossed = c.crossed;
	out->at_first_rung = c.at_first;
	if (!c.crossed) {
		out->kind = KNEE_FLOOR;
		out->hold_rps = out->highest_rung_rps;
	} else if (c.bracket) {
		out->kind = KNEE_BRACKET;
		out->knee_rps = out->hi_rps = out->rungs[c.hi].rate;
		out->lo_rps = c.at_first ? NAN : out->rungs[c.lo].rate;
		out->hold_rps = out->lo_rps;
		bracket_reason(&out->rungs[c.inf_rung], p, out->reason, sizeof(out->reason));
	} else {
		out->kind = KNEE_POINT;
		out->knee_rps = c.knee;
		out->lo_rps = out->rungs[c.lo].rate;
		out->hi_rps = out->rungs[c.hi].rate;
		out->hold_rps = c.at_first ? NAN : c.knee;
	}
	out->inferential = start[c.lo + 1] - start[c.lo] >= p->min_reps &&
			   start[c.hi + 1] - start[c.hi] >= p->min_reps;
	if (p->nboot) {
		bootstrap(w, idx, start, out, p, y, wt, fit);
		/* A point between rungs of which one has a single window with
		 * a percentile: nothing tells how far that value may be off,
		 * and resampling keeps it fixed. No interval rather than one
		 * that says more than the data (the resamples' crossings,
		 * ncrossed, still count). */
		if (out->kind == KNEE_POINT &&
		    (pct_windows(w, idx + start[c.lo], start[c.lo + 1] - start[c.lo]) < 2 ||
		     pct_windows(w, idx + start[c.hi], start[c.hi + 1] - start[c.hi]) < 2)) {
			out->has_ci = 0;
			out->ci_lo = out->ci_hi = NAN;
		}
	}
out:
	free(idx);
	free(start);
	free(y);
	free(wt);
	free(fit);
	return 0;
}

void knee_describe(const struct knee_result *r, struct sbuf *out)
{
	switch (r->kind) {
	case KNEE_NONE:
		sbuf_adds(out, "no knee: no valid window");
		break;
	case KNEE_FLOOR:
		sbuf_addf(out, "knee >= %.0f req/s (held the SLO at every valid rung)",
			  r->highest_rung_rps);
		break;
	case KNEE_POINT:
		if (r->at_first_rung)
			sbuf_addf(out, "knee <= %.0f req/s (over the SLO at the first rung)",
				  r->knee_rps);
		else
			sbuf_addf(out, "knee %.0f req/s", r->knee_rps);
		/* without an interval the interpolation is a guess between
		 * two rungs, however far apart: say which (as the report) */
		if (!r->at_first_rung && !r->has_ci)
			sbuf_addf(out, ", interpolated between %.0f and %.0f (no interval)",
				  r->lo_rps, r->hi_rps);
		break;
	case KNEE_BRACKET:
		if (isnan(r->lo_rps))
			sbuf_addf(out, "knee <= %.0f req/s: %s", r->hi_rps, r->reason);
		else
			sbuf_addf(out, "knee in (%.0f, %.0f] req/s: %s", r->lo_rps, r->hi_rps,
				  r->reason);
		break;
	}
}
