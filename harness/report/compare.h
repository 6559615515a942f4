/*
 * compare: two runs, implementation by implementation (harness compare),
 * and a verdict that fails closed (README.md, "harness compare").
 *
 * Which implementations are JUDGED (decide the exit code):
 *   - by default, those NEW pairs with a control "<impl>@base" (harness
 *     rerun --with-baseline: the changed arms, the baseline commit
 *     interleaved in the same blocks);
 *   - with only (--impl NAME): exactly that one, paired or not;
 *   - with judge_unpaired (--judge-unpaired): also every implementation
 *     compared unpaired across the two runs whose commit differs.
 * Every other implementation in both runs is ADVISORY: compared and shown,
 * never deciding the exit code (two runs made at different times differ by
 * the host's drift as much as by the code).
 *
 * Evidence. A window is valid when accepted or failed (README.md, "harness compare":
 * failed = a valid measurement that fails the SLO; rejected = void). A
 * valid pair is, paired, the two arms' windows of one stage and block,
 * both valid; unpaired, min(valid BASE, valid NEW) windows at a rate. An
 * implementation needs compare.min_pairs (default 3) valid pairs at one
 * rate or more.
 *
 * Verdict of a judged implementation, the first that applies:
 *   regression    NEW's run failed because this implementation's commit
 *                 failed to build, never came up healthy, or answered
 *                 its pre-flight wrong (runs.failure_kind
 *                 build|start|preflight, failure_impl = it);
 *   inconclusive  either run is not `finished` (failed for another
 *                 reason, interrupted, running);
 *   regression    an outcome failure: at a rate with >= min_pairs valid
 *                 windows on both sides, more than half of NEW's failed
 *                 (errors, under-delivery, death...) and none of BASE's;
 *   regression    a knee regression (knee.h's rule, each side's own knee):
 *                 NEW crosses the SLO at a rung where BASE holds (BASE's
 *                 floor, or the rung below its crossing), both with >=
 *                 min_pairs valid windows at that rung and at least
 *                 1 - alpha of NEW's bootstrap resamples crossing too (one
 *                 stalled window is not a crossing); or both knees are
 *                 points with inferential intervals and NEW's lies wholly
 *                 below BASE's;
 *   inconclusive  none of those, and fewer than min_pairs valid pairs at
 *                 every rate;
 *   regression    a pooled metric (struct cmp_pooled) or a metric cell
 *                 says so (below);
 *   with pooled metrics (paired, not judged by the sequence):
 *   inconclusive  a pooled metric's shift is beyond +margin but its test
 *                 did not survive, or no pooled metric decided anything;
 *   improvement   a pooled metric or a cell does;
 *   no change     every pooled metric is equivalent within its margin and
 *                 no cell rose beyond its margin unconfirmed;
 *   no regression otherwise;
 *   without (the cells' rule):
 *   inconclusive  a cell's shift is beyond +margin but its test did not
 *                 survive (too few windows for the level after the
 *                 correction: the MDE says how far off): a rise nobody
 *                 confirmed is not a pass;
 *   improvement   a cell does, none regressed;
 *   inconclusive  no cell decided anything (every interval too wide);
 *   no change     every cell is equivalent within the margin;
 *   no regression otherwise (some cells equivalent, some undecided).
 * decided_by names the rule that decided.
 * The exit code: 1 if a judged implementation regressed, else 3 if one is
 * inconclusive or none is judged, else 0.
 *
 * Metric cells, at each rate where both sides have accepted windows:
 *   latency     the SLO percentile (slo.percentile; spec key `p99`) of
 *               each accepted window's histogram (ms); merged values
 *               shown from the merged histograms;
 *   cpu_per_request  sum(cpu_s) / sum(completed) (us/request).
 * The shift new - base is, by default (compare.interval hodges_lehmann),
 * the Hodges-Lehmann estimate d (paired: median of the Walsh averages of
 * the per-block differences; unpaired: median of every NEW - BASE
 * difference) with its distribution-free interval [lo, hi] at level
 * 1 - 2 alpha (stat_hl_*: Wilcoxon signed-rank / Mann-Whitney). One window
 * the host stalled moves d by one rank, not by its size / n as a mean
 * would. compare.interval t: the mean with a paired t / Welch interval.
 * NEW run with confirm.until: its paired cells by the normal-mixture
 * confidence sequence at 1 - alpha (stat.h), valid at the stopping time
 * the run chose. Each cell gets one-sided p-values of a rise and a fall;
 * with compare.correction holm (default) both are Holm-adjusted across the
 * implementation's tested cells (the family; a cell is tested when its
 * interval exists). With m = margin_pct % of the base value:
 *   regression     adjusted p(rise) <= alpha and d > m
 *   improvement    adjusted p(fall) <= alpha and d < -m
 *   no change      -m < lo and hi < m  (equivalence: two one-sided tests)
 *   inconclusive   none of these, or too few pairs for the level (5 pairs
 *                  at alpha 0.05).
 *
 * Per request name (workload.requests), the same latency cell from that
 * request's own histograms (window_requests, measured phase): shown for
 * every request both runs have; a request with its own promise (slo_ms in
 * NEW's spec) is judged like the mix's latency, one more cell in the
 * implementation's correction family (its regression is the
 * implementation's regression); the others are advisory (unadjusted,
 * never in the verdict).
 *
 * Knee per side: the run view's (view.h: knee.h's rule), shown and judged as above
 * (per-request promises included, knee_run.h).
 *
 * Ownership: struct compare owns everything; compare_release() frees it.
 */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "model/knee.h"
