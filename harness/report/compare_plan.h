/*
 * compare_plan: what `harness compare` can decide from a plan (harness
 * check; docs/STATISTICS.md, "Plans that can decide"). Per judged metric:
 * the pairs the plan gives its pooled test, the test's first step in the
 * correction and the fewest pairs that can reach it, and, from a base
 * run's observed spread, the smallest shift compare could call.
 */
#ifndef HARNESS_COMPARE_PLAN_H
#define HARNESS_COMPARE_PLAN_H

#include <stddef.h>

#include <jansson.h>

#include "report/compare.h"
#include "spec/spec.h"

struct cmp_plan_spread {
	char *impl;          /* of the base run */
	double base;         /* geometric mean of its accepted windows' values */
	double sd_log;       /* of a pair's log ratio: sqrt(2) x 1.4826 x MAD of
				log values about each rate's median */
	size_t windows;
	double margin_pct;   /* the effective margin in % of base */
	double mde_pct;      /* the pooled test's MDE at the plan's n (+inf: none) */
	double call_pct;     /* the smallest shift it could call: max of both */
};

struct cmp_plan_metric {
	char name[96];       /* "latency", "cpu_per_request", "request NAME's latency" */
	int cpu;
	int req;             /* -1: the mix; else the spec's request index */
	double level;        /* the pooled test's first step: alpha x its weight */
	size_t floor;        /* fewest pairs whose smallest p reaches level (0: none) */
	struct cmp_plan_spread *spread;  /* per implementation of the base run */
	size_t nspread;
};

/* What a rerun --until-decided of the plan needs at the least
 * (compare_plan_seq.c; docs/STATISTICS.md "Plans that can decide"). */
struct cmp_plan_seq {
	int method;          /* latency's: decide.h enum decide_method */
	int margin_rule;     /* decide.h enum decide_margin_rule */
	size_t rounds_nc;    /* base_bound: the first round every rate's bound
				on base's median exists (0: point) */
	double level;        /* each metric's sequence: alpha / the metrics */
	size_t rounds_lat;   /* latency's first possible decision (0: not judged) */
	size_t rounds_cpu;   /* CPU per request's (0: not judged) */
	size_t rounds;       /* the larger: no answer before it but a regression */
	size_t rates;        /* judged rates: the ladder's rungs, or with a base
				run the fewest where an implementation held */
	int rates_from_base;
	double warmup_s, window_s;  /* a window's least wall: warmup.min_s +
				ladder.window_s (sequential blocks are ladder-sized) */
	double round_s;      /* rates x 2 windows x (warmup_s + window_s) */
	double min_s;        /* rounds x round_s */
	double budget_min;   /* the spec's compare.sequential.max_minutes; the
				caller may put --max-minutes here */
	const char *budget_name;  /* static: "compare.sequential.max_minutes" */
};

struct cmp_plan {
	size_t rates, reps;  /* the ladder's rungs, blocks per rung */
	size_t confirm;      /* confirm pairs at most (confirm.reps x 2 rates) */
	size_t pairs;        /* per metric at most: rates x reps + confirm */
	int compare_setup;   /* the spec has a compare: section (it is meant for
				harness compare) */
	int sequential;      /* compare.sequential is given: reruns decide by
				--until-decided, never refused */
	int unpaired_can;    /* an unpaired cell (reps against reps windows,
				Mann-Whitney) can reach its level */
	struct cmp_plan_metric *m;
	size_t nm;
	int never;           /* pairs < a metric's floor: the pooled test cannot
				decide */
	double alpha;
	const char *base_id; /* borrowed from the caller; NULL: no base run */
	struct cmp_plan_seq seq;
};

/* The plan of s, with spreads from base (NULL: none). p owns its arrays;
 * cmp_plan_release() frees them. */
void cmp_plan_init(struct cmp_plan *p, const struct spec *s, const struct cmp_run *base);
void cmp_plan_release(struct cmp_plan *p);

/* The refusal of a plan that can never decide, one line ending in "\n",
 * into buf (naming path); 0 when p can decide (paired by its pooled test,
 * or unpaired by a cell) or the spec has no compare: section. */
int cmp_plan_refusal(const struct cmp_plan *p, const char *path, char *buf, size_t len);

/* Text for `check` (a section), and the same as JSON (new reference). */
void cmp_plan_print(const struct cmp_plan *p, const struct spec *s);
json_t *cmp_plan_json(const struct cmp_plan *p);

/* The sequential part (compare_plan_seq.c): cmp_plan_init fills p->seq;
 * its lines of cmp_plan_print, its JSON object ("sequential_plan" of
 * cmp_plan_json). cmp_plan_seq_warning: a one-line warning ending in
 * "\n" into buf (naming where) when the plan is sequential and its
 * budget is below the least time a decision needs; 0 otherwise. */
void cmp_plan_seq_init(struct cmp_plan *p, const struct spec *s, const struct cmp_run *base);
void cmp_plan_seq_print(const struct cmp_plan *p);
json_t *cmp_plan_seq_json(const struct cmp_plan *p);
int cmp_plan_seq_warning(const struct cmp_plan *p, const char *where, char *buf, size_t len);

#endif
