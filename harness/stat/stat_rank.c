/*
 * stat_rank: Hodges-Lehmann shifts with their distribution-free intervals
 * (Wilcoxon signed-rank for pairs, Mann-Whitney for two samples), the
 * rule harness compare judges by (see stat.h).
 *
 * Why ranks: a window the host stalled carries one wild p99. The mean of
 * the differences moves by that value / n and the t interval widens by
 * about as much; the median of the Walsh averages moves by one rank, and
 * the interval's ends are order statistics, so one wild pair can move
 * the ends at most one step.
 */
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Exact null distributions up to these sizes, normal approximation
 * above (both well inside the approximation's accuracy there). */
#define RANK_EXACT_PAIRS 200
#define RANK_EXACT_CELLS 10000

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * k = the largest count such that P(S <= k - 1) <= tail for the null
 * distribution p[0..max] of a rank statistic S; 0 when even P(S = 0)
 * exceeds tail (too few observations for the level).
 */
static size_t k_from_cdf(const double *p, size_t max, double tail)
{
	double cdf = 0;
	size_t k = 0;

	while (k <= max && cdf + p[k] <= tail * (1 + 1e-12)) {
		cdf += p[k];
		k++;
	}
	return k;
}

/* The normal approximation's k for a statistic of mean mu and sd sd. */
static size_t k_normal(double mu, double sd, double tail)
{
	double c = mu - stat_norm_quantile(1 - tail) * sd - 0.5;

	return c < 0 ? 0 : (size_t)floor(c) + 1;
}

double *stat_signed_rank_pmf(size_t n)
{
	size_t max = n * (n + 1) / 2, r, t;
	double *p = xcalloc(max + 1, sizeof(*p));

	p[0] = 1;
	for (r = 1; r <= n; r++)  /* rank r is positive or negative, 1/2 each */
		for (t = r * (r + 1) / 2 + 1; t-- > 0;)
			p[t] = (p[t] + (t >= r ? p[t - r] : 0)) / 2;
	return p;
}

static size_t signed_rank_k(size_t n, double tail)
{
	size_t max = n * (n + 1) / 2, k;
	double *p;

	if (n > RANK_EXACT_PAIRS)
		return k_normal((double)max / 2, sqrt((double)n * (n + 1) * (2 * n + 1) / 24), tail);
	p = stat_signed_rank_pmf(n);
	k = k_from_cdf(p, max, tail);
	free(p);
	return k;
}

/* Mann-Whitney: P(U = u) for samples of na and nb, u = 0..na*nb, by the
 * recurrence p(i, j, u) = i/(i+j) p(i-1, j, u-j) + j/(i+j) p(i, j-1, u)
 * (caller frees). */
static double *mann_whitney_pmf(size_t na, size_t nb)
{
	size_t max = na * nb, i, j, u, w = max + 1;
	double *prev, *cur, *out;

	prev = xcalloc((nb + 1) * w, sizeof(*prev));
	cur = xcalloc((nb + 1) * w, sizeof(*cur));
	for (j = 0; j <= nb; j++)
		prev[j * w] = 1;  /* i = 0: U = 0 */
	for (i = 1; i <= na; i++) {
		memset(cur, 0, (nb + 1) * w * sizeof(*cur));
		cur[0] = 1;   /* j = 0 */
		for (j = 1; j <= nb; j++)
			for (u = 0; u <= i * j; u++)
				cur[j * w + u] = (double)i / (double)(i + j) *
							 (u >= j ? prev[j * w + u - j] : 0) +
						 (double)j / (double)(i + j) * cur[(j - 1) * w + u];
		memcpy(prev, cur, (nb + 1) * w * sizeof(*cur));
	}
	out = xmalloc(w * sizeof(*out));
	memcpy(out, prev + nb * w, w * sizeof(*out));
	free(prev);
	free(cur);
	return out;
}

static size_t mann_whitney_k(size_t na, size_t nb, double tail)
{
	size_t max = na * nb, k;
	double *p;

	if (max > RANK_EXACT_CELLS)
		return k_normal((double)max / 2,
				sqrt((double)na * nb * (na + nb + 1) / 12), tail);
	p = mann_whitney_pmf(na, nb);
	k = k_from_cdf(p, max, tail);
	free(p);
	return k;
}

static void shift_from(double *v, size_t nv, size_t k, struct diff_ci *out)
{
	qsort(v, nv, sizeof(*v), cmp_dbl);
	out->mean = median_sorted(v, nv);
	if (k >= 1 && k <= (nv + 1) / 2) {
		out->lo = v[k - 1];
		out->hi = v[nv - k];
	}
}

int stat_hl_paired(const double *a, const double *b, size_t n, double level,
		   struct diff_ci *out)
{
	double *d = xmalloc((n ? n : 1) * sizeof(*d)), *w = NULL;
	size_t i, j, k = 0, nw = 0;

	memset(out, 0, sizeof(*out));
	out->mean = out->lo = out->hi = out->df = NAN;
	out->verdict = VERDICT_INCONCLUSIVE;
	for (i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i]))
			d[k++] = a[i] - b[i];
	out->n = k;
	if (k) {
		w = xmalloc(k * (k + 1) / 2 * sizeof(*w));
		for (i = 0; i < k; i++)
			for (j = i; j < k; j++)
				w[nw++] = (d[i] + d[j]) / 2;
		shift_from(w, nw, k >= 2 ? signed_rank_k(k, (1 - level) / 2) : 0, out);
	}
	free(w);
	free(d);
	return isfinite(out->lo) ? 0 : -1;
}

