/*
 * stat: Mann-Kendall, Theil-Sen, distributions, order-statistic and
 * difference intervals, PAVA (the knee itself is knee.c's). See stat.h for the contracts; comments here say why each
 * formula is the one it is.
 */
#include "stat/stat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/rng.h"
#include "base/util.h"

/* ---- Mann-Kendall and Theil-Sen ---- */

int stat_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stat_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Copy the finite values of x into a new array; *m gets their count. */
static double *finite_copy(const double *x, size_t n, size_t *m)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	*m = k;
	return v;
}

double stat_median(const double *x, size_t n)
{
	size_t m;
	double *v = finite_copy(x, n, &m), r = NAN;

	if (m) {
		qsort(v, m, sizeof(*v), stat_cmp_double);
		r = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
	}
	free(v);
	return r;
}

/*
 * Sort v[0..n) ascending by merge sort and return the number of pairs
 * i < j (positions before sorting) with v[i] > v[j] (strict = 1) or
 * v[i] >= v[j] (strict = 0).
 */
static double merge_count(double *v, double *tmp, size_t n, int strict)
{
	size_t h = n / 2, i = 0, j = h, k = 0;
	double c;

	if (n < 2)
		return 0;
	c = merge_count(v, tmp, h, strict) + merge_count(v + h, tmp, n - h, strict);
	while (i < h && j < n) {
		/* Take from the left while it does not form a counted pair
		 * with v[j]; taking v[j] pairs it with every left one left. */
		if (strict ? v[i] <= v[j] : v[i] < v[j]) {
			tmp[k++] = v[i++];
		} else {
			c += (double)(h - i);
			tmp[k++] = v[j++];
		}
	}
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
	return c;
}

static double count_pairs(double *v, size_t n, int strict)
{
	double *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), c;

	c = merge_count(v, tmp, n, strict);
	free(tmp);
	return c;
}

int stat_mann_kendall(const double *x, size_t n, struct mk_result *out)
{
	size_t m, i, j, run;
	double *v = finite_copy(x, n, &m), s, ties = 0, tied_pairs = 0, inv, dn, sd;

	memset(out, 0, sizeof(*out));
	out->n = m;
	out->p = NAN;
	out->z = NAN;
	if (m < 3) {
		free(v);
		return -1;
	}
	/*
	 * S = concordant - discordant pairs = P - tied - 2 * discordant, with
	 * P = m(m-1)/2 and the discordant pairs (i < j, x_i > x_j) counted
	 * by merge sort in O(m log m): a window of a day is 86400 seconds,
	 * too many for the O(m^2) double loop.
	 */
	inv = count_pairs(v, m, 1);
	/* v is now sorted: count tie groups as runs of equal values. */
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && v[j] == v[i]; j++)
			;
		run = j - i;
		if (run > 1) {
			ties += (double)run * (run - 1) * (2.0 * run + 5);
			tied_pairs += (double)run * (run - 1) / 2;
		}
	}
	free(v);
	s = (double)m * (m - 1) / 2 - tied_pairs - 2 * inv;
	dn = (double)m;
	out->s = s;
	out->var_s = (dn * (dn - 1) * (2 * dn + 5) - ties) / 18.0;
	if (out->var_s <= 0) {
		/* Every value equal: no trend at all. */
		out->z = 0;
		out->p = 0.5;
		return 0;
	}
	sd = sqrt(out->var_s);
	if (s > 0)
		out->z = (s - 1) / sd;
	else if (s < 0)
		out->z = (s + 1) / sd;
	else
		out->z = 0;
	/* 1 - Phi(z) written as erfc so small p keeps its precision. */
	out->p = 0.5 * erfc(out->z / M_SQRT2);
	return 0;
}

/* Theil-Sen by enumerating every pairwise slope: exact, O(n^2) memory. */
static double theil_sen_pairs(const double *t, const double *y, size_t n)
{
	size_t i, j, k = 0;
	double *sl, r;

	sl = xmalloc((n * (n - 1) / 2 + 1) * sizeof(*sl));
	for (i = 0; i + 1 < n; i++)
		for (j = i + 1; j < n; j++)
			if (t[j] != t[i])
				sl[k++] = (y[j] - y[i]) / (t[j] - t[i]);
	r = stat_median(sl, k);
	free(sl);
	return r;
}

