/*
 * stat_quant: a confidence sequence for a median from sign counts
 * (stat.h stat_median_cs; docs/STATISTICS.md "Sequential rerun", the
 * median_cs method). Howard and Ramdas, "Sequential estimation of
 * quantiles with applications to A/B-testing and best-arm
 * identification", Bernoulli 28(3), 2022: at the true median q of a
 * continuous law, N_t(q) = #{i <= t: x_i <= q} is Binomial(t, 1/2) at
 * every t, so one time-uniform boundary on that single count bounds q at
 * every t at once. The boundary here is the beta-binomial mixture
 *     M_t(k) = 2^t B(a + k, a + t - k) / B(a, a),  a = STAT_MEDIAN_CS_A,
 * the likelihood ratio of "the signs are Bernoulli(theta), theta ~
 * Beta(a, a)" against Bernoulli(1/2): a nonnegative martingale of mean 1
 * under the median, so P(exists t: M_t >= 1/alpha) <= alpha (Ville's
 * inequality). Exact at every t, no variance estimated: one wild value is
 * one count.
 */
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* log M_t(k), the mixture's e-value at k of t counts (file comment). */
static double bb_log_e(size_t t, size_t k, double a)
{
	double n = (double)t, x = (double)k;

	return n * log(2) + lgamma(a + x) + lgamma(a + n - x) - lgamma(2 * a + n) -
	       (2 * lgamma(a) - lgamma(2 * a));
}

int stat_median_cs_counts(size_t t, double alpha, size_t *kmin, size_t *kmax)
{
	double lim;
	size_t k;

	if (!t || !(alpha > 0 && alpha < 1))
		return -1;
	lim = log(1 / alpha);
	/* log M_t(k) is convex in k and symmetric about t/2 (lgamma is
	 * convex), so falling on [0, t/2]: the counts not rejected are one
	 * interval around t/2, its lower end the first k under the limit
	 * (bisection: lo rejected or 0, hi kept). */
	if (bb_log_e(t, 0, STAT_MEDIAN_CS_A) < lim) {
		k = 0;
	} else {
		size_t lo = 0, hi = t / 2;

		while (lo + 1 < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (bb_log_e(t, mid, STAT_MEDIAN_CS_A) < lim)
				hi = mid;
			else
				lo = mid;
		}
		k = hi;
	}
	*kmin = k;
	*kmax = t - k;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int stat_median_cs(const double *x, size_t n, double alpha, double *med, double *lo, double *hi)
{
	double *s = NULL;
	size_t i, k = 0, kmin, kmax;
	int ret = -1;

	*med = *lo = *hi = NAN;
	s = xmalloc((n ? n : 1) * sizeof(*s));
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			s[k++] = x[i];
	if (stat_median_cs_counts(k, alpha, &kmin, &kmax))
		goto out;
	qsort(s, k, sizeof(*s), cmp_double);
	*med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
	/* {q: kmin <= N_t(q) <= kmax} = [x_(kmin), x_(kmax+1)), 1-based
	 * order statistics, x_(0) = -inf, x_(t+1) = +inf. */
	*lo = kmin ? s[kmin - 1] : -INFINITY;
	*hi = kmax < k ? s[kmax] : INFINITY;
	ret = 0;
out:
	free(s);
	return ret;
}

/* A share q of t values is under the sequence's kmin at t. */
static int rounds_hold(double q, double alpha, size_t t)
{
	size_t kmin, kmax;

	stat_median_cs_counts(t, alpha, &kmin, &kmax);
	return q * (double)t < (double)kmin;
}

size_t stat_median_cs_rounds(double q, double alpha, size_t from)
{
	size_t t, lo, hi;

	if (!(q >= 0 && q < 0.5) || !(alpha > 0 && alpha < 1))
		return 0;
	/* kmin(t) / t rises towards 1/2 with t: double to the first t that
	 * holds, then bisect back (lo fails, hi holds) */
	lo = hi = from ? from : 1;
	while (!rounds_hold(q, alpha, hi)) {
		if (hi > 1000000)
			return 0;
		lo = hi;
		hi *= 2;
	}
	if (lo == hi)
		return hi;
	while (lo + 1 < hi) {
		t = lo + (hi - lo) / 2;
		if (rounds_hold(q, alpha, t))
			hi = t;
		else
			lo = t;
	}
	return hi;
}

/* ------------------------------------------------ one-sided upper bound */

/* log M_t(k) of stat_median_ub (stat.h): 2^(t+1) B(k + 1, t - k + 1)
 * P(Bin(t + 1, 1/2) >= k + 1), the mixture over p in (0, 1/2) of
 * p^k (1 - p)^(t - k) / 2^-t with density 2. */
static double ub_log_e(size_t t, size_t k)
{
	double n = (double)t, x = (double)k, tail = 0;
	size_t i;

	for (i = k + 1; i <= t + 1; i++)
		tail += exp(lgamma(n + 2) - lgamma((double)i + 1) - lgamma(n + 2 - (double)i) -
			    (n + 1) * log(2));
	return (n + 1) * log(2) + lgamma(x + 1) + lgamma(n - x + 1) - lgamma(n + 2) + log(tail);
}

int stat_median_ub_count(size_t t, double alpha, size_t *kmin)
{
	double lim;
	size_t lo, hi;

	if (!t || !(alpha > 0 && alpha < 1))
		return -1;
	lim = log(1 / alpha);
	/* M_t(k) falls with k (each count above multiplies the integrand
	 * by p / (1 - p) < 1) and M_t(t) = 1 / (t + 1) < 1 / alpha: the
	 * first k under the limit, by bisection (lo rejected, hi kept) */
	if (ub_log_e(t, 0) < lim) {
		*kmin = 0;
		return 0;
	}
	lo = 0;
	hi = t;
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ub_log_e(t, mid) < lim)
			hi = mid;
		else
			lo = mid;
	}
	*kmin = hi;
	return 0;
}

double stat_median_ub(const double *x, size_t n, double alpha)
{
	double *s, best = INFINITY;
	size_t i, t = 0, kmin;

	if (!(alpha > 0 && alpha < 1))
		return NAN;
	s = xmalloc((n ? n : 1) * sizeof(*s));
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		s[t++] = x[i];
		/* the prefix's order statistics: insertion keeps s sorted */
		for (size_t j = t - 1; j > 0 && s[j - 1] > s[j]; j--) {
			double y = s[j];

			s[j] = s[j - 1];
			s[j - 1] = y;
		}
		if (!stat_median_ub_count(t, alpha, &kmin) && kmin && s[t - kmin] < best)
			best = s[t - kmin];
	}
	free(s);
	return best;
}
