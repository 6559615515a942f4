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

/* ---- isotonic regression and the knee ---- */

/* Weighted PAVA, non-decreasing: fit[i] minimises sum w_i (y_i - fit_i)^2
 * subject to fit non-decreasing in i. Entries with w <= 0 or a NaN y get
 * the fit of the entry before them but do not influence it (leading ones
 * take the first fitted value). fit may alias y. */
void stat_pava(const double *y, const double *w, size_t n, double *fit);

/* One rung of an implementation's ladder: its offered rate and the
 * accepted windows' p99 and request counts (the weights). */
struct knee_rung {
	double rate;
	size_t nwin;
	const double *p99_ms;
	const double *weight;   /* requests per window; NULL = all 1 */
};

struct knee_fit {
	int crossed;         /* the isotonic fit reaches the threshold */
	int at_first_rung;   /* crossed already at the first rung: knee <= it */
	double knee_rps;     /* NAN when !crossed */
	double highest_rung_rps;
	size_t rungs;        /* rungs with at least one accepted window */
	size_t lo, hi;       /* indices (into the used rungs) bracketing the knee */
};

/* Fit the knee over rungs sorted by rate (rungs without windows are
 * skipped). rung mean = count-weighted mean of its windows' p99; PAVA over
 * rungs weighted by the rung's total count; knee = first rate where the fit
 * reaches threshold_ms, linearly interpolated between the rung below and
 * the rung at the crossing. -1 when no rung has a window. */
int stat_knee(const struct knee_rung *rungs, size_t nrungs, double threshold_ms,
	      struct knee_fit *out);

struct knee_interval {
	double lo, hi;       /* percentile interval of the knee (rps) */
	size_t nboot;        /* resamples */
	size_t ncrossed;     /* resamples that crossed (others: no knee) */
	int inferential;     /* both bracketing rungs have >= min_reps windows */
};

/* Bootstrap: resample the accepted windows within each rung with
 * replacement (nboot times, rng seeded by seed, stream 0x6b6e6565), refit,
 * and take the (1-level)/2 and (1+level)/2 percentiles of the knees of the
 * resamples that crossed. A resample that does not cross counts as the
 * highest rung (a lower bound), so lo/hi never extrapolate. */
int stat_knee_bootstrap(const struct knee_rung *rungs, size_t nrungs,
			double threshold_ms, size_t nboot, double level,
			uint64_t seed, size_t min_reps, struct knee_interval *out);

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

#endif
