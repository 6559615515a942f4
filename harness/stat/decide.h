/*
 * decide: the stopping rule of `harness rerun --until-decided` and the
 * verdict `harness compare` gives such a run (docs/STATISTICS.md
 * "Sequential rerun"). Pure: values in, verdict out; the runner
 * (runner_until.c) and compare (compare_seq.c) feed it the same pairs.
 *
 * Per metric (the SLO percentile, CPU per request), a pair is NEW's and
 * BASE's accepted windows of one block at one judged rate. At each rate
 * the pairs are taken in the order they were measured; round k is the
 * k-th pair of every judged rate, and its statistic
 *     y_k = mean over the judged rates of log(new / base)
 * (a shift in log ratio: scale-free, so rates and metrics whose values
 * differ ten-fold weigh the same). Rounds are independent given the
 * code; their mean is estimated with Robbins' normal-mixture confidence
 * sequence (stat.h stat_cs_half_width) at level 1 - alpha, valid at every
 * round count at once, so looking after every block and stopping when it
 * decides keeps the error rate (a fixed-n test re-run after each block
 * would not).
 *
 * The margin, in the same log scale: m = mean over the judged rates of
 * log(1 + M_r / b_r), b_r the median of BASE's values at rate r in the
 * rounds used, M_r = max(margin_pct % of b_r, the absolute floor). Then,
 * with est the estimate and [lo, hi] its sequence,
 *     regression   lo > 0 and est > m      improvement  hi < 0 and est < -m
 *     no change    -m < lo and hi < m      undecided otherwise,
 * and never before DECIDE_MIN_ROUNDS rounds: a shift is called when its
 * direction is known at the sequence's level and its estimate is beyond
 * the margin (the fixed-n cells' rule, compare.h); "no change" needs the
 * whole sequence inside the margin. A rerun whose spec opts in (rule
 * base_bound, enum decide_margin_rule; the default is point) judges "no
 * change" by a sequence at half the alpha against the margin of each
 * rate's upper bound on b_r instead, so that an underestimated b_r cannot
 * make "no change" too easy.
 *
 * With method median_cs the same rule holds for the median of the
 * pairs' log ratios, every judged rate's pair of every round one
 * observation (rounds x rates of them: a host stall that holds back one
 * window spoils one observation, not a round), with its sign-count
 * confidence sequence (stat.h stat_median_cs); "no change" needs the
 * guard besides (struct decide_rule), which judges every rate.
 *
 * Ownership: the caller's arrays are only read.
 */
#ifndef HARNESS_DECIDE_H
#define HARNESS_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#define DECIDE_MIN_ROUNDS 3   /* a standard deviation of fewer says nothing */
#define DECIDE_T_STAR 10.0    /* rounds the sequence's width is tuned for */
#define DECIDE_NEVER ((size_t)-1)

enum decide_verdict {
	DECIDE_UNDECIDED, DECIDE_NO_CHANGE, DECIDE_REGRESSION, DECIDE_IMPROVEMENT,
};
/* "undecided", "no change", "regression", "improvement" */
const char *decide_verdict_name(enum decide_verdict v);

/* One pair: NEW's and BASE's value of one block at rate; order: when it
 * was measured (any increasing key, e.g. the later window's id). Pairs
 * with a value that is not finite and > 0 are skipped. */
struct decide_obs {
	double rate;
	int64_t order;
	double new_, base;
};

/* How the rounds are summarised (docs/STATISTICS.md "Sequential rerun").
 * Latency's default in a spec (compare.sequential.method) is median_cs;
 * CPU per request is always mean_cs, and so is latency in a stored rule
 * without a method (runs before schema 17), so they are judged as they
 * were. The names are stored: never reorder (spec_table.c lists them in
 * this order). */
