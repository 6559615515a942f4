/*
 * stat_knee: PAVA isotonic regression, the per-implementation knee and its
 * seeded bootstrap (docs/DESIGN.md, "Knee"). Contracts in stat.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stat.h"
#include "util.h"

/* ---- isotonic regression and the knee ---- */

void stat_pava(const double *y, const double *w, size_t n, double *fit)
{
	/* Blocks of pooled entries: value, weight, first index. */
	double *bv = xmalloc((n ? n : 1) * sizeof(*bv));
	double *bw = xmalloc((n ? n : 1) * sizeof(*bw));
	size_t *bs = xmalloc((n ? n : 1) * sizeof(*bs));
	size_t nb = 0, i, k, end;
	double last = NAN;

	for (i = 0; i < n; i++) {
		if (!(w[i] > 0) || !isfinite(y[i]))
			continue;
		bv[nb] = y[i];
		bw[nb] = w[i];
		bs[nb] = i;
		nb++;
		/* Pool adjacent violators backwards until non-decreasing. */
		while (nb > 1 && bv[nb - 2] > bv[nb - 1]) {
			double ww = bw[nb - 2] + bw[nb - 1];

			bv[nb - 2] = (bv[nb - 2] * bw[nb - 2] + bv[nb - 1] * bw[nb - 1]) / ww;
			bw[nb - 2] = ww;
			nb--;
		}
	}
	/* Expand: block k covers [bs[k], bs[k+1]); entries before the first
	 * block (zero weight) take the first block's value. */
	for (k = 0; k < nb; k++) {
		end = k + 1 < nb ? bs[k + 1] : n;
		for (i = k ? bs[k] : 0; i < end; i++)
			fit[i] = bv[k];
		last = bv[k];
	}
	if (!nb)
		for (i = 0; i < n; i++)
			fit[i] = last;
	free(bv);
	free(bw);
	free(bs);
}

/* Rung order by rate (a permutation; the caller's array is not touched). */
static int cmp_rung(const void *a, const void *b, void *base)
{
	const struct knee_rung *r = base;
	double x = r[*(const size_t *)a].rate, y = r[*(const size_t *)b].rate;

	return (x > y) - (x < y);
}

/* The knee from per-rung means and weights already sorted by rate. */
static void knee_from_means(const double *rate, const double *mean, const double *wt,
			    size_t m, double thr, double *fit, struct knee_fit *out)
{
	size_t i;

	stat_pava(mean, wt, m, fit);
	out->rungs = m;
	out->highest_rung_rps = m ? rate[m - 1] : NAN;
	out->crossed = 0;
	out->at_first_rung = 0;
	out->knee_rps = NAN;
	out->lo = out->hi = m ? m - 1 : 0;
	for (i = 0; i < m; i++) {
		if (fit[i] < thr)
			continue;
		out->crossed = 1;
		if (i == 0) {
			/* Above the SLO already at the first rung: the knee is at
			 * or below it; we never extrapolate below the ladder. */
			out->at_first_rung = 1;
			out->knee_rps = rate[0];
			out->lo = out->hi = 0;
		} else {
			out->knee_rps = rate[i - 1] + (thr - fit[i - 1]) / (fit[i] - fit[i - 1]) *
							      (rate[i] - rate[i - 1]);
			out->lo = i - 1;
			out->hi = i;
		}
		return;
	}
}

/* Rung mean p99 weighted by window counts, and the rung's total weight. */
static void rung_mean(const struct knee_rung *r, const size_t *pick, double *mean,
		      double *wt)
{
	double sw = 0, swy = 0, w;
	size_t i, j;

	for (i = 0; i < r->nwin; i++) {
		j = pick ? pick[i] : i;
		w = r->weight ? r->weight[j] : 1.0;
		sw += w;
		swy += w * r->p99_ms[j];
	}
	*mean = sw > 0 ? swy / sw : NAN;
	*wt = sw;
}

/* Shared between stat_knee and the bootstrap: the used rungs in order. */
struct knee_work {
	size_t m;
	size_t *idx;       /* rungs index of the k-th used rung */
	double *rate, *mean, *wt, *fit;
};

