/*
 * store_seq: the stopping rule of `harness rerun --until-decided` and its
 * outcome (tables sequential and sequential_metrics, schema 12, method
 * 17, guard 21, margin_rule 23; the rule
 * is decide.h's, docs/STATISTICS.md "Sequential rerun").
 *
 * One seq_rule per judged implementation: written when the rerun starts
 * (rates NULL: the judged rates are fixed once the pre-registered blocks
 * ran, then stored before the first sequential block), its outcome filled
 * in when the rule stops. One seq_metric row per metric, rewritten after
 * every sequential block. `harness compare` reads both.
 *
 * Ownership: rows from the loaders are the caller's, freed with
 * seq_rules_free / seq_metrics_free. Every function returns 0, or -1
 * after an error() naming the database.
 */
#ifndef HARNESS_STORE_SEQ_H
#define HARNESS_STORE_SEQ_H

#include <stddef.h>

#include "store/store.h"

struct seq_rule {
	char *run_id;
	char *impl;             /* the arm under test; its control impl@base */
	double alpha;           /* each metric's sequence at 1 - alpha */
	double t_star;          /* the sequence's tuning, rounds */
	double margin_pct;      /* the margins it was judged with */
	double margin_ms, margin_cpu_us;
	double max_minutes;     /* the budget: of the whole rerun */
	int max_blocks;         /* sequential blocks */
	double started_at;      /* unix seconds: the rerun's start */
	char *rates;            /* judged rates, comma list; NULL: not yet */
	char *outcome;          /* regression|improvement|no change|inconclusive;
				   NULL while running */
	char *stop;             /* decided|max_minutes|max_blocks|no_rates, or NULL */
	int blocks, rounds;     /* sequential blocks run; rounds judged */
	double elapsed_s;       /* wall seconds of the whole rerun at the stop */
	char *method;           /* latency's (decide_method_name); NULL: mean_cs
				   (runs before schema 17) */
	char *guard;            /* median_cs's guard (decide_guard_rule_name);
				   NULL: merged (runs before schema 21) */
	char *margin_rule;      /* what "no change" is judged against
				   (decide_margin_rule_name); NULL: point
				   (runs before schema 23) */
};

struct seq_metric {
	char *run_id, *impl;
	char *metric;           /* latency|cpu_per_request */
	char *verdict;          /* decide_verdict_name() */
	int rounds;
	double est_pct, lo_pct, hi_pct, margin_pct;  /* the shift, in % of base */
	double mde_pct;         /* decide.h's mde, in % */
	double need_s;          /* estimated further seconds to a decision
				   (NAN: decided or never) */
};

/* Insert or replace the row (run_id, impl). */
int store_seq_rule_put(struct store *st, const struct seq_rule *r);
/* The run's rules, by impl; *n 0 for a run without --until-decided. */
int store_seq_rules_load(struct store *st, const char *run_id, struct seq_rule **out,
			 size_t *n);
void seq_rules_free(struct seq_rule *v, size_t n);

int store_seq_metric_put(struct store *st, const struct seq_metric *m);
int store_seq_metrics_load(struct store *st, const char *run_id, struct seq_metric **out,
			   size_t *n);
void seq_metrics_free(struct seq_metric *v, size_t n);

/* The column list of table name ("sequential", "sequential_metrics"), or
 * NULL (tests check the lists cover the schema). */
const struct store_table *store_seq_table(const char *name);

#endif