enum decide_method {
	DECIDE_MEAN_CS,    /* "mean_cs": the mean, Robbins' normal mixture */
	DECIDE_MEDIAN_CS,  /* "median_cs": the median, sign counts (stat.h
			      stat_median_cs); exact, robust to wild rounds */
};
/* "mean_cs", "median_cs"; decide_method_parse: -1 when s is neither. */
const char *decide_method_name(enum decide_method m);
int decide_method_parse(const char *s, enum decide_method *out);

/* median_cs's guard rule (struct decide_guard below says what each
 * merges; stored names, never change them). */
enum decide_guard_rule {
	DECIDE_GUARD_MERGED,
	DECIDE_GUARD_DROP_WORST,
	DECIDE_GUARD_DROP_WORST_RISE,
};
/* "merged", "drop_worst", "drop_worst_rise" */
const char *decide_guard_rule_name(enum decide_guard_rule g);
/* The rule a stored name judges by: DECIDE_GUARD_MERGED for NULL (runs
 * before schema 21) or an unknown name. */
enum decide_guard_rule decide_guard_rule_stored(const char *stored);
/* 1 when the rule sets each arm's worst window at a rate aside */
int decide_guard_drops_worst(enum decide_guard_rule g);

/* The margin "no change" is judged against (docs/STATISTICS.md "The
 * margin, in the same scale"; stored names, never change them).
 *
 *   DECIDE_MARGIN_POINT ("point"): m from b_r the median of BASE's values
 *     at each rate, with the sequence at 1 - alpha. The default
 *     (compare.sequential.margin_rule), and the rule of runs before
 *     schema 23 (NULL or an unknown name).
 *   DECIDE_MARGIN_BASE_BOUND ("base_bound"): calls as above; "no change"
 *     needs the sequence at 1 - alpha (1 - DECIDE_NC_BOUND_SHARE) inside
 *     +-m_nc, m_nc from u_r, each rate's time-uniform upper bound on the
 *     median of BASE's values (stat.h stat_median_ub) at alpha
 *     DECIDE_NC_BOUND_SHARE / the judged rates. m falls as b_r grows, so
 *     with every bound holding m_nc <= m, and "no change" at a true shift
 *     beyond the margin needs the sequence or a bound to fail: at most
 *     alpha by the union bound, whatever the stopping time. Opt-in
 *     (margin_rule: base_bound): its "no change" comes later
 *     (docs/STATISTICS.md "Which margin rule"). */
enum decide_margin_rule {
	DECIDE_MARGIN_POINT,
	DECIDE_MARGIN_BASE_BOUND,
};
#define DECIDE_NC_BOUND_SHARE 0.5   /* of a metric's alpha: its b_r bounds */
/* "point", "base_bound" */
const char *decide_margin_rule_name(enum decide_margin_rule r);
/* The rule a stored name judges by: DECIDE_MARGIN_POINT for NULL (runs
 * before schema 23) or an unknown name. */
enum decide_margin_rule decide_margin_rule_stored(const char *stored);

struct decide_rule {
	double alpha;          /* the sequence's level: 1 - alpha, per metric */
	double t_star;         /* DECIDE_T_STAR unless stored otherwise */
	double margin_pct;     /* relative margin, % of base */
	double floor;          /* absolute margin, unit of the values */
	enum decide_method method;  /* DECIDE_MEAN_CS (0) unless chosen: CPU,
				       and a stored rule without a method */
	/* median_cs's guard on "no change": per judged rate (rates[j]), a
	 * pooled value of NEW and of BASE over every round (the SLO
	 * percentile of the merged histograms; CPU: total CPU / total
	 * requests). "No change" also needs |log(new_j / base_j)| < the
	 * rate's log margin at every rate, else undecided: a sporadic tail
	 * the median ignores must not read "no change". NULL or a value not
	 * finite and > 0: no evidence, so never "no change" (fail closed). */
	const double *guard_new, *guard_base;
	enum decide_guard_rule guard_rule;  /* how they were merged: the
				       text says it (decide_note) */
	enum decide_margin_rule margin_rule;  /* DECIDE_MARGIN_POINT (0)
				       unless chosen: a stored rule without one */
};