int stat_hl_unpaired(const double *a, size_t na, const double *b, size_t nb, double level,
		     struct diff_ci *out)
{
	double *v = NULL;
	size_t i, j, nv = 0, fa = 0, fb = 0;

	memset(out, 0, sizeof(*out));
	out->mean = out->lo = out->hi = out->df = NAN;
	out->verdict = VERDICT_INCONCLUSIVE;
	for (i = 0; i < na; i++)
		fa += isfinite(a[i]) != 0;
	for (j = 0; j < nb; j++)
		fb += isfinite(b[j]) != 0;
	out->n = fa + fb;
	if (!fa || !fb)
		return -1;
	v = xmalloc(fa * fb * sizeof(*v));
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (isfinite(a[i]) && isfinite(b[j]))
				v[nv++] = a[i] - b[j];
	shift_from(v, nv, mann_whitney_k(fa, fb, (1 - level) / 2), out);
	free(v);
	return isfinite(out->lo) ? 0 : -1;
}

/* ------------------------------------------------------------ p-values */

/* P(S >= s) for the statistic's exact pmf p[0..max], or its normal
 * approximation (mean mu, sd sd, continuity-corrected) when p is NULL. */
static double upper_tail(const double *p, size_t max, double s, double mu, double sd)
{
	size_t t, from;
	double sum = 0;

	if (!p)
		return 1 - stat_norm_cdf((s - 0.5 - mu) / sd);
	if (s <= 0)
		return 1;
	from = (size_t)s;
	for (t = from; t <= max; t++)
		sum += p[t];
	return sum > 1 ? 1 : sum;
}

double stat_signed_rank_p(const double *a, const double *b, size_t n)
{
	double *d = xmalloc((n ? n : 1) * sizeof(*d)), s2 = 0, *pmf = NULL, p;
	size_t i, j, k = 0, max;

	for (i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i]))
			d[k++] = a[i] - b[i];
	if (!k) {
		free(d);
		return NAN;
	}
	/* Twice the count of positive Walsh averages, a zero counting 1. */
	for (i = 0; i < k; i++)
		for (j = i; j < k; j++) {
			double w = d[i] + d[j];
			s2 += w > 0 ? 2 : w == 0 ? 1 : 0;
		}
	max = k * (k + 1) / 2;
	if (k <= RANK_EXACT_PAIRS)
		pmf = stat_signed_rank_pmf(k);
	p = upper_tail(pmf, max, floor(s2 / 2), (double)max / 2,
		       sqrt((double)k * (k + 1) * (2 * k + 1) / 24));
	free(pmf);
	free(d);
	return p;
}

double stat_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	double s2 = 0, *pmf = NULL, p;
	size_t i, j, fa = 0, fb = 0, max;

	for (i = 0; i < na; i++)
		fa += isfinite(a[i]) != 0;
	for (j = 0; j < nb; j++)
		fb += isfinite(b[j]) != 0;
	if (!fa || !fb)
		return NAN;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (isfinite(a[i]) && isfinite(b[j]))
				s2 += a[i] > b[j] ? 2 : a[i] == b[j] ? 1 : 0;
	max = fa * fb;
	if (max <= RANK_EXACT_CELLS)
		pmf = mann_whitney_pmf(fa, fb);
	p = upper_tail(pmf, max, floor(s2 / 2), (double)max / 2,
		       sqrt((double)fa * fb * (fa + fb + 1) / 12));
	free(pmf);
	return p;
}

double stat_signed_rank_min_p(size_t n)
{
	return n > RANK_EXACT_PAIRS ? 0 : ldexp(1, -(int)n);
}

double stat_mann_whitney_min_p(size_t na, size_t nb)
{
	/* 1 / C(na + nb, na) */
	return exp(lgamma((double)na + 1) + lgamma((double)nb + 1) -
		   lgamma((double)(na + nb) + 1));
}
