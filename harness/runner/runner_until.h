/*
 * runner_until: `harness rerun --until-decided`, split by concern (the
 * rule and its loop in runner_until.c, whose file comment states it; the
 * pairs of windows and their verdicts in runner_until_pairs.c; what is
 * stored and said in runner_until_report.c; the blocks run in
 * runner_until_blocks.c). Internal to the runner: these share struct
 * until and struct pair; nothing outside harness/runner/ includes this.
 *
 * Ownership: struct until owns its rules, its pairs and their rates;
 * a pair borrows its rule (from until) and its arms (from the run).
 */
#ifndef HARNESS_RUNNER_UNTIL_H
#define HARNESS_RUNNER_UNTIL_H

#include <stddef.h>

#include "stat/decide.h"
#include "runner/runner_internal.h"
#include "store/store_seq.h"
#include "store/store_window.h"

struct sbuf;

#define SEQ_STAGE "sequential"

/* "latency", "cpu_per_request": the metrics a rule judges, in order
 * (runner_until_report.c). */
extern const char *const until_metric_names[2];

/* One rule and its arms. */
struct pair {
	struct seq_rule *rule;       /* borrowed from struct until */
	struct arm *arm, *base;
	double *rates;               /* judged rates */
	size_t nrates;
	struct decide_metric m[2];
	int on[2];                   /* metric judged (compare.metric) */
	enum decide_verdict answer;
};

struct until {
	const struct run_ctx *rc;    /* its clock (runner_now) */
	struct seq_rule *rules;
	size_t n;
	struct pair *p;
	double block_s;              /* seconds of the last block run here */
	double round_s;              /* block_s x the judged rates: a round */
};

/* ---- runner_until_pairs.c: the pairs and what they say */

/* x's partner in w: the other arm's window of the same stage, block and
 * rate, or NULL. */
const struct window_row *until_partner(const struct window_rows *w, const struct window_row *x,
				       const char *other);

/* Append r to v (n of alloc) unless a rate the same (rate_same) is there. */
void until_add_rate(double **v, size_t *n, size_t *alloc, double r);

/* The judged rates of p from the pre-registered windows (runner_until.c's
 * file comment): both arms ran in one block, neither has a failed window. */
void until_judged_rates(struct pair *p, const struct window_rows *w);

/* p's judged rates as stored ("r1,r2", %.17g), appended to out. */
void until_rates_text(const struct pair *p, struct sbuf *out);

/* p's judged rates from their stored text. */
void until_rates_parse(struct pair *p, const char *s);

/* Judge p again from the stored windows w. */
void until_judge(struct run_ctx *rc, struct pair *p, const struct window_rows *w);

/* The failed windows' verdict on p: NULL while none, else the stop reason,
 * p->answer set and the rate named in why. */
const char *until_outcome_stop(const struct run_ctx *rc, struct pair *p,
			       const struct window_rows *w, struct sbuf *why);

/* ---- runner_until_report.c: what is stored and said */

/* p's metrics as they stand, stored (sequential_metrics). */
void until_store_metrics(struct run_ctx *rc, const struct until *u, const struct pair *p);

/* The progress line of p after `blocks` blocks (stderr). */
void until_progress(struct run_ctx *rc, const struct pair *p, int blocks);

/* The rule stops: its outcome and why, stored and said. */
void until_finish(struct run_ctx *rc, const struct until *u, struct pair *p, const char *stop,
		  int blocks);

/* ---- runner_until_blocks.c: the blocks run */

/* The arm called name, or NULL. */
struct arm *until_arm_named(struct run_ctx *rc, const char *name);

/* Run sequential block `block` at rate with these arms (planned first
 * when new, counterbalanced; windows done are kept): 0, 1, -1. */
int until_seq_block(struct run_ctx *rc, int block, double rate, struct arm **arms, size_t n);

/* The next block: the judged rate (of a live pair) with the fewest accepted
 * pairs, lowest rate first, and the live pairs' arms that lag there.
 * Returns the arm count (0: nothing to run). */
size_t until_next_block(struct until *u, const struct window_rows *w, double *rate,
			struct arm **arms);

/* Sequential blocks planned so far (*planned: one more than the highest
 * block number), and the first one not finished (-1: none) with its rate
 * and arms (resume). */
int until_stored_blocks(struct run_ctx *rc, int *planned, int *open_block, double *rate,
			struct arm **arms, size_t *narms);

#endif
