/*
 * stat: the statistics behind gates, knees and verdicts (docs/DESIGN.md,
 * "Definitions that must be exact").
 *
 *   Mann-Kendall trend test and Theil-Sen slope (flatness and stationarity
 *   gates), PAVA weighted isotonic regression and the knee (per
 *   implementation), a seeded bootstrap of the knee over accepted windows,
 *   order-statistic confidence intervals for a percentile from histogram
 *   counts, paired (over blocks) and unpaired (Welch) difference intervals
 *   with an equivalence margin.
 *
 * Every function is pure (no globals, no I/O) and deterministic given its
 * inputs (the bootstrap takes its seed explicitly). Arrays are owned by the
 * caller; nothing here keeps a pointer after returning.
 */
#ifndef HARNESS_STAT_H
#define HARNESS_STAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- distributions ---- */

/* Standard normal CDF, via erfc (accurate in both tails). */
double stat_norm_cdf(double z);
/* Standard normal quantile (Acklam's rational approximation refined by one
 * Halley step; |error| < 1e-12 over (0,1)). NAN outside (0,1). */
double stat_norm_quantile(double p);
/* Student t quantile for df > 0 (non-integer df, for Welch, accepted):
 * bisection on the exact CDF through the regularized incomplete beta;
 * |error| < 1e-9. NAN outside (0,1). */
double stat_t_quantile(double p, double df);
/* Student t CDF P(T <= t), df > 0 (exact, incomplete beta). */
double stat_t_cdf(double t, double df);

/* ---- Mann-Kendall and Theil-Sen ---- */

struct mk_result {
	size_t n;       /* finite values used */
	double s;       /* S = sum_{i<j} sgn(x_j - x_i) */
	double var_s;   /* tie-corrected variance of S */
	double z;       /* continuity-corrected: (S-1)/sd, 0, (S+1)/sd */
	double p;       /* one-sided p for an upward trend: 1 - Phi(z) */
};

/* Mann-Kendall on x[0..n); NaN entries are skipped; O(n log n). Returns
 * -1 (and out->p = NAN) when fewer than 3 finite values remain. */
int stat_mann_kendall(const double *x, size_t n, struct mk_result *out);

/* Theil-Sen slope: the median of (y_j - y_i) / (t_j - t_i) over i < j with
 * t_j != t_i; points with a NaN are skipped. NAN when no pair. O(n log n)
 * memory and time per bisection step above 2048 points (see stat.c). */
double stat_theil_sen(const double *t, const double *y, size_t n);

/* For tests: Theil-Sen on finite, strictly increasing t by one method
 * (0: enumerate the pairs, 1: bisection with merge-sort pair counts,
 * which stat_theil_sen uses above 2048 points). */
double stat_theil_sen_method(const double *t, const double *y, size_t n, int method);

/* qsort comparator for doubles (ascending). */
int stat_cmp_double(const void *a, const void *b);

/* Median of x[0..n) (copies; NaN skipped). NAN when empty. */
double stat_median(const double *x, size_t n);

/* ---- isotonic regression ---- */

/* Weighted PAVA, non-decreasing: fit[i] minimises sum w_i (y_i - fit_i)^2
 * subject to fit non-decreasing in i. Entries with w <= 0 or a NaN y get
 * the fit of the entry before them but do not influence it (leading ones
 * take the first fitted value). fit may alias y. */
void stat_pava(const double *y, const double *w, size_t n, double *fit);

/* ---- percentiles from histogram counts ---- */

struct pct_ci {
	double value_ns;     /* the point estimate (hist_percentile's rule) */
	double lo_ns, hi_ns; /* distribution-free interval for the quantile */
	uint64_t rank_lo, rank_hi; /* 1-based order statistics used */
	int exact;           /* exact binomial ranks (small n) */
	double coverage;     /* P(X_(lo) <= q <= X_(hi)); below level when the
				sample is too small (ranks clamped to 1..n) */
};