/* Pairs (i < j) whose slope is <= s, for t strictly increasing: slope_ij
 * <= s  <=>  y_j - s t_j <= y_i - s t_i, so count pairs with z_i >= z_j. */
static double slopes_at_most(const double *t, const double *y, size_t n, double s,
			     double *z)
{
	size_t i;

	for (i = 0; i < n; i++)
		z[i] = y[i] - s * t[i];
	return count_pairs(z, n, 0);
}

/* The k-th smallest (1-based) pairwise slope, by bisection on the slope
 * value: every chord's slope is a weighted mean of consecutive slopes, so
 * the smallest and largest consecutive slopes bracket all of them. */
static double kth_slope(const double *t, const double *y, size_t n, double k, double *z)
{
	double lo = INFINITY, hi = -INFINITY, mid, d, tol;
	size_t i;
	int it;

	for (i = 0; i + 1 < n; i++) {
		d = (y[i + 1] - y[i]) / (t[i + 1] - t[i]);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	if (slopes_at_most(t, y, n, lo, z) >= k)
		return lo;
	/* Invariant: count(lo) < k <= count(hi). Stop at 1e-14 of the
	 * bracket (well below any slope bound a gate compares against). */
	tol = (hi - lo) * 1e-14;
	for (it = 0; it < 200 && hi - lo > tol; it++) {
		mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if (slopes_at_most(t, y, n, mid, z) >= k)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * Up to THEIL_SEN_PAIRS_MAX points the slopes are enumerated; above (a
 * long window's per-second series: 86400 points would need 30 GB) the
 * median is found by bisection on the slope with merge-sort pair counts,
 * O(n log n) per step, which agrees with the enumeration to within the
 * last bits of a double (the unit test compares them).
 */
#define THEIL_SEN_PAIRS_MAX 2048

/* The median slope by bisection (t increasing, n >= 2): the middle one of
 * the n(n-1)/2 pair slopes, or the mean of the two middle ones. */
static double theil_sen_bisect(const double *t, const double *y, size_t n)
{
	double *z = xmalloc(n * sizeof(*z)), npairs = (double)n * (n - 1) / 2, r;

	if (fmod(npairs, 2) == 1)
		r = kth_slope(t, y, n, (npairs + 1) / 2, z);
	else
		r = (kth_slope(t, y, n, npairs / 2, z) + kth_slope(t, y, n, npairs / 2 + 1, z)) / 2;
	free(z);
	return r;
}

double stat_theil_sen(const double *t, const double *y, size_t n)
{
	double *tt = xmalloc((n ? n : 1) * sizeof(*tt));
	double *yy = xmalloc((n ? n : 1) * sizeof(*yy)), r = NAN;
	size_t i, m = 0;
	int increasing = 1;

	for (i = 0; i < n; i++) {
		if (!isfinite(t[i]) || !isfinite(y[i]))
			continue;
		if (m && !(t[i] > tt[m - 1]))
			increasing = 0;
		tt[m] = t[i];
		yy[m++] = y[i];
	}
	if (m < 2)
		goto out;
	if (m <= THEIL_SEN_PAIRS_MAX || !increasing)
		r = theil_sen_pairs(tt, yy, m);
	else
		r = theil_sen_bisect(tt, yy, m);
out:
	free(tt);
	free(yy);
	return r;
}

double stat_theil_sen_method(const double *t, const double *y, size_t n, int method)
{
	return method ? theil_sen_bisect(t, y, n) : theil_sen_pairs(t, y, n);
}

/* ---- distributions ---- */

/*
 * Acklam's rational approximation of the normal quantile (relative error
 * 1.15e-9), refined by one Halley step against erfc, which brings it to
 * machine precision.
 */
double stat_norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00 };
	double q, r, x, e, u;

	if (!(p > 0 && p < 1))
		return NAN;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= 1 - 0.02425) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	} else {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	e = stat_norm_cdf(x) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* One step of the modified Lentz method: the new D and C for the term aa;
 * returns the factor D * C that the fraction is multiplied by. */
static double lentz_step(double aa, double *d, double *c)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction of the regularized incomplete beta (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d, h, aa, del;
	int m, m2;

	d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		h *= lentz_step(aa, &d, &c);
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		del = lentz_step(aa, &d, &c);
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

/* P(T > t) for t >= 0 with df degrees of freedom. */
static double t_upper(double t, double df)
{
	return 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));
}

double stat_t_cdf(double t, double df)
{
	double u;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	u = t_upper(fabs(t), df);
	return t >= 0 ? 1 - u : u;
}

/*
 * The t quantile by bisection on the exact CDF (incomplete beta): slower
 * than a closed-form approximation but exact to ~1e-12, which the tests
 * check against the printed tables (12.706 at df 1, 2.228 at df 10).
 */
double stat_t_quantile(double p, double df)
{
	double tail, lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	tail = p > 0.5 ? 1 - p : p;
	while (t_upper(hi, df) > tail && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-13 * (1 + hi); i++) {
		mid = 0.5 * (lo + hi);
		if (t_upper(mid, df) > tail)
			lo = mid;
		else
			hi = mid;
	}
	mid = 0.5 * (lo + hi);
	return p > 0.5 ? mid : -mid;
}

/* ---- percentiles from histogram counts ---- */

/* log P(B = k), B ~ Binomial(n, p). */
static double binom_logpmf(uint64_t n, uint64_t k, double p)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(p) + (double)(n - k) * log1p(-p);
}