static int knee_work_init(struct knee_work *kw, const struct knee_rung *rungs, size_t n)
{
	size_t i, *all = xmalloc((n ? n : 1) * sizeof(*all));

	memset(kw, 0, sizeof(*kw));
	for (i = 0; i < n; i++)
		all[i] = i;
	qsort_r(all, n, sizeof(*all), cmp_rung, (void *)rungs);
	kw->idx = xmalloc((n ? n : 1) * sizeof(*kw->idx));
	for (i = 0; i < n; i++)
		if (rungs[all[i]].nwin > 0)
			kw->idx[kw->m++] = all[i];
	free(all);
	kw->rate = xmalloc((kw->m ? kw->m : 1) * sizeof(double));
	kw->mean = xmalloc((kw->m ? kw->m : 1) * sizeof(double));
	kw->wt = xmalloc((kw->m ? kw->m : 1) * sizeof(double));
	kw->fit = xmalloc((kw->m ? kw->m : 1) * sizeof(double));
	for (i = 0; i < kw->m; i++)
		kw->rate[i] = rungs[kw->idx[i]].rate;
	return kw->m ? 0 : -1;
}

static void knee_work_release(struct knee_work *kw)
{
	free(kw->idx);
	free(kw->rate);
	free(kw->mean);
	free(kw->wt);
	free(kw->fit);
}

int stat_knee(const struct knee_rung *rungs, size_t nrungs, double threshold_ms,
	      struct knee_fit *out)
{
	struct knee_work kw;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->knee_rps = NAN;
	out->highest_rung_rps = NAN;
	if (knee_work_init(&kw, rungs, nrungs) < 0)
		goto out;
	for (i = 0; i < kw.m; i++)
		rung_mean(&rungs[kw.idx[i]], NULL, &kw.mean[i], &kw.wt[i]);
	knee_from_means(kw.rate, kw.mean, kw.wt, kw.m, threshold_ms, kw.fit, out);
	ret = 0;
out:
	knee_work_release(&kw);
	return ret;
}

/* Type-7 (linear interpolation) quantile of sorted v[0..n). */
static double sorted_quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q, f = floor(h);
	size_t i = (size_t)f;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - f) * (v[i + 1] - v[i]);
}

int stat_knee_bootstrap(const struct knee_rung *rungs, size_t nrungs,
			double threshold_ms, size_t nboot, double level,
			uint64_t seed, size_t min_reps, struct knee_interval *out)
{
	struct knee_work kw;
	struct knee_fit point, f;
	struct rng rng;
	double *knees = NULL;
	size_t b, i, j, maxwin = 0, *pick = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->lo = out->hi = NAN;
	if (stat_knee(rungs, nrungs, threshold_ms, &point) < 0 || !nboot)
		return -1;
	if (knee_work_init(&kw, rungs, nrungs) < 0)
		goto out;
	for (i = 0; i < kw.m; i++)
		if (rungs[kw.idx[i]].nwin > maxwin)
			maxwin = rungs[kw.idx[i]].nwin;
	pick = xmalloc(maxwin * sizeof(*pick));
	knees = xmalloc(nboot * sizeof(*knees));
	rng_seed(&rng, seed, 0x6b6e6565); /* "knee": its own stream of the seed */
	for (b = 0; b < nboot; b++) {
		for (i = 0; i < kw.m; i++) {
			const struct knee_rung *r = &rungs[kw.idx[i]];

			for (j = 0; j < r->nwin; j++)
				pick[j] = (size_t)rng_below(&rng, r->nwin);
			rung_mean(r, pick, &kw.mean[i], &kw.wt[i]);
		}
		knee_from_means(kw.rate, kw.mean, kw.wt, kw.m, threshold_ms, kw.fit, &f);
		if (f.crossed)
			out->ncrossed++;
		/* No crossing in this resample: the knee is beyond the ladder,
		 * counted at the highest rung (a bound, not an extrapolation). */
		knees[b] = f.crossed ? f.knee_rps : f.highest_rung_rps;
	}
	qsort(knees, nboot, sizeof(*knees), stat_cmp_double);
	out->nboot = nboot;
	out->lo = sorted_quantile(knees, nboot, (1 - level) / 2);
	out->hi = sorted_quantile(knees, nboot, (1 + level) / 2);
	out->inferential = rungs[kw.idx[point.lo]].nwin >= min_reps &&
			   rungs[kw.idx[point.hi]].nwin >= min_reps;
	ret = 0;
out:
	free(pick);
	free(knees);
	knee_work_release(&kw);
	return ret;
}