/* Confidence interval (coverage >= level) for the p-th percentile of the
 * distribution a struct hist sampled, from its order statistics: ranks
 * from Binomial(n, p/100), exact below n = 1000, normal approximation
 * otherwise; read back through hist_bucket_value. -1 when empty. */
struct hist;
int stat_hist_pct_ci(const struct hist *h, double p, double level, struct pct_ci *out);
/* The same from raw counts per bucket (counts[nb], values via
 * hist_bucket_value). */
int stat_counts_pct_ci(const uint64_t *counts, size_t nb, double p, double level,
		       struct pct_ci *out);

/* ---- differences between two arms ---- */

enum verdict { VERDICT_TIE, VERDICT_A_LOWER, VERDICT_B_LOWER, VERDICT_INCONCLUSIVE };
const char *stat_verdict_name(enum verdict v); /* "tie" "A lower" "B lower" "inconclusive" */

struct diff_ci {
	size_t n;            /* pairs (paired) or n_a + n_b (Welch) */
	double mean;         /* mean of a - b */
	double lo, hi;       /* t interval at `level` */
	double df;
	enum verdict verdict;
};

/* Paired difference a[i] - b[i] (pairs with a NaN are skipped: a block
 * pairs only when both arms' windows were accepted), t interval at level.
 * Verdict with margin m (absolute, same unit as a and b): [lo,hi] inside
 * (-m, m) -> tie; else hi < 0 -> A lower; else lo > 0 -> B lower; else
 * inconclusive. Fewer than 2 pairs -> inconclusive, interval NAN, -1. */
int stat_paired_diff(const double *a, const double *b, size_t n, double level,
		     double margin, struct diff_ci *out);
/* Mean and sample variance (n - 1) of x[0..n); NaN where undefined. */
void stat_mean_var(const double *x, size_t n, double *mean, double *var);

/* Welch's unpaired interval for mean(a) - mean(b) (Welch-Satterthwaite
 * df), same verdict rule; -1 when either side has fewer than 2. */
int stat_welch_diff(const double *a, size_t na, const double *b, size_t nb,
		    double level, double margin, struct diff_ci *out);

/*
 * Rank-based shifts (stat_rank.c), what harness compare judges by. out->mean
 * is the Hodges-Lehmann estimate, not a mean; lo/hi its distribution-free
 * interval; df and verdict unused (NAN, inconclusive).
 *
 * Paired: a[i] - b[i] over the pairs where both are finite; estimate = the
 * median of the Walsh averages (d_i + d_j)/2, i <= j; interval = the k-th
 * smallest and k-th largest of them, k from the exact Wilcoxon signed-rank
 * distribution (normal approximation above 200 pairs), coverage >= level.
 * Unpaired: estimate = the median of every a_i - b_j; interval from the
 * Mann-Whitney distribution (exact up to na*nb = 10000). Ties are taken as
 * they come (the intervals are then approximate).
 * -1 (interval NAN, estimate set when any pair) when too few observations
 * reach the level: at 95 %, 6 pairs, or 4 against 4.
 */
int stat_hl_paired(const double *a, const double *b, size_t n, double level,
		   struct diff_ci *out);
int stat_hl_unpaired(const double *a, size_t na, const double *b, size_t nb, double level,
		     struct diff_ci *out);

/*
 * ---- methods, one-sided p-values, multiplicity, detectable effects ----
 * (stat_rank.c for the rank tests, stat_seq.c for the rest; the methods
 * and their references are in docs/STATISTICS.md)
 */

/* How a shift between two arms is estimated and bounded. */
enum stat_method {
	STAT_HL,   /* Hodges-Lehmann, Wilcoxon signed-rank / Mann-Whitney */
	STAT_T,    /* mean, paired t / Welch t interval */
	STAT_CS,   /* mean, Robbins' normal-mixture confidence sequence
		      (paired only; valid under optional stopping) */
};
/* "hodges_lehmann", "t", "confidence_sequence" */
const char *stat_method_name(enum stat_method m);
/* One line for humans, with the reference, e.g. "Hodges-Lehmann shift,
 * Wilcoxon signed-rank interval". */
