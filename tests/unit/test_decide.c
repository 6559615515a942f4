/* test_decide: the sequential rerun's rounds, margin and verdicts
 * (harness/stat/decide.h) on fixtures whose answers are worked out by hand. */
#include "stat/decide.h"
#include "stat/stat.h"
#include "t.h"
#include "t_rng.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static struct decide_obs obs[256];
static size_t nobs;

static void add(double rate, int64_t order, double new_, double base)
{
	obs[nobs].rate = rate;
	obs[nobs].order = order;
	obs[nobs].new_ = new_;
	obs[nobs].base = base;
	nobs++;
}

static const struct decide_rule rule = { 0.025, DECIDE_T_STAR, 5, 0, DECIDE_MEAN_CS, NULL, NULL,
					 DECIDE_GUARD_MERGED, DECIDE_MARGIN_POINT };

/* n rounds at two rates: base 10 and 20, new = base x f x (1 +- jitter) */
static void fixture(size_t n, double f, double jitter)
{
	size_t k;

	nobs = 0;
	for (k = 0; k < n; k++) {
		double s = k % 2 ? 1 + jitter : 1 - jitter;
		add(200, (int64_t)(2 * k), 10 * f * s, 10);
		add(400, (int64_t)(2 * k + 1), 20 * f * s, 20);
	}
}

static const double rates[] = { 200, 400 };

TEST(rounds_are_the_pairs_every_rate_has)
{
	struct decide_metric m;

	fixture(6, 1.0, 0.01);
	add(200, 100, 10, 10);   /* a seventh pair at one rate only: not a round */
	add(300, 101, 99, 1);    /* another rate: ignored */
	add(400, 102, NAN, 20);  /* a void value: skipped */
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.rounds == 6);
	NEAR(m.est, log(0.99 * 1.01) / 2, 1e-12, "3 rounds at x0.99 and 3 at x1.01");
}

TEST(estimate_is_the_mean_log_ratio)
{
	struct decide_metric m;

	fixture(8, 1.2, 0.0);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	NEAR(m.est, log(1.2), 1e-12, "every pair is new = 1.2 base");
	NEAR(decide_pct(m.est), 20, 1e-9, "exp(log 1.2) - 1");
	NEAR(m.margin, log(1.05), 1e-12, "5% of base at both rates");
	NEAR(m.sd, 0, 1e-12, "no spread (rounding only)");
	CHECK(m.verdict == DECIDE_REGRESSION);
	CHECK(m.rounds_needed == 0);
}

TEST(margin_floor_wins_when_larger)
{
	struct decide_rule r = rule;
	struct decide_metric m;

	r.floor = 2;   /* 2 units: 20% of 10 and 10% of 20 */
	fixture(8, 1.12, 0.0);
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == 0);
	NEAR(m.margin, (log(1.2) + log(1.1)) / 2, 1e-12, "mean over rates of log(1 + M/b)");
	NEAR(m.base, 15, 1e-12, "mean of the rates' base medians");
	/* +12% is inside a ~15% margin: no change, not a regression */
	CHECK(m.verdict == DECIDE_NO_CHANGE);
}

TEST(noise_decides_only_with_enough_rounds)
{
	struct decide_metric m;
	size_t need;

	/* x0.9 and x1.1 alternating: no change on average, the round
	 * statistic's sd ~0.1; with 4 rounds the sequence is far wider than
	 * the 5% margin */
	fixture(4, 1.0, 0.10);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.verdict == DECIDE_UNDECIDED);
	need = m.rounds_needed;
	CHECK(need > 4 && need <= 120);
	/* as many rounds as it said, with the same estimate and spread
	 * (an even count keeps the estimate): decided */
	fixture(need + need % 2, 1.0, 0.10);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.verdict == DECIDE_NO_CHANGE);
	CHECK(m.lo > -m.margin && m.hi < m.margin);
	CHECK(m.rounds_needed == 0);
	/* half as many: not yet (the sd from 4 rounds is a little larger
	 * than from many, so the forecast is a little pessimistic) */
	fixture(need / 4 * 2, 1.0, 0.10);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.verdict == DECIDE_UNDECIDED);
}

TEST(two_rounds_never_decide)
{
	struct decide_metric m;

	fixture(2, 2.0, 0.0);   /* +100%, no spread at all */
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.rounds == 2);
	CHECK(m.verdict == DECIDE_UNDECIDED);
}

