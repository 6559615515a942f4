/*
 * stat_seq: what a verdict needs beside its interval (stat.h): the
 * method's name, one-sided p-values of the t tests, Holm's correction
 * across the cells of one comparison, the minimum detectable effect of a
 * cell, and Robbins' normal-mixture confidence sequence that sequential
 * confirm stops by. docs/STATISTICS.md gives the references and why.
 */
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *stat_method_name(enum stat_method m)
{
	switch (m) {
	case STAT_HL: return "hodges_lehmann";
	case STAT_T: return "t";
	case STAT_CS: return "confidence_sequence";
	}
	return "?";
}

const char *stat_method_text(enum stat_method m, int paired)
{
	switch (m) {
	case STAT_HL:
		return paired ? "Hodges-Lehmann shift, Wilcoxon signed-rank interval"
			      : "Hodges-Lehmann shift, Mann-Whitney interval";
	case STAT_T:
		return paired ? "mean difference, paired t interval"
			      : "mean difference, Welch t interval";
	case STAT_CS:
		return "mean difference, normal-mixture confidence sequence "
		       "(Robbins 1970; Waudby-Smith et al. 2024)";
	}
	return "?";
}

/* Finite differences a - b (b NULL: a itself) into a new array. */
static size_t diffs(const double *a, const double *b, size_t n, double **out)
{
	double *d = xmalloc((n ? n : 1) * sizeof(*d));
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double v = b ? a[i] - b[i] : a[i];
		if (isfinite(v))
			d[k++] = v;
	}
	*out = d;
	return k;
}

static size_t finite_of(const double *x, size_t n, double **out)
{
	return diffs(x, NULL, n, out);
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	stat_mean_var(x, n, mean, sd);
	*sd = sqrt(*sd);
}

/* 1.4826 x the median absolute deviation: the normal sd, robustly. */
static double mad_sd(const double *x, size_t n)
{
	double med = stat_median(x, n), *dev, r;
	size_t i;

	if (!n)
		return NAN;
	dev = xmalloc(n * sizeof(*dev));
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	r = 1.4826 * stat_median(dev, n);
	free(dev);
	return r;
}

/* ------------------------------------------------------------ t tests */

double stat_t_paired_p(const double *a, const double *b, size_t n)
{
	double *d, m, sd, p;
	size_t k = diffs(a, b, n, &d);

	mean_sd(d, k, &m, &sd);
	free(d);
	if (k < 2)
		return NAN;
	if (!(sd > 0))
		return m > 0 ? 0 : 1;
	p = 1 - stat_t_cdf(m / (sd / sqrt((double)k)), (double)(k - 1));
	return p;
}

/* Welch's standard error and df of mean(a) - mean(b). */
static void welch(double sa, size_t na, double sb, size_t nb, double *se, double *df)
{
	double va = sa * sa / (double)na, vb = sb * sb / (double)nb;

	*se = sqrt(va + vb);
	*df = *se > 0 ? (va + vb) * (va + vb) /
				(va * va / (double)(na - 1) + vb * vb / (double)(nb - 1))
		      : (double)(na + nb - 2);
}

double stat_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double *x, *y, ma, sa, mb, sb, se, df, p;
	size_t fa = finite_of(a, na, &x), fb = finite_of(b, nb, &y);

	mean_sd(x, fa, &ma, &sa);
	mean_sd(y, fb, &mb, &sb);
	free(x);
	free(y);
	if (fa < 2 || fb < 2)
		return NAN;
	welch(sa, fa, sb, fb, &se, &df);
	if (!(se > 0))
		return ma > mb ? 0 : 1;
	p = 1 - stat_t_cdf((ma - mb) / se, df);
	return p;
}

/* ------------------------------------------------------------ Holm */

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

size_t stat_holm(const double *p, size_t n, double *adj)
{
	struct ranked *r = xmalloc((n ? n : 1) * sizeof(*r));
	size_t i, m = 0;
	double run = 0;

	for (i = 0; i < n; i++)
		if (!isnan(p[i])) {
			r[m].p = p[i];
			r[m].i = i;
			m++;
		}
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (i = 0; i < m; i++) {
		double v = (double)(m - i) * r[i].p;
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		adj[r[i].i] = run;
	}
	free(r);
	return m;
}

/* ------------------------------------------------------------ confidence sequence */

static double cs_rho2(double alpha, double t_star)
{
	double l = -2 * log(alpha);

	return (l + log(l + 1)) / (t_star > 0 ? t_star : 1);
}