const char *stat_method_text(enum stat_method m, int paired);

/*
 * One-sided p-values for H1: a is above b (a shift a - b > 0); swap the
 * arguments for the other direction. Pairs (or values) with a NaN are
 * skipped. NAN when too few observations (paired: 1; unpaired: one side
 * empty; t: fewer than 2 per side).
 *
 * Rank tests: the statistic is the count of positive Walsh averages
 * (signed-rank; equal to T+) or of positive a_i - b_j (Mann-Whitney U),
 * a zero counting one half, rounded down (conservative with ties); its
 * exact null distribution up to 200 pairs / 10000 cells, normal above.
 * So p <= alpha exactly when stat_hl_* at level 1 - 2 alpha has lo > 0.
 */
double stat_signed_rank_p(const double *a, const double *b, size_t n);
double stat_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
double stat_t_paired_p(const double *a, const double *b, size_t n);
double stat_welch_p(const double *a, size_t na, const double *b, size_t nb);
/* The smallest one-sided p-value the exact rank test can give with n pairs
 * (2^-n) or na, nb values (1 / C(na + nb, na)). */
double stat_signed_rank_min_p(size_t n);
double stat_mann_whitney_min_p(size_t na, size_t nb);

/*
 * Holm's step-down adjustment (Holm 1979): with the m finite p-values
 * sorted p_(1) <= ... <= p_(m), adj_(i) = max over j <= i of
 * min(1, (m - j + 1) p_(j)). Rejecting adj <= alpha controls the
 * family-wise error rate at alpha under any dependence. NaN entries are
 * not tested (adj NaN) and not counted. adj may alias p. Returns m.
 */
size_t stat_holm(const double *p, size_t n, double *adj);

/*
 * Minimum detectable effect: the smallest true shift a one-sided test at
 * level `alpha` (give the Holm family's first step, alpha / m) detects
 * with probability `power` given this sample:
 *   t       (t_{1-alpha} + t_{power}) x SE, SE = s / sqrt(n) (paired) or
 *           Welch's, df n - 1 or Welch's;
 *   HL      the same with s = 1.4826 x MAD (robust to a stalled window)
 *           and n scaled by the Wilcoxon test's efficiency 3 / pi; +inf
 *           when the exact test cannot reach alpha at this n;
 *   CS      the confidence sequence's half-width at alpha plus
 *           z_{power} x s / sqrt(n).
 * Paired: b may be NULL for differences already in a. Unpaired CS is not
 * defined (NAN). NAN when fewer than 2 observations per side.
 */
#define STAT_MDE_POWER 0.8   /* the power every reported MDE is for */
double stat_mde(enum stat_method m, int paired, const double *a, size_t na,
		const double *b, size_t nb, double alpha, double power, double cs_t_star);

/*
 * Robbins' normal-mixture confidence sequence for a mean, with the
 * empirical standard deviation s (Robbins 1970; in the form of
 * Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central
 * limit theory and asymptotic confidence sequences", Ann. Statist. 2024,
 * eq. for the asymptotic CS):
 *   mean_t +- s_t x sqrt( 2 (t rho^2 + 1) / (t^2 rho^2) x
 *                        log( sqrt(t rho^2 + 1) / alpha ) ),
 *   rho^2 = (-2 log alpha + log(-2 log alpha + 1)) / t_star,
 * which covers the mean at every t at once with probability >= 1 - alpha
 * (asymptotically), so it may be looked at after every block and stopped
 * when narrow. t_star is the n the width is tuned for. The width is
 * multiplied by t_{1-alpha/2, t-1} / z_{1-alpha/2} (-> 1 as t grows, so
 * the asymptotics are unchanged): with 3 to 10 pairs s_t itself is
 * uncertain, and without it identical servers were called different in
 * 5 of 40 short runs (tests/slow/sequential.sh, docs/STATISTICS.md).
 */
