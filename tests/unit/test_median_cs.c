/* test_median_cs: the sign-count confidence sequence for a median
 * (harness/stat/stat_quant.c) and the median_cs method of the sequential
 * rule (harness/stat/decide.h): bounds worked out by hand, coverage and
 * false decisions under heavy-tailed nulls over many simulated sequences
 * (fixed seed: deterministic), power, one wild round, and the guard on
 * "no change". */
#include "stat/decide.h"
#include "stat/stat.h"
#include "base/hist.h"
#include "base/util.h"
#include "t.h"
#include "t_rng.h"

#include <stdint.h>
#include <stdlib.h>

/* ------------------------------------------------------------ fixtures */


/* A round's log ratio under a busy host: 85% N(0, 0.1^2), 15% Cauchy of
 * scale 0.5 (a window the host held back, in either arm): median 0, no
 * variance. */
static double noisy(void)
{
	if (unif() < 0.85)
		return 0.1 * normal();
	return 0.5 * tan(M_PI * (unif() - 0.5));
}

static struct decide_obs obs[512];
static const double rate[] = { 300 };

/* Judge the first n rounds of y with method m, margin pct, guard g
 * (NULL: none; else {new, base}). */
static void judge(const double *y, size_t n, enum decide_method m, double pct, const double *g,
		  struct decide_metric *out)
{
	struct decide_rule r = { 0.05, DECIDE_T_STAR, pct, 0, m, NULL, NULL, DECIDE_GUARD_MERGED,
				 DECIDE_MARGIN_POINT };
	size_t k;

	if (g) {
		r.guard_new = &g[0];
		r.guard_base = &g[1];
	}
	for (k = 0; k < n; k++) {
		obs[k].rate = 300;
		obs[k].order = (int64_t)k;
		obs[k].base = 3.0;
		obs[k].new_ = 3.0 * exp(y[k]);
	}
	decide_metric(&r, rate, 1, obs, n, out);
}

/* ------------------------------------------------------------ bounds */

TEST(counts_by_hand)
{
	size_t lo, hi;

	/* 2^t B(1 + k, 1 + t - k) = 2^t / ((t + 1) C(t, k)): at k = 0,
	 * 2^7 / 8 = 16 < 20 and 2^8 / 9 = 28.4 >= 20 */
	CHECK(stat_median_cs_counts(7, 0.05, &lo, &hi) == 0 && lo == 0 && hi == 7);
	CHECK(stat_median_cs_counts(8, 0.05, &lo, &hi) == 0 && lo == 1 && hi == 7);
	/* t = 20: 2^20 / (21 C(20, 3)) = 43.8 rejected, / (21 C(20, 4)) = 10.3 kept */
	CHECK(stat_median_cs_counts(20, 0.05, &lo, &hi) == 0 && lo == 4 && hi == 16);
	CHECK(stat_median_cs_counts(0, 0.05, &lo, &hi) == -1);
	CHECK(stat_median_cs_counts(5, 1, &lo, &hi) == -1);
}