#include "spec/spec.h"
#include "stat/stat.h"
#include "model/view.h"

#define CMP_KNEE_NBOOT 2000   /* bootstrap resamples of each knee */

struct sbuf;
struct store;
struct seq_rule;
struct cmp_seq;

enum cmp_verdict {
	CMP_NO_CHANGE, CMP_IMPROVEMENT, CMP_REGRESSION, CMP_INCONCLUSIVE, CMP_NA,
	CMP_NO_REGRESSION,
};
/* "no change", "improvement", "regression", "inconclusive", "n/a",
 * "no regression" */
const char *cmp_verdict_name(enum cmp_verdict v);

/*
 * One run as compare reads it: its view (view.h: windows, knees, spec,
 * versions, stopping rules), owned, and the compare rule from its spec.
 * The strings below are the view's unless said.
 */
struct cmp_run {
	struct view view;
	char *id, *dir;      /* owned copies */
	const char *spec_name, *spec_hash, *status;   /* "" when NULL */
	const char *failure;       /* runs.failure, or NULL */
	const char *failure_kind;  /* runs.failure_kind (build, start, ...) or NULL */
	const char *failure_impl;  /* the implementation for build, start and preflight, or NULL */
	uint64_t seed;
	int exploratory;
	/* from the stored spec (defaults when it cannot be parsed) */
	double slo_pct, slo_ms;
	size_t min_reps;
	double margin_pct, alpha;
	double margin_ms, margin_cpu_us;  /* the absolute floors (cmp_margin_of) */
	size_t min_pairs;
	unsigned metrics;    /* CMP_P99 | CMP_CPU_PER_REQUEST bits (spec.h) */
	int interval;        /* compare.interval: CMP_INTERVAL_* (spec.h) */
	int correction;      /* compare.correction: CMP_CORRECT_* */
	int sequential;      /* stages.confirm.until was set: paired cells are
				judged by the confidence sequence */
	double cs_t_star;    /* the sequence's tuning n: confirm.reps */
	int spec_ok;
	char *const *reqs;   /* request names of the stored spec, and their slo_ms */
	const double *req_slo_ms;
	size_t nreqs;
	const char **impls, **commits, **refs;  /* in spec order (arrays owned) */
	size_t nimpls;
	const struct view_window **w;  /* every done window, any status (array owned) */
	size_t nw;
	/* version outputs (events dep_version, impl_version), the first of
	 * each component: key "dependency NAME" / "implementation NAME",
	 * value the output (array owned) */
	const struct view_version **versions;
	size_t nversions;
	/* harness rerun --until-decided: its stopping rules (store_seq.h),
	 * one per judged implementation; none for another run */
	const struct seq_rule *seq;
	size_t nseq;
};

/* impls[i]'s knee (knee.h's rule, the view's); KNEE_NONE when the spec
 * does not parse. */
const struct knee_result *cmp_run_knee(const struct cmp_run *r, size_t i);
/* Window w's row of request reqs[k] with a histogram, or NULL (also for a
 * rejected window: its requests are not evidence); its SLO percentile,
 * NAN without one. */
const struct view_wreq *cmp_win_req(const struct cmp_run *r, const struct view_window *w, int k);
double cmp_win_req_pslo(const struct cmp_run *r, const struct view_window *w, int k);