double stat_cs_half_width(double sd, size_t n, double alpha, double t_star);
/* Paired: d = a - b over the finite pairs; out->mean the mean, lo/hi the
 * sequence at n, df NAN. -1 with fewer than 2 pairs (interval NAN). */
int stat_cs_paired(const double *a, const double *b, size_t n, double alpha,
		   double t_star, struct diff_ci *out);
/* The anytime-valid p-value of the same sequence (rho from alpha and
 * t_star, fixed before the data) at n, H0 mean 0, two-sided (so valid for
 * either one-sided direction): the smallest level whose sequence excludes
 * 0 (without the small-sample factor it is min(1, sqrt(n rho^2 + 1) x
 * exp(-rho^2 S^2 / (2 s^2 (n rho^2 + 1)))), S = sum of the d). For a above
 * b only: 1 when mean(a - b) <= 0. p <= alpha exactly when the sequence's
 * lo > 0. */
double stat_cs_p(const double *a, const double *b, size_t n, double alpha, double t_star);

/*
 * A confidence sequence for the median of x[0..n) (stat_quant.c, after
 * Howard and Ramdas, Bernoulli 2022): with the beta-binomial mixture of
 * parameter STAT_MEDIAN_CS_A, the median is in [lo, hi] at every n at
 * once with probability >= 1 - alpha (Ville's inequality; exact, no
 * variance, no normal approximation; continuous laws, else the bounds of
 * a jittered copy). lo = -inf or hi = +inf while too few values (the first
 * finite pair at 8 values for alpha 0.05, 9 for 0.025). med the sample
 * median. Non-finite values are skipped. -1 (all NAN) with no values or
 * alpha not in (0, 1).
 */
#define STAT_MEDIAN_CS_A 1.0   /* Beta(1, 1): the uniform mixture */
int stat_median_cs(const double *x, size_t n, double alpha, double *med, double *lo, double *hi);
/* The counts k of values <= q that the sequence keeps at t:
 * [kmin, kmax] = [kmin, t - kmin]. -1 when t is 0 or alpha unusable. */
int stat_median_cs_counts(size_t t, double alpha, size_t *kmin, size_t *kmax);
/* The first t >= from at which a fraction q < 1/2 of t falls under the
 * sequence's kmin (a threshold with q of the values beyond it is then
 * outside): how many values a decision needs at that rate; 0 when none
 * within 10^6 (q >= 1/2). */
size_t stat_median_cs_rounds(double q, double alpha, size_t from);

/*
 * A one-sided time-uniform upper bound on the median of the law of x,
 * x[0..n) in the order observed (stat_quant.c): the median is below the
 * returned value at every n at once with probability >= 1 - alpha. The
 * count of values >= q, at the median q a Binomial(t, >= 1/2) at every
 * t, is tested by the mixture over p = P(x >= q) uniform on (0, 1/2) of
 * the likelihood ratios against 1/2,
 *     M_t(k) = 2^(t+1) B(k + 1, t - k + 1) P(Bin(t + 1, 1/2) >= k + 1),
 * a nonnegative supermartingale of mean <= 1 under the median (Ville's
 * inequality; exact at every t, ties and discrete laws included). At t
 * values the bound is x_(t - kmin + 1), kmin the fewest counts above it
 * M_t keeps (stat_median_ub_count); the value returned is the least of
 * those bounds over the prefixes t = 1..n (the inequality holds for all
 * of them at once). INFINITY while no prefix bounds it (the first finite
 * bound at 9 values for alpha 0.0125, 10 for 0.00625); NAN with alpha
 * not in (0, 1). Non-finite values are skipped.
 */
double stat_median_ub(const double *x, size_t n, double alpha);
/* The least count k of t values >= the bound that M_t keeps (0: none
 * bounds it). -1 when t is 0 or alpha unusable. */