TEST(bounds_are_order_statistics)
{
	double x[21], med, lo, hi;
	size_t i;

	for (i = 0; i < 20; i++)
		x[i] = (double)((i * 7) % 20 + 1);   /* 1..20, shuffled */
	x[20] = NAN;                             /* skipped */
	CHECK(stat_median_cs(x, 21, 0.05, &med, &lo, &hi) == 0);
	NEAR(med, 10.5, 0, "median of 1..20");
	NEAR(lo, 4, 0, "x_(kmin), kmin 4");
	NEAR(hi, 17, 0, "x_(kmax + 1), kmax 16");
	CHECK(stat_median_cs(x, 7, 0.05, &med, &lo, &hi) == 0);
	CHECK(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
	CHECK(stat_median_cs(x, 0, 0.05, &med, &lo, &hi) == -1 && isnan(lo));
}

/* ------------------------------------------------------------ validity */

#define SEQS 2000
#define ROUNDS 200

/* The sequence excludes the true median 0 at some round of 200, in 2000
 * heavy-tailed sequences: Ville bounds that by alpha at every round at
 * once. 0 is in [x_(kmin), x_(kmax+1)) exactly when kmin <= #{x <= 0} <=
 * kmax, so the counts decide it without sorting each round. */
TEST(coverage_under_a_heavy_tailed_null)
{
	size_t s, t, kmin[ROUNDS + 1], kmax[ROUNDS + 1], missed = 0;

	for (t = 1; t <= ROUNDS; t++)
		stat_median_cs_counts(t, 0.05, &kmin[t], &kmax[t]);
	rng = 1;
	for (s = 0; s < SEQS; s++) {
		size_t below = 0;

		for (t = 1; t <= ROUNDS; t++) {
			below += noisy() <= 0;
			if (below < kmin[t] || below > kmax[t]) {
				missed++;
				break;
			}
		}
	}
	printf("# median_cs: %zu of %d null sequences left the median at some round of %d "
	       "(alpha 0.05)\n", missed, SEQS, ROUNDS);
	CHECK(missed <= SEQS / 20);
}

/* The whole rule on the same null, margin 5%: regression or improvement
 * at any look is a false decision (<= alpha); "no change" (guard held)
 * is the right answer, and how soon it comes. mean_cs on the same data
 * for contrast (printed, not asserted: it is asymptotic). */
TEST(false_decisions_under_a_heavy_tailed_null)
{
	static double y[ROUNDS];
	double g[2] = { 3.0, 3.0 };
	size_t s, t, wrong[2] = { 0, 0 }, same[2] = { 0, 0 }, at[2][SEQS];
	int m;

	rng = 2;
	for (s = 0; s < SEQS / 10; s++) {
		for (t = 0; t < ROUNDS; t++)
			y[t] = noisy();
		for (m = 0; m < 2; m++) {
			struct decide_metric d;

			at[m][s] = ROUNDS + 1;
			/* mean_cs every 10th round only: its rounds-needed
			 * search is slow, and it is printed, not asserted */
			for (t = DECIDE_MIN_ROUNDS; t <= ROUNDS; t += m ? 1 : 10) {
				judge(y, t, (enum decide_method)m, 5, g, &d);
				if (d.verdict == DECIDE_REGRESSION || d.verdict == DECIDE_IMPROVEMENT) {
					wrong[m]++;
					break;
				}
				if (d.verdict == DECIDE_NO_CHANGE) {
					same[m]++;
					at[m][s] = t;
					break;
				}
			}
		}
	}
	for (m = 0; m < 2; m++) {
		size_t k, le = 0, med = 0;

		/* the median round to "no change" over all sequences (none: > 200) */
		for (t = 1; t <= ROUNDS + 1 && !med; t++) {
			for (k = 0; k < SEQS / 10; k++)
				le += at[m][k] == t;
			if (2 * le >= SEQS / 10)
				med = t;
		}
		printf("# %s, margin 5%%, %d null sequences: %zu false decisions, %zu no change, "
		       "median rounds to no change %zu%s\n", decide_method_name((enum decide_method)m),
		       SEQS / 10, wrong[m], same[m], med, med > ROUNDS ? " (none within 200)" : "");
	}
	CHECK(wrong[DECIDE_MEDIAN_CS] <= SEQS / 10 / 20);
	CHECK(2 * same[DECIDE_MEDIAN_CS] >= SEQS / 10);
}

/* ------------------------------------------------------------ power */

/* +30% with the same noise, margin 5%: a regression within 30 rounds in
 * at least 95 of 100 sequences (the fewest rounds the sequence can
 * decide in at alpha 0.05 is 8). */
TEST(power_on_a_shift)
{
	double y[40];
	size_t s, t, decided = 0, sum = 0;

	rng = 3;
	for (s = 0; s < 100; s++) {
		for (t = 0; t < 40; t++)
			y[t] = log(1.3) + noisy();
		for (t = DECIDE_MIN_ROUNDS; t <= 30; t++) {
			struct decide_metric d;

			judge(y, t, DECIDE_MEDIAN_CS, 5, NULL, &d);
			CHECK(d.verdict != DECIDE_IMPROVEMENT && d.verdict != DECIDE_NO_CHANGE);
			if (d.verdict == DECIDE_REGRESSION) {
				decided++;
				sum += t;
				break;
			}
		}
	}
	printf("# median_cs: +30%% at margin 5%%: %zu of 100 regressions within 30 rounds, "
	       "mean %.1f rounds\n", decided, decided ? (double)sum / (double)decided : NAN);
	CHECK(decided >= 95);
}

/* ------------------------------------------------------------ one wild round */

TEST(one_wild_round_counts_once)
{
	double y[20], g[2] = { 3.0, 3.0 };
	struct decide_metric d;
	size_t t;

	/* +50% in 11 rounds, one where @base was held back (-3: 20x) */
	for (t = 0; t < 12; t++)
		y[t] = log(1.5) + (t % 2 ? 0.02 : -0.02);
	y[5] = -3;
	judge(y, 12, DECIDE_MEDIAN_CS, 5, NULL, &d);
	CHECK(d.verdict == DECIDE_REGRESSION);
	judge(y, 12, DECIDE_MEAN_CS, 5, NULL, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED);   /* the mean's sd is the wild round's */
	/* no change in 20 rounds, one where NEW was held back (+3) */
	for (t = 0; t < 20; t++)
		y[t] = t % 2 ? 0.01 : -0.01;
	y[7] = 3;
	judge(y, 20, DECIDE_MEDIAN_CS, 5, g, &d);
	CHECK(d.verdict == DECIDE_NO_CHANGE);
	CHECK(d.guard == 1 && d.guard_worst < 0);
	judge(y, 20, DECIDE_MEAN_CS, 5, g, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED);
}

/* Two judged rates: every rate's pair is its own observation. +50 % at
 * both rates over 10 rounds; in 4 rounds one window at one rate was
 * held back 20x (@base at 200 req/s in 2 rounds: -3; NEW at 400 in 2:
 * +3). As round means (the rule before Dec 4) 4 of 10 rounds sit far
 * off on both sides and 10 rounds of sign counts cannot say where the
 * median is; as 20 pairs, 4 are off and 16 agree: a regression, and
 * no decision before decide_first_round's 5 rounds of 2 pairs. */
TEST(every_rate_pair_counts_once)
{
	static const double rates2[] = { 200, 400 };
	struct decide_rule r = { 0.025, DECIDE_T_STAR, 5, 0, DECIDE_MEDIAN_CS, NULL, NULL,
				 DECIDE_GUARD_MERGED, DECIDE_MARGIN_POINT };
	struct decide_metric d;
	double ymean[10];
	size_t k, j, n = 0;

	for (k = 0; k < 10; k++) {
		double sum = 0;

		for (j = 0; j < 2; j++) {
			double y = log(1.5) + (k % 2 ? 0.02 : -0.02);

			if (j == 0 && (k == 1 || k == 6))
				y = -3;
			if (j == 1 && (k == 3 || k == 8))
				y = 3;
			obs[n].rate = rates2[j];
			obs[n].order = (int64_t)n;
			obs[n].base = 3.0;
			obs[n].new_ = 3.0 * exp(y);
			sum += y;
			n++;
		}
		ymean[k] = sum / 2;
	}
	decide_metric(&r, rates2, 2, obs, n, &d);
	CHECK(d.verdict == DECIDE_REGRESSION);
	CHECK(d.rounds == 10);
	NEAR(d.est, log(1.5), 0.03, "the median pair");
	/* the same pairs as round means, one rate: undecided */
	for (k = 0; k < 10; k++) {
		obs[k].rate = 300;
		obs[k].order = (int64_t)k;
		obs[k].base = 3.0;
		obs[k].new_ = 3.0 * exp(ymean[k]);
	}
	decide_metric(&r, rate, 1, obs, 10, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED);
	/* 4 rounds of 2 clean pairs: 8 pairs, below the 9 the level needs */
	for (n = 0; n < 8; n++) {
		obs[n].rate = rates2[n % 2];
		obs[n].order = (int64_t)n;
		obs[n].base = 3.0;
		obs[n].new_ = 4.5;
	}
	decide_metric(&r, rates2, 2, obs, 8, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED && d.rounds == 4);
	obs[8] = obs[0];
	obs[8].order = 8;
	obs[9] = obs[1];
	obs[9].order = 9;
	decide_metric(&r, rates2, 2, obs, 10, &d);
	CHECK(d.verdict == DECIDE_REGRESSION && d.rounds == 5);
}

/* ------------------------------------------------------------ the guard */

TEST(guard_fails_closed)
{
	double y[20], far[2] = { 3.3, 3.0 }, near_[2] = { 3.1, 3.0 }, bad[2] = { NAN, 3.0 };
	struct decide_metric d;
	size_t t;

	for (t = 0; t < 20; t++)
		y[t] = t % 2 ? 0.01 : -0.01;
	judge(y, 20, DECIDE_MEDIAN_CS, 5, near_, &d);   /* +3.3% pooled: inside 5% */
	CHECK(d.verdict == DECIDE_NO_CHANGE);
	judge(y, 20, DECIDE_MEDIAN_CS, 5, far, &d);     /* +10% pooled: a tail */
	CHECK(d.verdict == DECIDE_UNDECIDED && d.guard == 0);
	NEAR(d.guard_worst, log(1.1) - log(1.05), 1e-12, "pooled log ratio less margin");
	CHECK(d.rounds_needed == DECIDE_NEVER && d.guard_held);
	{
		struct sbuf s = SBUF_INIT;

		decide_note(&d, &s);
		CHECK_STR(s.buf, " [median_cs]; the guard held it: the merged histograms' SLO "
				 "percentile +10.0%, margin +-5.0%");
		sbuf_release(&s);
	}
	judge(y, 20, DECIDE_MEDIAN_CS, 5, NULL, &d);    /* no evidence */
	CHECK(d.verdict == DECIDE_UNDECIDED && d.guard == 0 && isnan(d.guard_worst));
	judge(y, 20, DECIDE_MEDIAN_CS, 5, bad, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED && d.guard == 0);
	/* the guard never holds back a regression */
	for (t = 0; t < 20; t++)
		y[t] = log(1.5);
	judge(y, 20, DECIDE_MEDIAN_CS, 5, NULL, &d);
	CHECK(d.verdict == DECIDE_REGRESSION);
}

/* The guard's evidence (decide_guard.c), the one rule the runner and
 * compare both use: per judged rate, the pairs with both histograms
 * merged side by side (a pair with one side missing adds to neither), the
 * SLO percentile of each; NAN at a rate no pair reached. */
TEST(guard_values_merge_pairs_with_both_sides)   /* the merged rule */
{
	struct hist a, b, c;
	struct decide_guard g;
	double gn[3], gb[3];
	int i;

	hist_init(&a);
	hist_init(&b);
	hist_init(&c);
	for (i = 1; i <= 100; i++) {
		hist_record(&a, (uint64_t)i * 1000000);     /* 1..100 ms */
		hist_record(&b, (uint64_t)i * 2000000);     /* 2..200 ms */
	}
	hist_record(&c, 900000000);                     /* one 900 ms request */
	decide_guard_init(&g, 3, DECIDE_GUARD_MERGED, 99);
	decide_guard_add(&g, 0, &a, 1, &b, 2);
	decide_guard_add(&g, 0, &c, 3, NULL, 4);   /* BASE not accepted: neither side */
	decide_guard_add(&g, 1, &b, 5, &a, 6);
	decide_guard_add(&g, 1, &b, 7, &a, 8);
	decide_guard_add(&g, 1, NULL, 9, &c, 10);  /* NEW without a histogram */
	decide_guard_add(&g, 7, &a, 11, &a, 12);   /* not a judged rate: ignored */
	decide_guard_values(&g, gn, gb);
	/* rate 0: a alone (the 900 ms never merged) against b: 99 vs 198 ms
	 * within the histogram's 1 % */
	NEAR(gn[0], 99, 1, "NEW's p99 at rate 0: a's");
	NEAR(gb[0], 198, 2, "BASE's p99 at rate 0: b's");
	/* rate 1: b twice against a twice: the same percentiles swapped */
	NEAR(gn[1], 198, 2, "NEW's p99 at rate 1");
	NEAR(gb[1], 99, 1, "BASE's p99 at rate 1");
	CHECK(isnan(gn[2]) && isnan(gb[2]));
	decide_guard_release(&g);
	CHECK(g.nrates == 0 && !g.new_ && !g.base);
	hist_release(&a);
	hist_release(&b);
	hist_release(&c);
	/* the stored method: CPU always the mean; a rule stored before
	 * schema 17 (NULL) or with an unknown name too */
	CHECK(decide_method_stored("median_cs", 0) == DECIDE_MEDIAN_CS);
	CHECK(decide_method_stored("median_cs", 1) == DECIDE_MEAN_CS);
	CHECK(decide_method_stored("mean_cs", 0) == DECIDE_MEAN_CS);
	CHECK(decide_method_stored(NULL, 0) == DECIDE_MEAN_CS);
	CHECK(decide_method_stored("trimmed_cs", 0) == DECIDE_MEAN_CS);
}

TEST(names_and_rounds_needed)
{
	enum decide_method m;
	double y[10];
	struct decide_metric d;
	size_t t;

	CHECK_STR(decide_method_name(DECIDE_MEDIAN_CS), "median_cs");
	CHECK_STR(decide_method_name(DECIDE_MEAN_CS), "mean_cs");
	CHECK(decide_method_parse("median_cs", &m) == 0 && m == DECIDE_MEDIAN_CS);
	CHECK(decide_method_parse("mean", &m) == -1);
	/* 5 rounds all +50%: undecided (8 needed), needs 8 */
	for (t = 0; t < 10; t++)
		y[t] = log(1.5) + 0.001 * (double)t;
	judge(y, 5, DECIDE_MEDIAN_CS, 5, NULL, &d);
	CHECK(d.verdict == DECIDE_UNDECIDED && d.rounds_needed == 8);
	judge(y, 8, DECIDE_MEDIAN_CS, 5, NULL, &d);
	CHECK(d.verdict == DECIDE_REGRESSION && d.rounds_needed == 0);
	NEAR(d.est, log(1.5) + 0.0035, 1e-12, "median of 8 rounds");
	CHECK(stat_median_cs_rounds(0.5, 0.05, 1) == 0);
	/* the first round a decision can come (check and rerun --plan
	 * print it): 8 at 0.05 (above), 9 at 0.025, the default two
	 * metrics' share; mean_cs's floor is 3 */
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0.05, 1) == 8);
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0.025, 1) == 9);
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0.025, 2) == 5);   /* 9 pairs over 2 rates */
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0.025, 4) == 3);   /* 3 rounds at the least */
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0.1, 1) == 7);
	CHECK(decide_first_round(DECIDE_MEAN_CS, 0.025, 1) == DECIDE_MIN_ROUNDS);
	CHECK(decide_first_round(DECIDE_MEDIAN_CS, 0, 1) == DECIDE_NEVER);
}

int main(void)
{
	RUN(counts_by_hand);
	RUN(bounds_are_order_statistics);
	RUN(coverage_under_a_heavy_tailed_null);
	RUN(false_decisions_under_a_heavy_tailed_null);
	RUN(power_on_a_shift);
	RUN(one_wild_round_counts_once);
	RUN(every_rate_pair_counts_once);
	RUN(guard_fails_closed);
	RUN(guard_values_merge_pairs_with_both_sides);
	RUN(names_and_rounds_needed);
	return t_done();
}