/*
 * median_cs's guard values (struct decide_rule guard_new, guard_base),
 * one rule for the runner and compare: per judged rate, NEW's and BASE's
 * histograms merged over the pairs there whose windows are both accepted
 * and histogrammed, and the SLO percentile of each merged histogram.
 * Which windows merge is the run's stored guard rule:
 *
 *   DECIDE_GUARD_MERGED ("merged"): every window. The rule of runs before
 *     schema 21 (a rule stored without a guard, or with a name this
 *     binary does not know: the stricter rule).
 *   DECIDE_GUARD_DROP_WORST ("drop_worst"): each arm's one worst window at
 *     the rate (the highest SLO percentile of its own histogram; equal
 *     ones: the larger window id) is set aside, the rest merged; fewer
 *     than 2 windows of an arm at a rate: no value (docs/STATISTICS.md
 *     "The guard on no change": one window a host stalled cannot hold
 *     "no change", a tail in two windows still does).
 *   DECIDE_GUARD_DROP_WORST_RISE ("drop_worst_rise"): merged as
 *     drop_worst; it holds only when NEW's value is above BASE's by the
 *     margin (a tail regression). BASE's tail above NEW's is not a reason
 *     to withhold "no change": both pass the gate, and on a shared host
 *     which arm the stalls fall on is chance (docs/STATISTICS.md). The
 *     rule of new reruns.
 *
 * The names are stored: never change them.
 *
 *     decide_guard_init(&g, nrates, rule, slo_pct);
 *     for each pair at judged rate j: decide_guard_add(&g, j, hn, idn, hb, idb);
 *     decide_guard_values(&g, gn, gb);   (gn, gb: [nrates])
 *     decide_guard_release(&g);
 *
 * O(1) histograms per rate and arm (the merged rest and the one set
 * aside). The histograms added are only read (merged into g's own).
 */
struct hist;
struct decide_guard_arm;
struct decide_guard {
	size_t nrates;
	enum decide_guard_rule rule;
	double pct;                        /* the SLO percentile */
	struct decide_guard_arm *new_, *base;  /* [nrates] */
};
void decide_guard_init(struct decide_guard *g, size_t nrates, enum decide_guard_rule rule,
		       double pct);
/* One pair at judged rate j: its NEW and BASE window's histogram and
 * window id, a histogram NULL when that window is not accepted or has
 * none; the pair counts only with both (a pair merges into both sides or
 * neither). */
void decide_guard_add(struct decide_guard *g, size_t j, const struct hist *new_, int64_t idn,
		      const struct hist *base, int64_t idb);
/* gn[j], gb[j]: the percentile (ms) of the merged histograms at rate j;
 * NAN where the rule has no evidence (no pair; drop_worst: fewer than 2),
 * and the guard fails closed. */
void decide_guard_values(const struct decide_guard *g, double *gn, double *gb);
void decide_guard_release(struct decide_guard *g);

/* The method a stored rule judges a metric by: CPU per request always
 * mean_cs; latency the stored name, and mean_cs for a rule stored
 * without one (runs before schema 17: there was only the mean) or with
 * a name this binary does not know. */
enum decide_method decide_method_stored(const char *stored, int cpu);

