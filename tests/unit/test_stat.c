/* test_stat: Mann-Kendall, Theil-Sen, PAVA, knee, bootstrap, percentile and
 * difference intervals against published or hand-computed values. */
#include <stdlib.h>

#include "base/hist.h"
#include "stat/stat.h"
#include "t.h"

/*
 * Published example with a tie: "A Mann-Kendall Example (By Hand)",
 * J. Little, Holy Cross (mathcs.holycross.edu/~little/Montserrat/
 * MannKendallByHand.txt), following Gilbert (1987) ch. 16: 14 values, one
 * tied pair (12.9), S = 54, V = (14*13*33 - 2*1*9)/18 = 332.667,
 * Z = (S-1)/sqrt(V) = 2.9058, one-sided p ~ .0018.
 */
TEST(mk_published_with_tie)
{
	const double x[] = { 12.9, 14.8, 13.2, 15.7, 13.8, 15.6, 12.9,
			     11.0, 17.3, 15.9, 19.0, 18.3, 20.1, 21.7 };
	struct mk_result r;

	CHECK(stat_mann_kendall(x, 14, &r) == 0);
	CHECK(r.n == 14);
	NEAR(r.s, 54, 0, "S is an exact count");
	NEAR(r.var_s, (14.0 * 13 * 33 - 2 * 1 * 9) / 18, 1e-9, "closed form");
	NEAR(r.z, 2.9058, 1e-4, "published to 4 decimals");
	NEAR(r.p, 0.0018, 5e-5, "published as .0018 (1 - Phi(2.9058) = .00183)");
}

/* Hand-computed: 1..5 is a perfect upward run: S = 10, Var = 5*4*15/18,
 * Z = 9/sqrt(16.667) = 2.20454, p = 1 - Phi(Z) = 0.013745. */
TEST(mk_hand_monotone)
{
	const double x[] = { 1, 2, 3, 4, 5 };
	struct mk_result r;

	CHECK(stat_mann_kendall(x, 5, &r) == 0);
	NEAR(r.s, 10, 0, "exact");
	NEAR(r.var_s, 100.0 / 6, 1e-12, "exact");
	NEAR(r.z, 9 / sqrt(100.0 / 6), 1e-12, "continuity correction S-1");
	NEAR(r.p, 0.013745, 2e-6, "normal table");
}

/* Hand-computed ties: [1,2,2,3]: S = 5, Var = (4*3*13 - 2*1*9)/18 = 7.6667,
 * Z = 4/sqrt(7.6667) = 1.44463; a downward run gives p > 0.5; NaN skipped;
 * all equal -> no trend (p = 0.5). */
TEST(mk_ties_nan_and_flat)
{
	const double x[] = { 1, 2, NAN, 2, 3 };
	const double down[] = { 5, 4, 3, 2, 1 };
	const double flat[] = { 7, 7, 7, 7 };
	struct mk_result r;

	CHECK(stat_mann_kendall(x, 5, &r) == 0);
	CHECK(r.n == 4);
	NEAR(r.s, 5, 0, "exact");
	NEAR(r.var_s, 138.0 / 18, 1e-12, "tie-corrected");
	NEAR(r.z, 4 / sqrt(138.0 / 18), 1e-12, "S-1 over sd");
	CHECK(stat_mann_kendall(down, 5, &r) == 0);
	NEAR(r.s, -10, 0, "exact");
	NEAR(r.z, -9 / sqrt(100.0 / 6), 1e-12, "S+1 over sd");
	CHECK(r.p > 0.98);
	CHECK(stat_mann_kendall(flat, 4, &r) == 0);
	NEAR(r.p, 0.5, 0, "no information either way");
	CHECK(stat_mann_kendall(x, 2, &r) < 0);
}

/* Hand-computed Theil-Sen: t = 0..4, y = 1 3 2 5 4: the ten pairwise
 * slopes sorted are -1 -1 1/3 1/2 3/4 1 1 4/3 2 3, median (3/4+1)/2. */
