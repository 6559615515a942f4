/*
 * stat: Mann-Kendall, Theil-Sen, PAVA, knee, bootstrap, order-statistic
 * and difference intervals. See stat.h for the contracts; comments here say
 * why each formula is the one it is.
 */
#include "stat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- Mann-Kendall and Theil-Sen ---- */

static int cmp_double(const void *a, const void *b)
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
		qsort(v, m, sizeof(*v), cmp_double);
		r = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
	}
	free(v);
	return r;
}

int stat_mann_kendall(const double *x, size_t n, struct mk_result *out)
{
	size_t m, i, j, run;
	double *v = finite_copy(x, n, &m), s = 0, ties = 0, dn, sd;

	memset(out, 0, sizeof(*out));
	out->n = m;
	out->p = NAN;
	out->z = NAN;
	if (m < 3) {
		free(v);
		return -1;
	}
	for (i = 0; i + 1 < m; i++)
		for (j = i + 1; j < m; j++)
			s += (v[j] > v[i]) - (v[j] < v[i]);
	/* Tie groups: sort a copy and count runs of equal values. */
	qsort(v, m, sizeof(*v), cmp_double);
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && v[j] == v[i]; j++)
			;
		run = j - i;
		if (run > 1)
			ties += (double)run * (run - 1) * (2.0 * run + 5);
	}
	free(v);
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

double stat_theil_sen(const double *t, const double *y, size_t n)
{
	size_t i, j, k = 0;
	double *sl, r;

	if (n < 2)
		return NAN;
	sl = xmalloc(n * (n - 1) / 2 * sizeof(*sl));
	for (i = 0; i + 1 < n; i++) {
		if (!isfinite(y[i]) || !isfinite(t[i]))
			continue;
		for (j = i + 1; j < n; j++) {
			if (!isfinite(y[j]) || !isfinite(t[j]) || t[j] == t[i])
				continue;
			sl[k++] = (y[j] - y[i]) / (t[j] - t[i]);
		}
	}
	r = stat_median(sl, k);
	free(sl);
	return r;
}
