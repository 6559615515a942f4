/* test_stat_strat: the stratified signed-rank test (van Elteren's
 * weights), its Hodges-Lehmann estimate and inverted interval, and
 * weighted Holm, against brute force, the one-stratum test and hand
 * values. */
#include <stdlib.h>

#include "stat/stat.h"
#include "t.h"

/* P(T* >= T) by brute force over every sign pattern of the ranks (no
 * ties in |d| within a stratum, no zeros): T = sum_r sum_i R_i [d_i > 0] /
 * (n_r + 1). */
static double brute_p(const double *d, const size_t *st, size_t n, size_t ns)
{
	double rank[32], w[8] = { 0 }, t = 0, hits = 0;
	size_t i, j, mask;

	for (i = 0; i < n; i++) {
		rank[i] = 1;
		for (j = 0; j < n; j++)
			if (st[j] == st[i] && fabs(d[j]) < fabs(d[i]))
				rank[i]++;
		w[st[i]]++;
	}
	for (i = 0; i < ns; i++)
		w[i] = 1 / (w[i] + 1);
	for (i = 0; i < n; i++)
		t += d[i] > 0 ? w[st[i]] * rank[i] : 0;
	for (mask = 0; mask < ((size_t)1 << n); mask++) {
		double ts = 0;
		for (i = 0; i < n; i++)
			ts += mask >> i & 1 ? w[st[i]] * rank[i] : 0;
		hits += ts >= t - 1e-12;
	}
	return hits / (double)((size_t)1 << n);
}

/* The README's PR recipe: 2 rates x 3 blocks, every pair slower. */
TEST(six_unanimous_pairs)
{
	const double d[6] = { 0.5, 0.7, 0.6, 1.2, 1.0, 1.1 };
	const size_t st[6] = { 0, 0, 0, 1, 1, 1 };
	struct stat_strat f;

	CHECK(stat_strat_signed_rank(d, st, 6, 2, 0.05, 1, &f) == 0);
	CHECK(f.exact && f.n == 6 && f.nstrata == 2);
	NEAR(f.p_up, 1.0 / 64, 1e-15, "only the all-positive pattern reaches T");
	NEAR(f.p_down, 1, 1e-15, "every pattern is below");
	CHECK(f.lo > 0 && f.lo <= f.est && f.est <= f.hi);
	CHECK(f.est > 0.5 && f.est < 1.2);
	/* One stratum of 3 cannot reach 0.05 (1/8): no interval. */
	CHECK(stat_strat_signed_rank(d, st, 3, 1, 0.05, 1, &f) == -1);
	NEAR(f.p_up, 1.0 / 8, 1e-15, "2^-3");
	CHECK(isnan(f.lo));
}

TEST(p_values_match_brute_force)
{
	const double d[10] = { 0.3, -0.12, 0.25, 0.05, -0.2, 0.41, 0.1, -0.07, 0.15, 0.33 };
	const size_t st[10] = { 0, 0, 0, 1, 1, 1, 1, 2, 2, 2 };
	double neg[10];
	struct stat_strat f;
	size_t i;

	stat_strat_signed_rank(d, st, 10, 3, 0.05, 1, &f);
	CHECK(f.exact);
	NEAR(f.p_up, brute_p(d, st, 10, 3), 1e-12, "same distribution");
	for (i = 0; i < 10; i++)
		neg[i] = -d[i];
	NEAR(f.p_down, brute_p(neg, st, 10, 3), 1e-12, "the mirror");
}

/* One stratum: the Wilcoxon signed-rank test and its Hodges-Lehmann
 * interval (stat_rank.c), exactly. */