TEST(theil_sen_hand)
{
	const double t[] = { 0, 1, 2, 3, 4 }, y[] = { 1, 3, 2, 5, 4 };
	const double t2[] = { 0, 1, 2, 3 }, y2[] = { 0, NAN, 2, 3 };

	NEAR(stat_theil_sen(t, y, 5), 0.875, 1e-12, "exact");
	/* NaN pairs skipped: slopes 1, 1, 1 -> 1. */
	NEAR(stat_theil_sen(t2, y2, 4), 1, 1e-12, "exact");
	CHECK(isnan(stat_theil_sen(t, y, 1)));
}

/* The O(n log n) paths against brute force on a noisy series with many
 * ties (values rounded to 0.5): S exactly, Theil-Sen to 1e-12 relative. */
TEST(fast_paths_match_brute_force)
{
	enum { N = 3000 };
	double *t = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
	double s = 0, a, b, big;
	struct mk_result r;
	size_t i, j;
	unsigned long long st = 12345;

	for (i = 0; i < N; i++) {
		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		t[i] = (double)i;
		y[i] = floor((0.002 * i + (double)(st >> 40) / (1 << 24) * 3) * 2) / 2;
	}
	for (i = 0; i + 1 < N; i++)
		for (j = i + 1; j < N; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	CHECK(stat_mann_kendall(y, N, &r) == 0);
	NEAR(r.s, s, 0, "S is an exact count");
	a = stat_theil_sen_method(t, y, N, 0);
	b = stat_theil_sen_method(t, y, N, 1);
	{
		double lo = INFINITY, hi = -INFINITY, d;

		for (i = 0; i + 1 < N; i++) {
			d = y[i + 1] - y[i];
			lo = d < lo ? d : lo;
			hi = d > hi ? d : hi;
		}
		NEAR(b, a, 2e-14 * (hi - lo), "bisection stops at 1e-14 of its bracket");
	}
	NEAR(stat_theil_sen(t, y, N), b, 0, "above 2048 points: bisection");
	CHECK(a > 0.001 && a < 0.003); /* the planted 0.002 per step */
	/* A day of seconds runs in O(n log n) (the pair list would be 30 GB). */
	big = 0;
	{
		double *tb = malloc(86400 * sizeof(double)), *yb = malloc(86400 * sizeof(double));

		for (i = 0; i < 86400; i++) {
			tb[i] = (double)i;
			yb[i] = 5 + 0.01 * (double)(i % 7) + 1e-4 * (double)i;
		}
		big = stat_theil_sen(tb, yb, 86400);
		CHECK(stat_mann_kendall(yb, 86400, &r) == 0 && r.p < 1e-6);
		free(tb);
		free(yb);
	}
	NEAR(big, 1e-4, 1e-6, "planted slope; the i%%7 ripple shifts the median slightly");
	free(t);
	free(y);
}

/* Printed tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2). */
TEST(quantiles_vs_tables)
{
	NEAR(stat_norm_quantile(0.975), 1.959964, 1e-6, "table");
	NEAR(stat_norm_quantile(0.01), -2.326348, 1e-6, "table");
	NEAR(stat_norm_cdf(1.959964), 0.975, 1e-6, "table");
	NEAR(stat_t_quantile(0.975, 1), 12.706, 1e-3, "table, 3 decimals");
	NEAR(stat_t_quantile(0.975, 2), 4.303, 1e-3, "table");
	NEAR(stat_t_quantile(0.975, 3), 3.182, 1e-3, "table");
	NEAR(stat_t_quantile(0.975, 10), 2.228, 1e-3, "table");
	NEAR(stat_t_quantile(0.975, 30), 2.042, 1e-3, "table");
	NEAR(stat_t_quantile(0.95, 4), 2.132, 1e-3, "table");
	NEAR(stat_t_quantile(0.025, 10), -2.228, 1e-3, "symmetry");
	NEAR(stat_t_quantile(0.975, 1e6), 1.959964, 1e-5, "tends to the normal");
}

TEST(pava_hand)
{
	const double y1[] = { 1, 3, 2, 4 }, w1[] = { 1, 1, 1, 1 };
	const double y2[] = { 1, 3, 2 }, w2[] = { 1, 1, 3 };
	const double y3[] = { 5, 4, 3, 2, 1 }, w3[] = { 1, 1, 1, 1, 1 };
	const double y4[] = { 9, 1, 3 }, w4[] = { 0, 1, 1 };
	double f[5];

	stat_pava(y1, w1, 4, f);
	NEAR(f[0], 1, 0, "untouched");
	NEAR(f[1], 2.5, 1e-12, "pooled (3+2)/2");
	NEAR(f[2], 2.5, 1e-12, "pooled");
	NEAR(f[3], 4, 0, "untouched");
	stat_pava(y2, w2, 3, f);
	NEAR(f[1], 2.25, 1e-12, "weighted (3*1 + 2*3)/4");
	NEAR(f[2], 2.25, 1e-12, "weighted");
	stat_pava(y3, w3, 5, f);
	NEAR(f[0], 3, 1e-12, "all pooled to the mean");
	NEAR(f[4], 3, 1e-12, "all pooled to the mean");
	stat_pava(y4, w4, 3, f);
	NEAR(f[0], 1, 0, "zero weight takes the first fitted value");
	NEAR(f[2], 3, 0, "untouched");
}

/* Exact binomial ranks for the median of n = 100 at 95%: (40, 61), the
 * classic table value (e.g. Conover, Practical Nonparametric Statistics,
 * table A3; coverage 0.9648). */
TEST(order_statistic_ci)
{
	size_t nb = hist_nbuckets(), i;
	uint64_t *counts = calloc(nb, sizeof(*counts));
	struct pct_ci ci;

	for (i = 0; i < 100; i++)
		counts[i + 10] = 1;
	CHECK(stat_counts_pct_ci(counts, nb, 50, 0.95, &ci) == 0);
	CHECK(ci.exact);
	CHECK(ci.rank_lo == 40 && ci.rank_hi == 61);
	NEAR(ci.coverage, 0.9648, 1e-4, "P(40 <= B <= 60), Bin(100, 0.5), table");
	NEAR(ci.value_ns, (double)hist_bucket_value(10 + 49), 0, "rank 50");
	NEAR(ci.lo_ns, (double)hist_bucket_value(10 + 39), 0, "rank 40");
	NEAR(ci.hi_ns, (double)hist_bucket_value(10 + 60), 0, "rank 61");
	/* p99 of 100: the upper rank runs past n and is clamped to the max. */
	CHECK(stat_counts_pct_ci(counts, nb, 99, 0.95, &ci) == 0);
	CHECK(ci.rank_hi == 100 && ci.rank_lo <= 97);
	CHECK(ci.coverage < 0.95); /* 100 samples cannot bracket p99 at 95% */
	/* Normal approximation, n = 10000, p99: mu = 9900, sd = sqrt(99),
	 * z = 1.959964: l = floor(9880.5) = 9880, u = ceil(9919.5) + 1 = 9921. */
	memset(counts, 0, nb * sizeof(*counts));
	counts[100] = 10000;
	CHECK(stat_counts_pct_ci(counts, nb, 99, 0.95, &ci) == 0);
	CHECK(!ci.exact);
	CHECK(ci.rank_lo == 9880 && ci.rank_hi == 9921);
	CHECK(ci.coverage >= 0.95 && ci.coverage < 0.97);
	memset(counts, 0, nb * sizeof(*counts));
	CHECK(stat_counts_pct_ci(counts, nb, 99, 0.95, &ci) < 0);
	free(counts);
}

/* Hand-computed: d = 1 2 1 2, mean 1.5, sd = sqrt(1/3), se = 0.288675,
 * t(0.975, 3) = 3.182446 -> 1.5 +- 0.918689. */
TEST(paired_ci)
{
	const double a[] = { 10, 12, 11, 13, 99 }, b[] = { 9, 10, 10, 11, NAN };
	const double c[] = { 1, -1, 2, -2 }, z[] = { 0, 0, 0, 0 };
	struct diff_ci d;

	CHECK(stat_paired_diff(a, b, 5, 0.95, 0.1, &d) == 0);
	CHECK(d.n == 4); /* the unpaired block is left out */
	NEAR(d.mean, 1.5, 1e-12, "exact");
	NEAR(d.lo, 1.5 - 3.182446 * sqrt(1.0 / 3) / 2, 1e-5, "t table to 6 digits");
	NEAR(d.hi, 1.5 + 3.182446 * sqrt(1.0 / 3) / 2, 1e-5, "t table to 6 digits");
	CHECK(d.verdict == VERDICT_B_LOWER); /* a - b > 0 */
	CHECK(stat_paired_diff(b, a, 4, 0.95, 0.1, &d) == 0);
	CHECK(d.verdict == VERDICT_A_LOWER);
	CHECK(stat_paired_diff(a, b, 4, 0.95, 5, &d) == 0);
	CHECK(d.verdict == VERDICT_TIE);
	CHECK_STR(stat_verdict_name(d.verdict), "tie");
	CHECK(stat_paired_diff(c, z, 4, 0.95, 0.5, &d) == 0);
	CHECK(d.verdict == VERDICT_INCONCLUSIVE);
	CHECK(stat_paired_diff(a, b, 1, 0.95, 0.5, &d) < 0);
	CHECK(d.verdict == VERDICT_INCONCLUSIVE && d.n == 1);
}

/* Hand-computed Welch: a = 1..4 (mean 2.5, var 5/3), b = 2,4,..,10 (mean 6,
 * var 10): se^2 = 5/12 + 2 = 2.416667, df = se^4 / ((5/12)^2/3 + 2^2/4)
 * = 5.840278 / 1.057870 = 5.520788. */
TEST(welch_ci)
{
	const double a[] = { 1, 2, 3, 4 }, b[] = { 2, 4, 6, 8, 10 };
	struct diff_ci d;
	double se = sqrt(5.0 / 12 + 2), t;

	CHECK(stat_welch_diff(a, 4, b, 5, 0.95, 1, &d) == 0);
	NEAR(d.mean, -3.5, 1e-12, "exact");
	NEAR(d.df, 5.520788, 1e-5, "Welch-Satterthwaite by hand");
	t = (d.hi - d.mean) / se;
	CHECK(t > 2.4469 && t < 2.5706); /* between the table's df 6 and df 5 */
	CHECK(d.verdict == VERDICT_INCONCLUSIVE); /* -3.5 +- 3.9 spans 0 */
	CHECK(stat_welch_diff(a, 1, b, 5, 0.95, 1, &d) < 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Issue 6: percentiles across windows come from merged histograms. Window
 * A: 10000 requests spread over 1..10 ms; window B: 1000 over 50..100 ms.
 * p99(A) ~ 9.9, p99(B) ~ 99.5, their mean ~ 54.7 ms; the pooled p99 is the
 * 10890th of 11000 values, inside B: ~ 94.5 ms. The merged histogram must
 * give the exact pooled p99 within the histogram's relative error bound
 * (hist.h: <= 1%), and be far from the mean of the two p99s.
 */
TEST(merged_p99_is_not_mean_of_p99s)
{
	struct hist a, b, m;
	uint64_t *all = malloc(11000 * sizeof(*all)), exact;
	size_t i, n = 0;
	double mean_of_p99s, merged;

	hist_init(&a);
	hist_init(&b);
	hist_init(&m);
	for (i = 0; i < 10000; i++) {
		all[n] = 1000000 + (uint64_t)i * 900; /* 1 .. 10 ms */
		hist_record(&a, all[n++]);
	}
	for (i = 0; i < 1000; i++) {
		all[n] = 50000000 + (uint64_t)i * 50000; /* 50 .. 100 ms */
		hist_record(&b, all[n++]);
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	exact = all[10890 - 1]; /* rank ceil(0.99 * 11000) = 10890 */
	hist_merge(&m, &a);
	hist_merge(&m, &b);
	merged = (double)hist_percentile(&m, 99);
	mean_of_p99s = ((double)hist_percentile(&a, 99) + (double)hist_percentile(&b, 99)) / 2;
	NEAR(merged, (double)exact, 0.01 * (double)exact, "hist relative error <= 1%");
	CHECK(fabs(merged - mean_of_p99s) > 0.3 * (double)exact); /* 94.5 vs 54.7 */
	free(all);
	hist_release(&a);
	hist_release(&b);
	hist_release(&m);
}

TEST(hodges_lehmann)
{
	double a[6] = { 1, 2, 3, 4, 5, 6 }, z[6] = { 0 }, b[4] = { 0, 1, 2, 3 };
	double w[12];
	struct diff_ci d;
	int i;

	/* Walsh averages of 1..6: median 3.5. At 95 % the exact signed-rank
	 * k is 1 (P(T+ = 0) = 1/64 <= 0.025 < P(T+ <= 1) = 2/64): [1, 6];
	 * at 90 % k = 3 (P(T+ <= 2) = 3/64 <= 0.05 < 5/64): the 3rd smallest
	 * (1, 1.5, 2, ...) and 3rd largest Walsh averages, 2 and 5. */
	CHECK(stat_hl_paired(a, z, 6, 0.95, &d) == 0);
	NEAR(d.mean, 3.5, 1e-12, "exact");
	NEAR(d.lo, 1, 1e-12, "exact");
	NEAR(d.hi, 6, 1e-12, "exact");
	CHECK(stat_hl_paired(a, z, 6, 0.90, &d) == 0);
	NEAR(d.lo, 2, 1e-12, "exact");
	NEAR(d.hi, 5, 1e-12, "exact");
	/* 5 pairs cannot reach 95 % (1/32 > 0.025): no interval. */
	CHECK(stat_hl_paired(a, z, 5, 0.95, &d) < 0 && isnan(d.lo));
	/* One wild pair among 12 does not move the interval's ends beyond the
	 * clean values (k = 14 > 12 tainted Walsh averages at 95 %). */
	for (i = 0; i < 12; i++)
		w[i] = i == 3 ? 1000 : 0;
	{
		double zz[12] = { 0 };
		CHECK(stat_hl_paired(w, zz, 12, 0.95, &d) == 0);
		NEAR(d.mean, 0, 0, "11 zeros");
		NEAR(d.hi, 0, 0, "the wild pair stays outside the interval");
	}
	/* Unpaired 4 against 4 at 95 %: P(U = 0) = 1/70: k = 1, the extreme
	 * differences; the estimate is the median of the 16 differences. */
	CHECK(stat_hl_unpaired(a, 4, b, 4, 0.95, &d) == 0);
	NEAR(d.mean, 1, 1e-12, "median of {i - j}");
	NEAR(d.lo, -2, 1e-12, "1 - 3");
	NEAR(d.hi, 4, 1e-12, "4 - 0");
	CHECK(stat_hl_unpaired(a, 3, b, 3, 0.95, &d) < 0);
}

/* Holm by hand: sorted 0.005 0.01 0.03 0.04 times 4 3 2 1, made monotone;
 * NaN untested and uncounted. */
TEST(holm_hand)
{
	double p[5] = { 0.01, 0.04, NAN, 0.03, 0.005 }, adj[5];

	CHECK(stat_holm(p, 5, adj) == 4);
	NEAR(adj[0], 0.03, 1e-15, "3 x 0.01");
	NEAR(adj[1], 0.06, 1e-15, "1 x 0.04 raised to the step before, 2 x 0.03");
	CHECK(isnan(adj[2]));
	NEAR(adj[3], 0.06, 1e-15, "2 x 0.03");
	NEAR(adj[4], 0.02, 1e-15, "4 x 0.005");
	/* Capped at 1, and in place. */
	p[0] = 0.6;
	p[1] = 0.7;
	CHECK(stat_holm(p, 2, p) == 2);
	NEAR(p[0], 1, 0, "cap");
	NEAR(p[1], 1, 0, "monotone");
}

/* Exact rank p-values by counting subsets; t by the df 2 closed form. */
TEST(one_sided_p_values)
{
	double a[6] = { 1, 2, 3, 4, 5, -6 }, z[6] = { 0 }, b[3] = { 1, 2, 3 }, c[3] = { 5, 6, 7 };

	/* T+ = 15 of 21; 14 of the 64 sign patterns reach 15 (their
	 * complements sum to 6 or less). */
	NEAR(stat_signed_rank_p(a, z, 6), 14.0 / 64, 1e-12, "exact count");
	/* All positive: 2^-6, the test's floor. */
	a[5] = 6;
	NEAR(stat_signed_rank_p(a, z, 6), 1.0 / 64, 1e-12, "exact");
	NEAR(stat_signed_rank_min_p(6), 1.0 / 64, 0, "2^-n");
	/* The other direction: every Walsh average positive, p = 1. */
	NEAR(stat_signed_rank_p(z, a, 6), 1, 1e-12, "exact");
	NEAR(stat_mann_whitney_p(c, 3, b, 3), 1.0 / 20, 1e-12, "1 / C(6, 3)");
	NEAR(stat_mann_whitney_min_p(3, 3), 1.0 / 20, 1e-12, "1 / C(6, 3)");
	/* d = 1 2 3: t = 2 / (1 / sqrt 3), df 2: P(T > t) = 1/2 - t / (2 sqrt(t^2 + 2)). */
	{
		double t = 2 * sqrt(3.0);
		NEAR(stat_t_paired_p(b, z, 3), 0.5 - t / (2 * sqrt(t * t + 2)), 1e-9,
		     "closed form at df 2");
	}
	/* Consistent with the intervals: p <= alpha exactly when the 1 - 2
	 * alpha Hodges-Lehmann interval is above 0 (6 pairs, 0.05: k = 2). */
	{
		double d[6] = { 1, 2, 3, 4, 5, -0.5 };
		struct diff_ci ci;

		stat_hl_paired(d, z, 6, 0.90, &ci);
		CHECK((stat_signed_rank_p(d, z, 6) <= 0.05) == (ci.lo > 0));
		d[5] = -3.5;
		stat_hl_paired(d, z, 6, 0.90, &ci);
		CHECK((stat_signed_rank_p(d, z, 6) <= 0.05) == (ci.lo > 0));
	}
	CHECK(isnan(stat_t_paired_p(b, z, 1)));
	CHECK(isnan(stat_mann_whitney_p(b, 0, c, 3)));
}

/* The normal-mixture sequence: its width at known values, wider than a
 * fixed-n interval (the price of looking after every block), narrowing
 * with n, and its p-value consistent with its interval. */
TEST(confidence_sequence)
{
	double d[10], z[10] = { 0 };
	double f = stat_t_quantile(0.975, 9) / stat_norm_quantile(0.975);
	struct diff_ci ci;
	size_t i;

	/* sd 1, n 10, alpha 0.05, tuned for 10: the mixture boundary computed
	 * by hand from the formula in stat.h (python: 0.9598173584), times the
	 * small-sample factor t_.975,9 / z_.975 (2.262157 / 1.959964). */
	NEAR(f, 2.262157163 / 1.959963985, 1e-8, "printed tables");
	NEAR(stat_cs_half_width(1, 10, 0.05, 10), 0.9598173584 * f, 1e-9, "formula");
	NEAR(stat_cs_half_width(2, 10, 0.05, 10), 2 * 0.9598173584 * f, 1e-9, "scales with sd");
	CHECK(stat_cs_half_width(1, 10, 0.05, 10) > stat_t_quantile(0.975, 9) / sqrt(10.0));
	CHECK(stat_cs_half_width(1, 40, 0.05, 10) < stat_cs_half_width(1, 20, 0.05, 10));
	CHECK(isnan(stat_cs_half_width(1, 1, 0.05, 10)));
	for (i = 0; i < 10; i++)
		d[i] = 1 + (i % 2 ? 0.5 : -0.5);   /* mean 1, sd 0.527 */
	CHECK(stat_cs_paired(d, z, 10, 0.05, 10, &ci) == 0);
	NEAR(ci.mean, 1, 1e-12, "mean");
	NEAR(ci.hi - ci.mean, stat_cs_half_width(sqrt(10.0 / 36), 10, 0.05, 10), 1e-12,
	     "sd of +-0.5 over 10: sqrt(2.5 / 9)");
	CHECK((stat_cs_p(d, z, 10, 0.05, 10) <= 0.05) == (ci.lo > 0));
	/* A mean just beyond the half-width: p just under alpha; just inside:
	 * just over (the p-value is the level at which the sequence touches 0). */
	for (i = 0; i < 10; i++)
		d[i] = (i % 2 ? 0.5 : -0.5);
	{
		double hw = stat_cs_half_width(sqrt(10.0 / 36), 10, 0.05, 10);
		for (i = 0; i < 10; i++)
			d[i] += hw * (1 + 1e-6);
		NEAR(stat_cs_p(d, z, 10, 0.05, 10), 0.05, 1e-4, "at the boundary");
		CHECK(stat_cs_p(d, z, 10, 0.05, 10) <= 0.05);
		for (i = 0; i < 10; i++)
			d[i] -= 2e-6 * hw;
		CHECK(stat_cs_p(d, z, 10, 0.05, 10) > 0.05);
	}
	for (i = 0; i < 10; i++)
		d[i] = 0.3 + (i % 2 ? 0.5 : -0.5);
	stat_cs_paired(d, z, 10, 0.05, 10, &ci);
	CHECK(ci.lo < 0 && stat_cs_p(d, z, 10, 0.05, 10) > 0.05);
	NEAR(stat_cs_p(z, d, 10, 0.05, 10), 1, 0, "the other direction");
}

/* MDE: paired t by hand; HL infinite below the exact test's reach and
 * robust to one wild pair; Welch's. */
TEST(minimum_detectable_effect)
{
	double d[12] = { 1, 2, 3, 4, 5 }, w[12];
	size_t i;

	/* sd 1.5811, n 5: (t_.95,4 2.131847 + t_.80,4 0.940965) x sd / sqrt 5 */
	NEAR(stat_mde(STAT_T, 1, d, 5, NULL, 0, 0.05, 0.8, 0), 3.072812 * 1.5811388 / sqrt(5.0),
	     1e-4, "printed t table to 6 digits");
	/* 4 pairs: the signed-rank floor 1/16 > 0.05. */
	CHECK(isinf(stat_mde(STAT_HL, 1, d, 4, NULL, 0, 0.05, 0.8, 0)));
	CHECK(isfinite(stat_mde(STAT_HL, 1, d, 5, NULL, 0, 0.05, 0.8, 0)));
	/* Divided by 4 cells (Holm's first step) the level is stricter: larger. */
	CHECK(stat_mde(STAT_T, 1, d, 5, NULL, 0, 0.0125, 0.8, 0) >
	      stat_mde(STAT_T, 1, d, 5, NULL, 0, 0.05, 0.8, 0));
	for (i = 0; i < 12; i++)
		w[i] = (double)(i % 4);
	{
		double clean = stat_mde(STAT_HL, 1, w, 12, NULL, 0, 0.05, 0.8, 0);
		double tclean = stat_mde(STAT_T, 1, w, 12, NULL, 0, 0.05, 0.8, 0);
		w[5] = 500;
		CHECK(stat_mde(STAT_HL, 1, w, 12, NULL, 0, 0.05, 0.8, 0) < 1.5 * clean);
		CHECK(stat_mde(STAT_T, 1, w, 12, NULL, 0, 0.05, 0.8, 0) > 20 * tclean);
	}
	/* Welch with equal sd 1.5811 and n 5 per side: df 8,
	 * (t_.95,8 1.859548 + t_.80,8 0.888890) x sqrt(2 x 2.5 / 5). */
	NEAR(stat_mde(STAT_T, 0, d, 5, d, 5, 0.05, 0.8, 0), 2.748438, 1e-5, "t table");
	CHECK(isnan(stat_mde(STAT_CS, 0, d, 5, d, 5, 0.05, 0.8, 10)));
	CHECK(isnan(stat_mde(STAT_T, 1, d, 1, NULL, 0, 0.05, 0.8, 0)));
}

int main(void)
{
	RUN(mk_published_with_tie);
	RUN(mk_hand_monotone);
	RUN(mk_ties_nan_and_flat);
	RUN(theil_sen_hand);
	RUN(fast_paths_match_brute_force);
	RUN(quantiles_vs_tables);
	RUN(pava_hand);
	RUN(order_statistic_ci);
	RUN(paired_ci);
	RUN(hodges_lehmann);
	RUN(welch_ci);
	RUN(merged_p99_is_not_mean_of_p99s);
	RUN(holm_hand);
	RUN(one_sided_p_values);
	RUN(confidence_sequence);
	RUN(minimum_detectable_effect);
	return t_done();
}