/*
 * Ranks (1-based) of the order statistics bracketing the q-quantile with
 * coverage >= level: [X_(l), X_(u)] covers it with probability
 * P(l <= B <= u - 1), B ~ Binomial(n, q) the number of samples below it.
 * Exact (summing the pmf) up to n = 1000, where each tail is given at most
 * (1 - level) / 2; the normal approximation of B above, rounded outwards.
 */
static void quantile_ranks(uint64_t n, double q, double level, uint64_t *l, uint64_t *u,
			   int *exact, double *coverage)
{
	double tail = (1 - level) / 2;
	uint64_t k;

	if (n <= 1000) {
		double cdf = 0, *pmf = xmalloc((n + 1) * sizeof(*pmf));

		for (k = 0; k <= n; k++)
			pmf[k] = exp(binom_logpmf(n, k, q));
		/* l: the largest with P(B <= l - 1) <= tail. */
		*l = 0;
		for (k = 0; k <= n; k++) {
			cdf += pmf[k];
			if (cdf > tail)
				break;
			*l = k + 1;
		}
		/* u: the smallest with P(B >= u) <= tail. */
		cdf = 0;
		*u = n + 1;
		for (k = n + 1; k-- > 0;) {
			cdf += pmf[k];
			if (cdf > tail)
				break;
			*u = k;
		}
		if (*l < 1)
			*l = 1;
		if (*u > n)
			*u = n;
		*coverage = 0;
		for (k = *l; k < *u; k++)
			*coverage += pmf[k];
		free(pmf);
		*exact = 1;
	} else {
		double z = stat_norm_quantile(1 - tail), mu = (double)n * q;
		double sd = sqrt((double)n * q * (1 - q));
		double fl = floor(mu - z * sd), fu = ceil(mu + z * sd) + 1;

		*l = fl < 1 ? 1 : (uint64_t)fl;
		*u = fu > (double)n ? n : (uint64_t)fu;
		/* P(l <= B <= u - 1), continuity-corrected. */
		*coverage = stat_norm_cdf(((double)*u - 0.5 - mu) / sd) -
			    stat_norm_cdf(((double)*l - 0.5 - mu) / sd);
		*exact = 0;
	}
	/* Ranks outside 1..n mean the sample cannot give that coverage: the
	 * interval is clamped to the extreme order statistics, and coverage
	 * says what it really is. */
}

/* The value of the order statistic of rank r (1-based). */
static uint64_t rank_value(const uint64_t *counts, size_t nb, uint64_t r, uint64_t min,
			   uint64_t max)
{
	uint64_t seen = 0, v;
	size_t i;

	for (i = 0; i < nb; i++) {
		seen += counts[i];
		if (seen >= r)
			break;
	}
	if (i >= nb - 1)
		return max ? max : hist_bucket_value(nb - 1);
	v = hist_bucket_value(i);
	if (v < min)
		v = min;
	if (max && v > max)
		v = max;
	return v;
}