int stat_median_ub_count(size_t t, double alpha, size_t *kmin);

/* The signed-rank statistic's null distribution: P(T+ = t) for n pairs,
 * t = 0..n(n+1)/2 (stat_rank.c; the caller frees). */
double *stat_signed_rank_pmf(size_t n);

/*
 * ---- pooled evidence: a stratified signed-rank test ----
 * (stat_strat.c; docs/STATISTICS.md, "Pooled evidence")
 *
 * Paired differences d[i] (compare gives log ratios NEW / BASE) in strata
 * (compare's: the rates) stratum[i] in 0..nstrata-1. Van Elteren's
 * weighting (van Elteren 1960) of the strata's Wilcoxon signed-rank
 * statistics: T+ = sum_r T+_r / (n_r + 1), T+_r the count of positive
 * Walsh averages (d_i + d_j) / 2, i <= j, of stratum r (a zero counting
 * one half). Its null distribution (each pair's sign equally likely, the
 * strata independent) is the convolution of the strata's exact signed-rank
 * distributions when that has at most STAT_STRAT_EXACT_MAX points, else
 * STAT_STRAT_DRAWS random sign patterns drawn from seed (rng stream
 * "vanE"), p = (1 + #{T* >= T}) / (draws + 1).
 *
 * The common shift delta: est is the weighted median of every stratum's
 * Walsh averages (each weighing 1 / (n_r + 1): the Hodges-Lehmann
 * estimate of this test), [lo, hi] the test inverted at alpha per side
 * (coverage >= 1 - 2 alpha; ties make it approximate), so p_up <= alpha
 * exactly when lo > 0. One window the host stalled moves them by one
 * rank, not by its size. -1 (lo, hi NAN; est and p set when any pair)
 * when the test cannot reach alpha, or no finite pair.
 */
#define STAT_STRAT_EXACT_MAX (1u << 20)
#define STAT_STRAT_DRAWS 19999
struct stat_strat {
	size_t n, nstrata;  /* finite pairs; strata with one or more */
	int exact;          /* null distribution exact; else Monte Carlo */
	double est, lo, hi; /* the shift and its interval */
	double p_up, p_down;  /* one-sided: d above 0, below */
};
int stat_strat_signed_rank(const double *d, const size_t *stratum, size_t n, size_t nstrata,
			   double alpha, uint64_t seed, struct stat_strat *out);
/* The smallest p the test gives with n pairs (2^-n, the all-positive
 * pattern being the only maximum; 1 / (draws + 1) where it draws, taken
 * beyond 20 pairs), and the fewest pairs whose smallest p is <= level
 * (0: none can). */
double stat_strat_min_p(size_t n);
size_t stat_strat_floor(double level);
/* Its minimum detectable shift (normal theory, as stat_mde's HL): sd
 * (robust: 1.4826 x MAD) of a pair's difference within a stratum, n
 * pairs at the Wilcoxon test's efficiency 3 / pi: (z_{1-level} +
 * z_power) x sd / sqrt(n x 3 / pi); +inf when stat_strat_min_p(n) >
 * level; NAN when sd is not finite or n is 0. */
double stat_strat_mde(double sd, size_t n, double level, double power);

/*
 * Holm's weighted step-down procedure (Holm 1979, section 4): hypotheses
 * with weights w_i > 0; with the finite p ordered by p_i / w_i, adj_(i) =
 * max over j <= i of min(1, p_(j) x W_j / w_(j)), W_j the weight of those
 * not yet rejected before step j. Rejecting adj <= alpha controls the
 * family-wise error rate at alpha under any dependence; with equal weights
 * it is stat_holm. NaN p (or w <= 0): not tested, adj NaN, weight not
 * counted. adj may alias p. Returns the hypotheses tested.
 */
size_t stat_holm_weighted(const double *p, const double *w, size_t n, double *adj);

#endif