TEST(improvement_and_the_interval_matches_stat)
{
	struct decide_metric m;
	double y[6], half, mean, var;
	size_t k;

	fixture(6, 0.5, 0.05);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	for (k = 0; k < 6; k++)
		y[k] = log(0.5 * (k % 2 ? 1.05 : 0.95));
	stat_mean_var(y, 6, &mean, &var);
	half = stat_cs_half_width(sqrt(var), 6, rule.alpha, rule.t_star);
	NEAR(m.est, mean, 1e-12, "mean of the round statistics");
	NEAR(m.half, half, 1e-12, "the confidence sequence of stat.h");
	CHECK(m.verdict == DECIDE_IMPROVEMENT);
}

TEST(straddling_the_margin_is_undecided)
{
	struct decide_metric m;

	fixture(40, 1.05, 0.2);   /* the estimate sits on the margin */
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.verdict == DECIDE_UNDECIDED);
	CHECK(m.lo < m.margin && m.hi > m.margin);
	CHECK(m.mde > fmax(m.margin, m.half));
}

/* A shift is called when its direction is known and its estimate is
 * beyond the margin, as a fixed-n cell is (adjusted p <= alpha and the
 * estimate beyond m): the sequence need not clear the margin itself. */
TEST(direction_known_and_estimate_beyond_margin_is_called)
{
	struct decide_metric m;

	fixture(12, 1.10, 0.06);   /* +10% against a 5% margin */
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.lo > 0 && m.lo < m.margin);   /* the case: 0 < lo < m < est */
	CHECK(m.est > m.margin);
	CHECK(m.verdict == DECIDE_REGRESSION);
	CHECK(m.rounds_needed == 0);
	fixture(12, 1 / 1.10, 0.06);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.hi < 0 && m.hi > -m.margin);
	CHECK(m.verdict == DECIDE_IMPROVEMENT);
	/* the estimate beyond the margin but the sequence holding 0: not yet */
	fixture(4, 1.10, 0.06);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.est > m.margin && m.lo < 0);
	CHECK(m.verdict == DECIDE_UNDECIDED);
	CHECK(m.rounds_needed > 4 && m.rounds_needed <= 12);
	/* direction known, the estimate inside the margin: no shift called */
	fixture(120, 1.03, 0.03);
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.lo > 0 && m.est < m.margin);
	CHECK(m.verdict != DECIDE_REGRESSION);
}

TEST(order_not_input_position_forms_rounds)
{
	struct decide_metric a, b;
	size_t i;

	fixture(5, 1.3, 0.1);
	add(200, 1000, 100, 10);   /* a sixth 200 pair, measured last */
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &a) == 0);
	for (i = 0; i < nobs / 2; i++) {   /* reverse the input */
		struct decide_obs t = obs[i];
		obs[i] = obs[nobs - 1 - i];
		obs[nobs - 1 - i] = t;
	}
	CHECK(decide_metric(&rule, rates, 2, obs, nobs, &b) == 0);
	CHECK(a.rounds == 5 && b.rounds == 5);
	NEAR(a.est, b.est, 1e-12, "same rounds whatever the input order");
	NEAR(a.est, log(1.3) + (3 * log(0.9) + 2 * log(1.1)) / 5, 1e-12,
	     "the sixth 200 pair (x10) is not in any round");
}

TEST(overall)
{
	enum decide_verdict v[2];

	v[0] = DECIDE_REGRESSION;
	v[1] = DECIDE_UNDECIDED;
	CHECK(decide_overall(v, 2) == DECIDE_REGRESSION);
	v[0] = DECIDE_IMPROVEMENT;
	CHECK(decide_overall(v, 2) == DECIDE_UNDECIDED);
	v[1] = DECIDE_NO_CHANGE;
	CHECK(decide_overall(v, 2) == DECIDE_IMPROVEMENT);
	v[0] = DECIDE_NO_CHANGE;
	CHECK(decide_overall(v, 2) == DECIDE_NO_CHANGE);
	CHECK(decide_overall(v, 0) == DECIDE_UNDECIDED);
	CHECK_STR(decide_verdict_name(DECIDE_NO_CHANGE), "no change");
}

TEST(bad_rule)
{
	struct decide_rule r = rule;
	struct decide_metric m;

	r.alpha = 0;
	fixture(5, 1, 0);
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == -1);
	CHECK(m.verdict == DECIDE_UNDECIDED);
}


/* ------------------------------------------------ no change: base_bound */

