/*
 * stat_strat: the stratified signed-rank test compare pools each metric's
 * evidence with (stat.h, "pooled evidence"), its Hodges-Lehmann estimate
 * and inverted interval, and Holm's weighted step-down procedure the
 * pooled metrics and the cells share. docs/STATISTICS.md, "Pooled
 * evidence", gives the method and its references.
 *
 * Why weighted Walsh averages: by Tukey's identity a stratum's T+ is the
 * count of its positive Walsh averages, so the test of a shift delta
 * counts the averages above delta, each weighing its stratum's 1 / (n + 1).
 * T(delta) only falls as delta grows, and its null distribution does not
 * depend on delta: the interval's ends are weighted order statistics of
 * the averages, found by one walk, as for one stratum (stat_rank.c).
 */
#include "base/rng.h"
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

/* A weighted value: a point of the null distribution (v, probability or
 * count) or a Walsh average (v, its stratum's weight). */
struct wv {
	double v, w;
};

static int cmp_wv(const void *a, const void *b)
{
	const struct wv *x = a, *y = b;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Sort and merge equal values (within tol), summing weights. */
static size_t merge(struct wv *p, size_t n, double tol)
{
	size_t i, k = 0;

	qsort(p, n, sizeof(*p), cmp_wv);
	for (i = 0; i < n; i++) {
		if (k && p[i].v - p[k - 1].v <= tol)
			p[k - 1].w += p[i].w;
		else
			p[k++] = p[i];
	}
	return k;
}

/* The pmf of the sum of g independent signed-rank statistics of n pairs
 * (length g n (n + 1) / 2 + 1 into *len; the caller frees). */
static double *group_pmf(size_t n, size_t g, size_t *len)
{
	size_t m = n * (n + 1) / 2 + 1, l = m, i, j, k;
	double *one = stat_signed_rank_pmf(n), *acc = xcalloc(g * (m - 1) + 1, sizeof(*acc));
	double *tmp = xcalloc(g * (m - 1) + 1, sizeof(*tmp));

	for (i = 0; i < m; i++)
		acc[i] = one[i];
	for (k = 1; k < g; k++) {
		for (i = 0; i < l + m - 1; i++)
			tmp[i] = 0;
		for (i = 0; i < l; i++)
			for (j = 0; j < m; j++)
				tmp[i + j] += acc[i] * one[j];
		l += m - 1;
		for (i = 0; i < l; i++)
			acc[i] = tmp[i];
	}
	free(one);
	free(tmp);
	*len = l;
	return acc;
}

/* The null distribution of sum_r w_r T+_r, exact (points with their
 * probabilities, *exact 1) when the convolution stays within
 * STAT_STRAT_EXACT_MAX points, else STAT_STRAT_DRAWS drawn values of
 * weight 1 (*exact 0). Strata of one size (one weight) are convolved as
 * integers first. Sorted ascending; returns the count. */
static size_t null_dist(const size_t *nr, const double *w, size_t ns, uint64_t seed,
			struct wv **out, int *exact)
{
	struct wv *d = xmalloc(sizeof(*d)), *e;
	size_t nd = 1, r, q, t, i, k, g, m;
	double scale = 0;
	char *done = xcalloc(ns + 1, 1);

	for (r = 0; r < ns; r++)
		scale += w[r] * (double)(nr[r] * (nr[r] + 1) / 2);
	d[0] = (struct wv){ 0, 1 };
	*exact = 1;
	for (r = 0; r < ns && *exact; r++) {
		double *pmf;
		if (done[r])
			continue;
		for (q = r, g = 0; q < ns; q++)
			if (nr[q] == nr[r]) {
				done[q] = 1;
				g++;
			}
		m = nr[r] * (nr[r] + 1) / 2 + 1;
		/* the support, and the integer convolution's work (g^2 m^2 / 2) */
		if (nd * (g * (m - 1) + 1) > STAT_STRAT_EXACT_MAX ||
		    (double)g * (double)g * (double)m * (double)m / 2 > 2e8) {
			*exact = 0;
			break;
		}
		pmf = group_pmf(nr[r], g, &m);
		e = xmalloc(nd * m * sizeof(*e));
		for (i = k = 0; i < nd; i++)
			for (t = 0; t < m; t++)
				if (pmf[t] > 0)
					e[k++] = (struct wv){ d[i].v + w[r] * (double)t, d[i].w * pmf[t] };
		free(pmf);
		free(d);
		d = e;
		nd = merge(d, k, 1e-9 * scale);
	}
	free(done);
	if (!*exact) {
		struct rng g;

		free(d);
		d = xmalloc(STAT_STRAT_DRAWS * sizeof(*d));
		rng_seed(&g, seed, 0x76616e45);  /* "vanE" */
		for (k = 0; k < STAT_STRAT_DRAWS; k++) {
			double v = 0;
			for (r = 0; r < ns; r++)
				for (t = 1; t <= nr[r]; t++)
					v += rng_next(&g) >> 63 ? w[r] * (double)t : 0;
			d[k] = (struct wv){ v, 1 };
		}
		nd = merge(d, STAT_STRAT_DRAWS, 1e-9 * scale);
	}
	*out = d;
	return nd;
}

/* P(T* >= t) of the null distribution (exact), or (1 + #{T* >= t}) /
 * (draws + 1). */
static double tail(const struct wv *d, size_t nd, int exact, double t, double tol)
{
	double s = 0;
	size_t i;

	for (i = nd; i-- > 0 && d[i].v >= t - tol;)
		s += d[i].w;
	return exact ? s : (1 + s) / (STAT_STRAT_DRAWS + 1.0);
}

/* The largest point of the null distribution whose tail is above alpha:
 * T rejects (p <= alpha) exactly when above it (never when it is the
 * largest). */
static double critical(const struct wv *d, size_t nd, int exact, double alpha)
{
	double s = 0;
	size_t i;

	for (i = nd; i-- > 0;) {
		s += d[i].w;
		if ((exact ? s : (1 + s) / (STAT_STRAT_DRAWS + 1.0)) > alpha)
			return d[i].v;
	}
	return d[0].v;
}

/* Every stratum's Walsh averages with its weight, sorted. */
static size_t walsh(const double *d, const size_t *st, size_t n, const double *w,
		    struct wv **out)
{
	struct wv *a = NULL;
	size_t i, j, k = 0, alloc = 0;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++) {
			if (st[i] != st[j])
				continue;
			XGROW(a, alloc, k + 1);
			a[k++] = (struct wv){ (d[i] + d[j]) / 2, w[st[i]] };
		}
	qsort(a, k, sizeof(*a), cmp_wv);
	*out = a;
	return k;
}