struct cmp_metric {
	enum cmp_verdict verdict;
	double base, new_;   /* merged values; NAN when missing */
	double rel_pct;      /* (new - base) / base * 100 */
	struct diff_ci ci;   /* the shift (ci.mean) and its interval, by method */
	size_t nbase, nnew;  /* windows (paired: pairs in both) */
	enum stat_method method;
	double level;        /* the interval's coverage */
	/* one-sided p-values of a rise (regression) and a fall (improvement),
	 * raw and adjusted across the implementation's cells (= raw when the
	 * correction is none); NAN: the cell was not tested */
	double p_up, p_down, padj_up, padj_down;
	size_t family;       /* cells in the correction's family (tested) */
	double mde;          /* minimum detectable effect (unit of base): one
				sided at alpha / family, power 80 %; +inf when n
				cannot reach that level; NAN untested */
	double mde_pct;      /* of the base value */
	double margin;       /* the effective margin, unit of base (cmp_margin_of) */
	/* the per-window values, only until the cells are judged */
	double *xa, *xb;
	size_t nxa, nxb;
};

#define CMP_MDE_POWER STAT_MDE_POWER

struct cmp_rate {
	double rate;
	/* valid windows (accepted + failed) and failed ones per side; valid
	 * pairs (paired: blocks with both valid; else min of the sides) */
	size_t vbase, fbase, vnew, fnew, vpairs;
	int outcome_regression;  /* NEW failed where BASE held (compare.h) */
	int has_cells;           /* both sides have accepted windows here */
	struct cmp_metric p99, cpu;
	/* per request of NEW's spec (compare.new_.reqs[i]), latency; verdict
	 * CMP_NA where a side has no histogram of it */
	struct cmp_metric *req;
	size_t nreq;
};

/*
 * Pooled evidence of one metric (compare_pooled.c; docs/STATISTICS.md,
 * "Pooled evidence"): every paired window of the judged cells at every
 * rate, one stratified signed-rank test (van Elteren's weights, strata =
 * rates, stat_strat_signed_rank) of the log ratio NEW / BASE. Paired
 * implementations only, and not when the cells are judged by the
 * confidence sequence, nor when NEW stopped by a rule of its own (harness
 * rerun --until-decided, compare_seq.h): a fixed-n test is not valid at a
 * stopping time the data chose.
 */
struct cmp_pooled {
	int cpu;             /* CPU per request; else latency */
	int req;             /* -1: the mix; else request index in NEW's spec */
	enum cmp_verdict verdict;   /* CMP_NA: no pair */
	size_t nrates, npairs;
	int exact;           /* exact null distribution; else Monte Carlo */
	double base_ref;     /* BASE's geometric mean over the pairs, each
				weighing as in the test (unit of the metric) */
	double est_pct, lo_pct, hi_pct;  /* the shift in % of base, interval at
					    1 - 2 alpha; NAN: none */
	double shift, lo, hi;  /* the same in the unit: base_ref x (e^x - 1) */
	double margin;       /* cmp_margin_of(base_ref) */
	double p_up, p_down, padj_up, padj_down;
	double weight;       /* its share of alpha in the family */
	double mde, mde_pct; /* at its first Holm step, power 80 %; +inf: n
				cannot reach that level */
	double sd_log;       /* robust within-rate standard deviation of a log
				ratio (1.4826 x MAD about each rate's median) */
};

/* CMP_CELL_SHARE of alpha goes to the cells when pooled tests exist
 * (weighted Holm, docs/STATISTICS.md "One family"); the rest to the
 * pooled metrics, equally. */
#define CMP_CELL_SHARE 0.2

struct cmp_impl {
	char *name;
	const char *base_commit, *new_commit, *new_ref;  /* borrowed */
	int paired;          /* NEW holds <name>@base */
	int judged;          /* decides the exit code; else advisory */
	struct cmp_rate *rates;
	size_t nrates;
	size_t max_vpairs;   /* most valid pairs at any rate */
	const struct knee_result *kbase, *knew;  /* the runs'; NULL: none */
	enum cmp_verdict verdict;
	char *why;           /* one line: what decided the verdict */
	const char *decided_by;  /* static: "pooled test", "cell", "pooled test and
				    cell", "outcome gates", "knee", "the new
				    commit", "run state", "evidence" */
	struct cmp_pooled *pooled;  /* per judged metric (latency, CPU, each
				       request with its own slo_ms) */
	size_t npooled;
	size_t ncells;       /* rate x metric cells tested (the family) */
	size_t family;       /* hypotheses in the correction: pooled + cells */
	/* NEW made by rerun --until-decided: the verdict is the sequence's
	 * (compare_seq.c), NULL otherwise */
	struct cmp_seq *seq;
	size_t suspects;     /* cells undecided with a shift beyond +margin */
};