TEST(median_upper_bound_counts)
{
	double x[12];
	size_t k, kmin;

	/* one-sided mixture (stat.h stat_median_ub): its first finite
	 * bound, 2^(t+1) / (t + 1) (1 - 2^-(t+1)) >= 1/alpha, at t = 10
	 * for alpha 0.00625 (186 >= 160; t = 9: 102) and t = 9 for 0.0125 */
	CHECK(!stat_median_ub_count(9, 0.00625, &kmin) && kmin == 0);
	CHECK(!stat_median_ub_count(10, 0.00625, &kmin) && kmin == 1);
	CHECK(!stat_median_ub_count(9, 0.0125, &kmin) && kmin == 1);
	CHECK(!stat_median_ub_count(8, 0.0125, &kmin) && kmin == 0);
	/* larger t: kmin rises (s36 kit kmin_onesided: 3 at 20, 6 at 30) */
	CHECK(!stat_median_ub_count(20, 0.00625, &kmin) && kmin == 3);
	CHECK(!stat_median_ub_count(30, 0.00625, &kmin) && kmin == 6);
	CHECK(stat_median_ub_count(0, 0.00625, &kmin) == -1);
	for (k = 0; k < 12; k++)
		x[k] = (double)(k + 1);
	CHECK(isinf(stat_median_ub(x, 9, 0.00625)));
	NEAR(stat_median_ub(x, 10, 0.00625), 10, 0, "the largest of the first 10");
	/* the 11th and 12th are larger: the bound is the least over the
	 * prefixes, so it stays at 10 */
	NEAR(stat_median_ub(x, 12, 0.00625), 10, 0, "least over the prefixes");
	CHECK(isnan(stat_median_ub(x, 12, 0)));
}


TEST(median_upper_bound_covers)
{
	size_t s, t, miss = 0;
	double x[100];

	/* lognormal values, median 3: the bound below the median at some
	 * t of 100 in at most alpha of the sequences (Ville); 400 of them
	 * at alpha 0.1: 8 (2 %), 0 at alpha 0.001 */
	for (s = 0; s < 400; s++) {
		for (t = 0; t < 100; t++)
			x[t] = 3 * exp(0.5 * normal());
		miss += stat_median_ub(x, 100, 0.1) < 3;
	}
	CHECK(miss <= 40);
	CHECK(miss > 0);   /* the bound is not vacuous */
}

/* n rounds at two rates: base 3 x e^(sd z) (ms, the floor binding),
 * new = base x f exactly */
static void fixture_spread(size_t n, double f, double sd)
{
	size_t k;

	nobs = 0;
	for (k = 0; k < n; k++) {
		double b1 = 3 * exp(sd * normal()), b2 = 3 * exp(sd * normal());

		add(200, (int64_t)(2 * k), b1 * f, b1);
		add(400, (int64_t)(2 * k + 1), b2 * f, b2);
	}
}

TEST(no_change_margin_from_the_bound)
{
	struct decide_rule r = rule;
	struct decide_metric m;
	size_t k;

	r.floor = 1;   /* 1 unit against base 10 and 20: 10% and 5% */
	r.margin_rule = DECIDE_MARGIN_BASE_BOUND;
	nobs = 0;
	for (k = 0; k < 12; k++) {
		/* base 10 or 12 at 200 req/s, 20 or 24 at 400; new = base */
		double b = k % 2 ? 1.2 : 1;

		add(200, (int64_t)(2 * k), 10 * b, 10 * b);
		add(400, (int64_t)(2 * k + 1), 20 * b, 20 * b);
	}
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == 0);
	/* the point margin from the medians (11, 22); the no-change margin
	 * from each rate's bound at 0.025 x 0.5 / 2 = 0.00625: the largest
	 * of the first 10 (12 and 24): M = max(5%, 1) */
	NEAR(m.margin, (log1p(1 / 11.0) + log1p(0.05)) / 2, 1e-12, "point: the medians");
	NEAR(m.nc_margin, (log1p(1 / 12.0) + log1p(0.05)) / 2, 1e-12, "the bounds' margin");
	CHECK(m.verdict == DECIDE_NO_CHANGE);   /* no spread: the sequence is 0 */
	/* 9 rounds: no bound yet, the relative margin alone */
	fixture(9, 1.0, 0.0);
	r.floor = 2;
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == 0);
	NEAR(m.nc_margin, log1p(0.05), 1e-12, "no bound: margin_pct alone");
	NEAR(m.margin, (log(1.2) + log(1.1)) / 2, 1e-12, "the point margin unchanged");
}