/* T+ (up) or T- of the pairs: per stratum the count of Walsh averages
 * above (below) 0, a zero counting one half, rounded down (conservative
 * with ties, as stat_signed_rank_p), times the stratum's weight. */
static double count_side(const double *d, const size_t *st, size_t n, const double *w,
			 size_t ns, int up)
{
	double *c = xcalloc(ns + 1, sizeof(*c)), s = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++) {
			double a = d[i] + d[j];
			if (st[i] == st[j])
				c[st[i]] += (up ? a > 0 : a < 0) ? 1 : a == 0 ? 0.5 : 0;
		}
	for (i = 0; i < ns; i++)
		s += w[i] * floor(c[i]);
	free(c);
	return s;
}

/* Estimate and interval from the sorted weighted averages. */
static void invert(const struct wv *a, size_t k, double crit, double tol, struct stat_strat *o)
{
	double tot = 0, c = 0;
	size_t i;

	for (i = 0; i < k; i++)
		tot += a[i].w;
	for (i = 0; i < k; i++) {
		c += a[i].w;
		if (c >= tot / 2 - tol) {
			o->est = c > tot / 2 + tol || i + 1 == k ? a[i].v : (a[i].v + a[i + 1].v) / 2;
			break;
		}
	}
	for (c = 0, i = k; i-- > 0;) {  /* rejected upward below the first above crit */
		c += a[i].w;
		if (c > crit + tol) {
			o->lo = a[i].v;
			break;
		}
	}
	for (c = 0, i = 0; i < k; i++) {
		c += a[i].w;
		if (c > crit + tol) {
			o->hi = a[i].v;
			break;
		}
	}
}

