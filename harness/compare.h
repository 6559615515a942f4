/*
 * compare: two runs, implementation by implementation (harness compare).
 *
 * For each implementation present in both runs (arms named "<impl>@base"
 * are controls, never compared on their own) and each rate at which both
 * sides have accepted windows:
 *
 *   p99            from the MERGED latency histograms of the accepted
 *                  windows (ms);
 *   cpu_per_request  sum(cpu_s) / sum(completed) over them (us/request);
 *
 * and the difference new - base with a (1 - alpha) interval on the
 * per-window values: PAIRED by block when NEW holds "<impl>@base" (the
 * baseline commit interleaved in the same blocks: base = that arm, the
 * pairs are its and <impl>'s windows of the same stage and block, both
 * accepted), otherwise UNPAIRED (Welch, BASE's windows against NEW's),
 * which the output says.
 *
 * Verdict of one metric at one rate, with m = margin_pct % of the base
 * value and [lo, hi] the interval of the mean difference d:
 *   regression     lo > 0 and d > m   (significantly higher, beyond margin)
 *   improvement    hi < 0 and d < -m
 *   no change      -m < lo and hi < m (equivalent within the margin)
 *   inconclusive   none of these (e.g. an interval too wide to tell), or
 *                  fewer than 2 windows (pairs) on a side
 * An implementation's verdict: regression if any of its metric/rate cells
 * is; else improvement if any is; else inconclusive if any is; else no
 * change (and inconclusive when no rate was measured in both). The rule
 * (margin_pct, metric, alpha) is NEW's stored spec's `compare:` (spec
 * defaults: 5 %, [p99, cpu_per_request], 0.05).
 *
 * Knee per side: stat_knee over the side's accepted ladder windows (the
 * SLO percentile from each window's histogram, weighted by completed
 * requests), interval from stat_knee_bootstrap (2000 resamples, the run's
 * seed, level 1 - alpha); the shift is new - base when both crossed.
 *
 * Ownership: struct compare owns everything; compare_release() frees it.
 */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"
#include "stat.h"

struct sbuf;

enum cmp_verdict { CMP_NO_CHANGE, CMP_IMPROVEMENT, CMP_REGRESSION, CMP_INCONCLUSIVE, CMP_NA };
const char *cmp_verdict_name(enum cmp_verdict v); /* "no change", ... "n/a" */

/* One accepted window, as compare needs it. */
struct cmp_win {
	char *impl, *stage;
	int rung, block;
	double rate;
	int64_t completed;
	double cpu_s;        /* NAN: not accounted */
	double p99_ms;       /* from the histogram when stored, else the column */
	double pslo_ms;      /* the SLO percentile (knee input) */
	int has_hist;
	void *hist;          /* struct hist *, or NULL */
};

struct cmp_run {
	char *id, *dir, *spec_name, *spec_hash, *status;
	uint64_t seed;
	int exploratory;
	/* from the stored spec (defaults when it cannot be parsed) */
	double slo_pct, slo_ms;
	size_t min_reps;
	double margin_pct, alpha;
	unsigned metrics;    /* CMP_P99 | CMP_CPU_PER_REQUEST bits (spec.h) */
	int spec_ok;
	char **impls, **commits, **refs;  /* in spec order */
	size_t nimpls;
	struct cmp_win *w;
	size_t nw;
};

struct cmp_metric {
	enum cmp_verdict verdict;
	double base, new_;   /* merged values; NAN when missing */
	double rel_pct;      /* (new - base) / base * 100 */
	struct diff_ci ci;   /* of the per-window (per-pair) difference */
	size_t nbase, nnew;  /* windows (paired: pairs in both) */
};

struct cmp_rate {
	double rate;
	struct cmp_metric p99, cpu;
};

struct cmp_knee {
	int has;             /* at least one accepted ladder window */
	struct knee_fit fit;
	struct knee_interval ci;
	int has_ci;
};

struct cmp_impl {
	char *name;
	const char *base_commit, *new_commit, *new_ref;  /* borrowed */
	int paired;          /* NEW holds <name>@base */
	struct cmp_rate *rates;
	size_t nrates;
	struct cmp_knee kbase, knew;
	enum cmp_verdict verdict;
	char *why;           /* one line: the cells behind the verdict */
};

struct compare {
	struct cmp_run base, new_;
	double margin_pct, alpha;
	unsigned metrics;
	int same_spec;       /* the stored spec hashes are equal */
	struct cmp_impl *impls;
	size_t nimpls;
	int regressions;     /* implementations with a regression */
};

/* Load one run's accepted windows and stored spec. -1 after error(). */
int cmp_run_load(struct cmp_run *r, const char *runs_dir, const char *run);
void cmp_run_release(struct cmp_run *r);

/*
 * Compare base with new_ (both loaded; ownership moves into c). only: an
 * implementation name, or NULL for all. -1 after an error() when only is
 * not present in both, or the runs have no implementation in common.
 */
int compare_runs(struct compare *c, struct cmp_run *base, struct cmp_run *new_,
		 const char *only);
void compare_release(struct compare *c);

/* Writers (compare_out.c): append one whole document to out. */
void compare_md(const struct compare *c, struct sbuf *out);
void compare_json(const struct compare *c, struct sbuf *out);
void compare_junit(const struct compare *c, struct sbuf *out);

#endif