/* The boundary at level a with rho^2 r2, for n values of sd, times the
 * small-sample factor t_{1-a/2, n-1} / z_{1-a/2} (stat.h). */
static double cs_half(double sd, size_t n, double a, double r2)
{
	double t = (double)n;
	double f = stat_t_quantile(1 - a / 2, t - 1) / stat_norm_quantile(1 - a / 2);

	return f * sd * sqrt(2 * (t * r2 + 1) / (t * t * r2) * log(sqrt(t * r2 + 1) / a));
}

double stat_cs_half_width(double sd, size_t n, double alpha, double t_star)
{
	if (n < 2 || !isfinite(sd) || !(alpha > 0 && alpha < 1))
		return NAN;
	return cs_half(sd, n, alpha, cs_rho2(alpha, t_star));
}

int stat_cs_paired(const double *a, const double *b, size_t n, double alpha,
		   double t_star, struct diff_ci *out)
{
	double *d, sd, half;
	size_t k = diffs(a, b, n, &d);

	memset(out, 0, sizeof(*out));
	out->n = k;
	out->df = NAN;
	out->verdict = VERDICT_INCONCLUSIVE;
	mean_sd(d, k, &out->mean, &sd);
	free(d);
	out->lo = out->hi = NAN;
	if (k < 2)
		return -1;
	half = stat_cs_half_width(sd, k, alpha, t_star);
	out->lo = out->mean - half;
	out->hi = out->mean + half;
	return 0;
}

double stat_cs_p(const double *a, const double *b, size_t n, double alpha, double t_star)
{
	double *d, m, sd, r2, lo = -40, hi = log(0.999);
	size_t k = diffs(a, b, n, &d);
	int i;

	mean_sd(d, k, &m, &sd);
	free(d);
	if (k < 2)
		return NAN;
	if (!(m > 0))
		return 1;
	if (!(sd > 0))
		return 0;
	/* The smallest level whose sequence excludes 0: the half-width falls
	 * as the level a rises, so bisect on log a (to 1e-9 relative). */
	r2 = cs_rho2(alpha, t_star);
	if (!(m > cs_half(sd, k, 0.999, r2)))
		return 1;
	if (m > cs_half(sd, k, exp(lo), r2))
		return exp(lo);
	for (i = 0; i < 100 && hi - lo > 1e-9; i++) {
		double mid = (lo + hi) / 2;
		if (m > cs_half(sd, k, exp(mid), r2))
			hi = mid;
		else
			lo = mid;
	}
	return exp(hi);
}

/* ------------------------------------------------------------ MDE */

double stat_mde(enum stat_method m, int paired, const double *a, size_t na,
		const double *b, size_t nb, double alpha, double power, double cs_t_star)
{
	double *x = NULL, *y = NULL, r = NAN, sd, mean, se, df, eff;
	size_t fx, fy = 0;

	if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	if (paired) {
		fx = diffs(a, b, na, &x);
		if (fx < 2)
			goto out;
		if (m == STAT_CS) {
			mean_sd(x, fx, &mean, &sd);
			r = stat_cs_half_width(sd, fx, alpha, cs_t_star) +
			    stat_norm_quantile(power) * sd / sqrt((double)fx);
			goto out;
		}
		if (m == STAT_HL && stat_signed_rank_min_p(fx) > alpha) {
			r = INFINITY;
			goto out;
		}
		if (m == STAT_HL)
			sd = mad_sd(x, fx);
		else
			mean_sd(x, fx, &mean, &sd);
		eff = m == STAT_HL ? (double)fx * 3 / M_PI : (double)fx;
		se = sd / sqrt(eff);
		df = (double)(fx - 1);
	} else {
		double sa, sb;

		if (m == STAT_CS)
			return NAN;
		fx = finite_of(a, na, &x);
		fy = finite_of(b, nb, &y);
		if (fx < 2 || fy < 2)
			goto out;
		if (m == STAT_HL && stat_mann_whitney_min_p(fx, fy) > alpha) {
			r = INFINITY;
			goto out;
		}
		if (m == STAT_HL) {
			sa = mad_sd(x, fx);
			sb = mad_sd(y, fy);
			welch(sa, fx, sb, fy, &se, &df);
			se *= sqrt(M_PI / 3);
		} else {
			mean_sd(x, fx, &mean, &sa);
			mean_sd(y, fy, &mean, &sb);
			welch(sa, fx, sb, fy, &se, &df);
		}
	}
	r = (stat_t_quantile(1 - alpha, df) + stat_t_quantile(power, df)) * se;
out:
	free(x);
	free(y);
	return r;
}