int stat_strat_signed_rank(const double *d, const size_t *stratum, size_t n, size_t nstrata,
			   double alpha, uint64_t seed, struct stat_strat *out)
{
	size_t *nr = xcalloc(nstrata + 1, sizeof(*nr)), *st = xcalloc(n + 1, sizeof(*st));
	double *x = xcalloc(n + 1, sizeof(*x)), *w = xcalloc(nstrata + 1, sizeof(*w));
	double tol = 0, crit;
	struct wv *dist = NULL, *avg = NULL;
	size_t i, k = 0, ns = 0, nd, na, *map = xcalloc(nstrata + 1, sizeof(*map));
	int ret = -1;

	*out = (struct stat_strat){ 0, 0, 0, NAN, NAN, NAN, NAN, NAN };
	for (i = 0; i < n; i++)
		if (isfinite(d[i]) && stratum[i] < nstrata)
			nr[stratum[i]]++;
	for (i = 0; i < nstrata; i++)  /* renumber the strata with pairs */
		if (nr[i])
			map[i] = ns++;
	for (i = 0; i < n; i++)
		if (isfinite(d[i]) && stratum[i] < nstrata) {
			x[k] = d[i];
			st[k++] = map[stratum[i]];
		}
	for (i = 0; i < nstrata; i++)
		if (nr[i])
			nr[map[i]] = nr[i];
	out->n = k;
	out->nstrata = ns;
	if (!k)
		goto out;
	for (i = 0; i < ns; i++) {
		w[i] = 1.0 / (double)(nr[i] + 1);
		tol += 1e-9 * w[i] * (double)(nr[i] * (nr[i] + 1) / 2);
	}
	nd = null_dist(nr, w, ns, seed, &dist, &out->exact);
	na = walsh(x, st, k, w, &avg);
	out->p_up = tail(dist, nd, out->exact, count_side(x, st, k, w, ns, 1), tol);
	out->p_down = tail(dist, nd, out->exact, count_side(x, st, k, w, ns, 0), tol);
	crit = critical(dist, nd, out->exact, alpha);
	invert(avg, na, crit, tol, out);
	ret = isfinite(out->lo) && isfinite(out->hi) ? 0 : -1;
out:
	free(nr);
	free(st);
	free(x);
	free(w);
	free(map);
	free(dist);
	free(avg);
	return ret;
}

double stat_strat_min_p(size_t n)
{
	return n <= 20 ? ldexp(1.0, -(int)n) : 1.0 / (STAT_STRAT_DRAWS + 1.0);
}

size_t stat_strat_floor(double level)
{
	size_t n;

	for (n = 1; n <= 21; n++)
		if (stat_strat_min_p(n) <= level)
			return n;
	return 0;
}

double stat_strat_mde(double sd, size_t n, double level, double power)
{
	if (!isfinite(sd) || !n || !(level > 0 && level < 1))
		return NAN;
	if (stat_strat_min_p(n) > level)
		return INFINITY;
	return (stat_norm_quantile(1 - level) + stat_norm_quantile(power)) * sd /
	       sqrt((double)n * 3 / M_PI);
}

/* ------------------------------------------------------------ weighted Holm */

struct wranked {
	double r;    /* p / w */
	size_t i;
};

static int cmp_wranked(const void *a, const void *b)
{
	const struct wranked *x = a, *y = b;
	return x->r < y->r ? -1 : x->r > y->r;
}

size_t stat_holm_weighted(const double *p, const double *w, size_t n, double *adj)
{
	struct wranked *r = xmalloc((n ? n : 1) * sizeof(*r));
	size_t i, m = 0;
	double left = 0, run = 0;

	for (i = 0; i < n; i++) {
		if (!isnan(p[i]) && w[i] > 0) {
			r[m].r = p[i] / w[i];
			r[m].i = i;
			left += w[i];
			m++;
		}
	}
	qsort(r, m, sizeof(*r), cmp_wranked);
	for (i = 0; i < n; i++)
		if (isnan(p[i]) || !(w[i] > 0))
			adj[i] = NAN;
	for (i = 0; i < m; i++) {
		double v = r[i].r * left;  /* p_i x (weight not yet rejected) / w_i */
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		left -= w[r[i].i];
		adj[r[i].i] = run;
	}
	free(r);
	return m;
}