TEST(shift_inside_point_margin_but_beyond_the_bound_is_not_no_change)
{
	struct decide_rule r = rule;
	struct decide_metric m;

	/* base spreads 10 % at each rate around 3 (floor 0.75: the point
	 * margin ~25 %), new = base x 1.22: beyond what the bound's margin
	 * allows (the bound is near the largest base, ~3.6: ~21 %) */
	rng = 0x9e3779b97f4a7c15ull;
	fixture_spread(12, 1.22, 0.1);
	r.floor = 0.75;
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.verdict == DECIDE_NO_CHANGE);   /* the old rule: +22 % inside ~25 % */
	CHECK(log(1.22) < m.margin);
	r.margin_rule = DECIDE_MARGIN_BASE_BOUND;
	CHECK(decide_metric(&r, rates, 2, obs, nobs, &m) == 0);
	CHECK(m.nc_margin < log(1.22));
	CHECK(m.verdict == DECIDE_UNDECIDED);   /* and never a call: est < m */
	/* a stored rule without a margin rule is judged as it was */
	CHECK(decide_margin_rule_stored(NULL) == DECIDE_MARGIN_POINT);
	CHECK(decide_margin_rule_stored("point") == DECIDE_MARGIN_POINT);
	CHECK(decide_margin_rule_stored("new_rule") == DECIDE_MARGIN_POINT);
	CHECK(decide_margin_rule_stored("base_bound") == DECIDE_MARGIN_BASE_BOUND);
	CHECK_STR(decide_margin_rule_name(DECIDE_MARGIN_BASE_BOUND), "base_bound");
}

/* "No change" said at some look of 60 rounds when the true shift is
 * exactly -m (m from base's true median 3: floor 0.75, 25 %), base
 * widely spread (lognormal sd 0.3), the pairs' log ratios N(-m, 0.02^2):
 * the sequence is tight, so the error is the margin's. share: of n. */
static size_t no_change_at_the_edge(enum decide_method meth, enum decide_margin_rule mr, size_t n)
{
	struct decide_rule r = rule;
	struct decide_metric m;
	double edge = log1p(0.75 / 3);
	size_t s, k, said = 0;

	static const double ones[] = { 1, 1 };

	r.floor = 0.75;
	r.method = meth;
	r.margin_rule = mr;
	r.guard_new = r.guard_base = ones;   /* median_cs: a guard that passes */
	rng = 0x2545f4914f6cdd1dull;
	for (s = 0; s < n; s++) {
		nobs = 0;
		for (k = 0; k < 40; k++) {
			double b1 = 3 * exp(0.3 * normal()), b2 = 3 * exp(0.3 * normal());

			add(200, (int64_t)(2 * k), b1 * exp(-edge + 0.02 * normal()), b1);
			add(400, (int64_t)(2 * k + 1), b2 * exp(-edge + 0.02 * normal()), b2);
			if (k + 1 < DECIDE_MIN_ROUNDS)
				continue;
			decide_metric(&r, rates, 2, obs, nobs, &m);
			if (m.verdict == DECIDE_NO_CHANGE) {
				said++;
				break;
			}
			if (m.verdict != DECIDE_UNDECIDED)
				break;
		}
	}
	return said;
}

TEST(no_change_at_the_margin_keeps_alpha)
{
	size_t point = no_change_at_the_edge(DECIDE_MEAN_CS, DECIDE_MARGIN_POINT, 120);
	size_t bound = no_change_at_the_edge(DECIDE_MEAN_CS, DECIDE_MARGIN_BASE_BOUND, 120);
	size_t mpoint = no_change_at_the_edge(DECIDE_MEDIAN_CS, DECIDE_MARGIN_POINT, 120);
	size_t mbound = no_change_at_the_edge(DECIDE_MEDIAN_CS, DECIDE_MARGIN_BASE_BOUND, 120);

	fprintf(stderr, "# no change at -m, 120 sequences of 40 rounds: point %zu (median_cs %zu), "
		"base_bound %zu (%zu)\n", point, mpoint, bound, mbound);
	/* the point margin overshoots the true one about half the time:
	 * "no change" at a shift of exactly the margin, far above alpha */
	CHECK(point > 12);
	CHECK(mpoint > 12);
	/* the bound's: at most alpha (0.025 of 120 = 3) */
	CHECK(bound <= 3);
	CHECK(mbound <= 3);
}

int main(void)
{
	RUN(rounds_are_the_pairs_every_rate_has);
	RUN(estimate_is_the_mean_log_ratio);
	RUN(margin_floor_wins_when_larger);
	RUN(noise_decides_only_with_enough_rounds);
	RUN(two_rounds_never_decide);
	RUN(improvement_and_the_interval_matches_stat);
	RUN(straddling_the_margin_is_undecided);
	RUN(direction_known_and_estimate_beyond_margin_is_called);
	RUN(order_not_input_position_forms_rounds);
	RUN(overall);
	RUN(bad_rule);
	RUN(median_upper_bound_counts);
	RUN(median_upper_bound_covers);
	RUN(no_change_margin_from_the_bound);
	RUN(shift_inside_point_margin_but_beyond_the_bound_is_not_no_change);
	RUN(no_change_at_the_margin_keeps_alpha);
	return t_done();
}