struct decide_metric {
	enum decide_verdict verdict;
	size_t rounds;         /* rounds used */
	double est, lo, hi;    /* mean log ratio and its sequence (NAN: < 2 rounds) */
	double margin;         /* m, log scale (NAN: no rounds) */
	double base;           /* mean over the rates of b_r (unit of the values) */
	double sd, half;       /* of the round statistic; the half-width */
	double mde;            /* the smallest log shift beyond +-m called with
				  80 % power at this n: max(m, half) + z_0.8
				  sd/sqrt n */
	size_t rounds_needed;  /* rounds a decision needs at this estimate and
				  sd: 0 decided, DECIDE_NEVER none within 10^6 */
	enum decide_method method;  /* the rule's; median_cs: est the median,
				  lo/hi its sequence (+-inf while too few
				  rounds), sd 1.4826 MAD, half (hi - lo) / 2
				  (INFINITY when unbounded), mde max(m, half) */
	int guard;             /* median_cs: 1 the guard held at every rate,
				  0 it did not or had no evidence */
	double guard_worst;    /* the largest |log(new_j / base_j)| - margin_j
				  of the guard (NAN without evidence) */
	double guard_log, guard_margin;  /* at that rate: log(new_j / base_j)
				  and margin_j */
	int guard_held;        /* median_cs: the sequence was inside the
				  margin, the guard alone kept it undecided */
	enum decide_guard_rule guard_rule;  /* the rule's */
	enum decide_margin_rule margin_rule;  /* the rule's */
	double nc_margin;      /* the margin "no change" is judged against:
				  point, = margin; base_bound, m_nc (log) */
	double nc_lo, nc_hi;   /* the sequence "no change" reads: point, = lo,
				  hi; base_bound, at 1 - alpha (1 -
				  DECIDE_NC_BOUND_SHARE) */
};

/*
 * Judge one metric over the judged rates rates[0..nrates) from the pairs
 * obs[0..nobs) (any order; pairs at other rates are ignored). -1 (out
 * undecided, NANs) when the rule is unusable (alpha not in (0, 1)).
 */
int decide_metric(const struct decide_rule *r, const double *rates, size_t nrates,
		  const struct decide_obs *obs, size_t nobs, struct decide_metric *out);

struct sbuf;
/* What a metric adds to its one-line text: under base_bound, when
 * undecided or no change, "; no-change sequence [-4.0%, +6.0%], margin
 * -13.0%/+15.0%" (its sequence and margin: nc_lo, nc_hi, nc_margin); a median_cs metric (nothing more for mean_cs):
 * " [median_cs]", and when the guard held back "no change",
 * why: "; the guard held it: the merged histograms' SLO percentile
 * +12.0%, margin +-5.0%" or
 * "; the guard held it: no merged histograms"; under drop_worst
 * "merged histograms' (each arm's worst window set aside)" and "fewer
 * than 2 histograms of an arm at a rate". */
void decide_note(const struct decide_metric *m, struct sbuf *out);

/* A log shift in percent: (exp(x) - 1) x 100. */
double decide_pct(double x);

/* The first round at which method can decide anything at level alpha
 * (its sequence at 1 - alpha): DECIDE_MIN_ROUNDS for mean_cs; for
 * median_cs the first n pairs whose sign counts exclude one (8 at 0.05,
 * 9 at 0.025, the default two metrics' share of 0.05) in rounds of
 * nrates pairs (0 read as 1), and never before DECIDE_MIN_ROUNDS.
 * DECIDE_NEVER for an alpha not in (0, 1). */
size_t decide_first_round(enum decide_method m, double alpha, size_t nrates);
/* Under base_bound, the first round at which every judged rate's upper
 * bound on BASE's median exists (stat_median_ub at alpha
 * DECIDE_NC_BOUND_SHARE / nrates, one value a rate a round: 10 at 0.025
 * over two rates): before it "no change" reads the relative margin alone,
 * which a floor that binds makes smaller than m. DECIDE_NEVER for an
 * alpha not in (0, 1). */
size_t decide_nc_bound_round(double alpha, size_t nrates);
/* base_bound's levels from a metric's alpha: the sequence "no change"
 * reads (alpha (1 - DECIDE_NC_BOUND_SHARE)), and each judged rate's
 * upper bound on BASE's median (alpha DECIDE_NC_BOUND_SHARE / nrates, 0
 * read as 1). The runner, compare and the plan all take them from here. */
double decide_nc_seq_alpha(double alpha);
double decide_nc_bound_alpha(double alpha, size_t nrates);

/* The run's answer from its metrics' verdicts: regression if any is one;
 * else, when all are decided, improvement if any is one, else no change;
 * else undecided. */
enum decide_verdict decide_overall(const enum decide_verdict *v, size_t n);

#endif