static int counts_ci(const uint64_t *counts, size_t nb, double p, double level,
		     uint64_t min, uint64_t max, struct pct_ci *out)
{
	uint64_t n = 0, rank;
	size_t i;
	double q = p / 100.0;

	memset(out, 0, sizeof(*out));
	out->value_ns = out->lo_ns = out->hi_ns = NAN;
	for (i = 0; i < nb; i++)
		n += counts[i];
	if (!n || !(q > 0 && q < 1))
		return -1;
	rank = (uint64_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	quantile_ranks(n, q, level, &out->rank_lo, &out->rank_hi, &out->exact, &out->coverage);
	out->value_ns = (double)rank_value(counts, nb, rank, min, max);
	out->lo_ns = (double)rank_value(counts, nb, out->rank_lo, min, max);
	out->hi_ns = (double)rank_value(counts, nb, out->rank_hi, min, max);
	return 0;
}

int stat_counts_pct_ci(const uint64_t *counts, size_t nb, double p, double level,
		       struct pct_ci *out)
{
	return counts_ci(counts, nb, p, level, 0, 0, out);
}

int stat_hist_pct_ci(const struct hist *h, double p, double level, struct pct_ci *out)
{
	return counts_ci(h->counts, hist_nbuckets(), p, level, h->total ? h->min : 0,
			 h->max, out);
}

/* ---- differences between two arms ---- */

const char *stat_verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_TIE:
		return "tie";
	case VERDICT_A_LOWER:
		return "A lower";
	case VERDICT_B_LOWER:
		return "B lower";
	case VERDICT_INCONCLUSIVE:
		break;
	}
	return "inconclusive";
}

/*
 * Equivalence first: an interval inside (-margin, margin) is a tie even if
 * it excludes 0 (a difference too small to matter). Otherwise an interval
 * wholly below 0 says a - b < 0 (A lower), wholly above says B lower, and
 * anything else is inconclusive.
 */
static enum verdict verdict_of(double lo, double hi, double margin)
{
	if (!isfinite(lo) || !isfinite(hi))
		return VERDICT_INCONCLUSIVE;
	if (lo > -margin && hi < margin)
		return VERDICT_TIE;
	if (hi < 0)
		return VERDICT_A_LOWER;
	if (lo > 0)
		return VERDICT_B_LOWER;
	return VERDICT_INCONCLUSIVE;
}

void stat_mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / (double)n : NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
}

int stat_paired_diff(const double *a, const double *b, size_t n, double level,
		     double margin, struct diff_ci *out)
{
	double *d = xmalloc((n ? n : 1) * sizeof(*d)), var, half;
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i]))
			d[k++] = a[i] - b[i];
	out->n = k;
	stat_mean_var(d, k, &out->mean, &var);
	free(d);
	out->lo = out->hi = out->df = NAN;
	out->verdict = VERDICT_INCONCLUSIVE;
	if (k < 2)
		return -1;
	out->df = (double)(k - 1);
	half = stat_t_quantile((1 + level) / 2, out->df) * sqrt(var / (double)k);
	out->lo = out->mean - half;
	out->hi = out->mean + half;
	out->verdict = verdict_of(out->lo, out->hi, margin);
	return 0;
}

int stat_welch_diff(const double *a, size_t na, const double *b, size_t nb,
		    double level, double margin, struct diff_ci *out)
{
	double ma, va, mb, vb, sa, sb, se, half;

	memset(out, 0, sizeof(*out));
	out->n = na + nb;
	out->lo = out->hi = out->df = out->mean = NAN;
	out->verdict = VERDICT_INCONCLUSIVE;
	if (na < 2 || nb < 2)
		return -1;
	stat_mean_var(a, na, &ma, &va);
	stat_mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sqrt(sa + sb);
	out->mean = ma - mb;
	/* Welch-Satterthwaite; with no spread at all, the pooled df. */
	out->df = se > 0 ? (sa + sb) * (sa + sb) /
				   (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1))
			 : (double)(na + nb - 2);
	half = stat_t_quantile((1 + level) / 2, out->df) * se;
	out->lo = out->mean - half;
	out->hi = out->mean + half;
	out->verdict = verdict_of(out->lo, out->hi, margin);
	return 0;
}

/* ---- isotonic regression ---- */

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