TEST(one_stratum_is_wilcoxon)
{
	const double a[8] = { 1.3, 0.9, 1.6, 1.1, 1.45, 0.7, 1.25, 1.52 };
	const double b[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	double d[8];
	size_t st[8] = { 0 }, i;
	struct stat_strat f;
	struct diff_ci hl;

	for (i = 0; i < 8; i++)
		d[i] = a[i] - b[i];
	CHECK(stat_strat_signed_rank(d, st, 8, 1, 0.05, 1, &f) == 0);
	stat_hl_paired(a, b, 8, 0.9, &hl);
	NEAR(f.p_up, stat_signed_rank_p(a, b, 8), 1e-12, "the same test");
	NEAR(f.est, hl.mean, 1e-12, "median of the Walsh averages");
	NEAR(f.lo, hl.lo, 1e-12, "same order statistic");
	NEAR(f.hi, hl.hi, 1e-12, "same order statistic");
}

/* The interval is the test inverted: shifting the data by just below lo
 * leaves a rise rejected, just above it does not (unequal strata). */
TEST(interval_inverts_the_test)
{
	const double d[11] = { 0.31, 0.22, 0.4, 0.18, 0.27, 0.05, 0.35, 0.29, 0.12, 0.44, 0.2 };
	const size_t st[11] = { 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3 };
	double sh[11];
	struct stat_strat f, g;
	size_t i;
	int k;

	CHECK(stat_strat_signed_rank(d, st, 11, 4, 0.05, 1, &f) == 0);
	for (k = 0; k < 2; k++) {
		double delta = k ? f.lo + 1e-9 : f.lo - 1e-9;
		for (i = 0; i < 11; i++)
			sh[i] = d[i] - delta;
		stat_strat_signed_rank(sh, st, 11, 4, 0.05, 1, &g);
		CHECK(k ? g.p_up > 0.05 : g.p_up <= 0.05);
		delta = k ? f.hi - 1e-9 : f.hi + 1e-9;
		for (i = 0; i < 11; i++)
			sh[i] = d[i] - delta;
		stat_strat_signed_rank(sh, st, 11, 4, 0.05, 1, &g);
		CHECK(k ? g.p_down > 0.05 : g.p_down <= 0.05);
	}
}

/* One window the host stalled among equal pairs moves nothing. */
TEST(one_stall)
{
	double d[12] = { 0 };
	size_t st[12] = { 0 };
	struct stat_strat f;

	d[3] = log(51);
	CHECK(stat_strat_signed_rank(d, st, 12, 1, 0.05, 1, &f) == 0);
	NEAR(f.est, 0, 0, "the median average is a zero");
	NEAR(f.lo, 0, 0, "zeros on both sides");
	NEAR(f.hi, 0, 0, "zeros on both sides");
	CHECK(f.p_up > 0.2);
}

/* Many unequal strata: the null distribution is drawn, deterministic. */
TEST(monte_carlo)
{
	double d[65];
	size_t st[65], i, r = 0, left = 2;
	struct stat_strat f, g;

	for (i = 0; i < 65; i++) {  /* strata of 2, 3, ..., 11 pairs */
		d[i] = (i % 4 == 0 ? -0.02 : 0.1) + 0.001 * (double)i;
		st[i] = r;
		if (!--left)
			left = ++r + 2;
	}
	CHECK(stat_strat_signed_rank(d, st, 65, 10, 0.05, 42, &f) == 0);
	CHECK(!f.exact);
	CHECK(f.p_up <= 1.0 / (STAT_STRAT_DRAWS + 1) + 1e-15 && f.lo > 0);
	stat_strat_signed_rank(d, st, 65, 10, 0.05, 42, &g);
	CHECK(f.p_up == g.p_up && f.lo == g.lo && f.est == g.est);
}

TEST(floors)
{
	NEAR(stat_strat_min_p(6), 1.0 / 64, 1e-15, "2^-6");
	/* weighted Holm's first step for one of 2 pooled metrics sharing 0.8
	 * of alpha 0.05 is 0.02: reached from 6 pairs; plain Holm over 4
	 * cells (0.0125) needs 7 */
	CHECK(stat_strat_floor(0.05 * 0.4) == 6);
	CHECK(stat_strat_floor(0.05 / 4) == 7);
	CHECK(stat_strat_floor(1e-9) == 0);
	CHECK(isinf(stat_strat_mde(0.1, 5, 0.02, 0.8)));
	CHECK(isfinite(stat_strat_mde(0.1, 6, 0.02, 0.8)));
}

TEST(weighted_holm)
{
	/* two pooled metrics (0.4 each), four cells (0.05 each) */
	const double p[6] = { 1.0 / 64, 1.0 / 64, 0.125, 0.125, 0.5, NAN };
	const double w[6] = { 0.4, 0.4, 0.05, 0.05, 0.05, 0.05 };
	double adj[6], eq[4] = { 0.01, 0.04, 0.03, 0.2 }, one[4] = { 1, 1, 1, 1 };
	double h[4], hw[4];

	CHECK(stat_holm_weighted(p, w, 6, adj) == 5);
	/* step 1: (1/64) / 0.4 x 0.95 (the untested weight is not
	 * counted); step 2: x 0.55, kept at the running max */
	NEAR(adj[0], 1.0 / 64 / 0.4 * 0.95, 1e-12, "hand");
	NEAR(adj[1], 1.0 / 64 / 0.4 * 0.95, 1e-12, "monotone");
	NEAR(adj[2], 0.125 / 0.05 * 0.15, 1e-12, "hand: 0.375");
	NEAR(adj[3], adj[2], 1e-12, "monotone");
	NEAR(adj[4], 0.5, 1e-12, "the last alone");
	CHECK(isnan(adj[5]));
	CHECK(adj[0] <= 0.05 && adj[1] <= 0.05);
	stat_holm(eq, 4, h);
	stat_holm_weighted(eq, one, 4, hw);
	for (int i = 0; i < 4; i++)
		NEAR(hw[i], h[i], 1e-12, "equal weights: Holm");
}

int main(void)
{
	RUN(six_unanimous_pairs);
	RUN(p_values_match_brute_force);
	RUN(one_stratum_is_wilcoxon);
	RUN(interval_inverts_the_test);
	RUN(one_stall);
	RUN(monte_carlo);
	RUN(floors);
	RUN(weighted_holm);
	return t_done();
}