struct compare_opts {
	const char *only;    /* judge exactly this implementation, or NULL */
	int judge_unpaired;  /* also judge changed implementations unpaired */
	int interval;        /* -1: the spec's; else CMP_INTERVAL_*, or
				CMP_INTERVAL_CS (force the sequence) */
	int correction;      /* -1: the spec's; else CMP_CORRECT_* */
};

#define CMP_INTERVAL_CS 2

struct compare {
	struct cmp_run base, new_;
	double margin_pct, alpha;
	double margin_ms, margin_cpu_us;  /* NEW's floors */
	size_t min_pairs;
	unsigned metrics;
	enum stat_method method_paired, method_unpaired;
	int correction;      /* CMP_CORRECT_* */
	int same_spec;       /* the stored spec hashes are equal */
	int same_run;        /* BASE and NEW are one run */
	/* components whose recorded version differs between the runs, e.g.
	 * "dependency db: \"15.4\" -> \"15.5\"", "; "-separated; NULL when none
	 * (flagged in every format, never deciding the exit code) */
	char *version_diffs;
	struct cmp_impl *impls;
	size_t nimpls;
	int judged;          /* judged implementations */
	int regressions;     /* judged implementations with a regression */
	int inconclusive;    /* judged implementations without an answer */
	int exit_code;       /* 0, 1 or 3 (compare.h, the verdict) */
};

/*
 * The margin of a shift, in the metric's own unit: the larger of
 * margin_pct % of |base_value| and the metric's absolute floor (floor:
 * compare.margin_ms for CMP_P99, the SLO percentile and every per-request
 * latency, in ms; compare.margin_cpu_us for CMP_CPU_PER_REQUEST, in
 * us/request). A shift d is beyond the margin when |d| > the result, i.e.
 * beyond both the relative margin and the floor; "no change" needs the
 * interval inside (-result, +result). base_value NAN: the floor alone.
 * docs/STATISTICS.md, "Margins", says why the floors.
 */
double cmp_margin_of(double margin_pct, double floor, double base_value);
/* A cell's effective margin (cmp_metric.margin, the one its verdict
 * compares the shift with) in % of its base value, as compare's chart
 * draws the band and its JSON says; NAN without a positive base. */
double cmp_metric_margin_pct(const struct cmp_metric *m);

/* Read one run's done windows and stored spec from its open database st
 * (directory dir, id id; the dispatcher's, cmd.h CMD_RUN2). st stays the
 * caller's; r owns copies of dir and id. -1 after error(), r released. */
int cmp_run_read(struct cmp_run *r, struct store *st, const char *dir, const char *id);
/* cmp_run_read of RUN (an id under runs_dir, a run directory or
 * `latest`), opened and closed here. -1 after error(). */
int cmp_run_load(struct cmp_run *r, const char *runs_dir, const char *run);
/* The version differences of base -> new_ (see compare.version_diffs). */
char *cmp_version_diffs(const struct cmp_run *base, const struct cmp_run *new_);
void cmp_run_release(struct cmp_run *r);

/*
 * Compare base with new_ (both loaded; ownership moves into c, also on
 * failure). -1 after an error() when opts->only is not in both runs, the
 * runs have no implementation in common, or BASE and NEW are one run with
 * no paired arm to compare (exit 2 for the caller).
 */
int compare_runs(struct compare *c, struct cmp_run *base, struct cmp_run *new_,
		 const struct compare_opts *opts);
void compare_release(struct compare *c);

/* The comparison as a document (report_doc.h; the caller's, rdoc_release):
 * its heading, its headline, then the rest (compare_md.c). */
struct rdoc;
void compare_doc(const struct compare *c, struct rdoc *d);
/* Writers (compare_md.c, compare_json.c, compare_junit.c): append one
 * whole document to out. */
void compare_md(const struct compare *c, struct sbuf *out);
void compare_json(const struct compare *c, struct sbuf *out);
void compare_junit(const struct compare *c, struct sbuf *out);
/* One self-contained HTML page (compare_html.c): the deltas chart, then
 * everything compare_md() says, as HTML; no script, nothing external. */
void compare_html(const struct compare *c, struct sbuf *out);
/* compare_md() with, when chart is not NULL, a Markdown image of that
 * path under its heading (harness compare --chart FILE). */
void compare_md_linked(const struct compare *c, const char *chart, struct sbuf *out);
/* The per-rung deltas chart, one <svg data-chart="compare_deltas">
 * (compare_chart.c): each implementation's verdict, then per metric the
 * shift in % of base with its interval per rate, the margin band. */
void compare_chart(const struct compare *c, struct sbuf *out);

#endif
