/*
 * history: one spec's runs over time (nights, commits), per
 * implementation: its knee with its interval, cost per request and memory
 * at the ladder's fixed rates, each with an interval; and the steps, the
 * changes between consecutive runs that exceed both runs' intervals
 * (docs/history.md states the rule and where it comes from).
 *
 * Per run and implementation:
 *   knee     the run's view's (view.h: knee.h's one rule, 2000 seeded
 *            resamples); its interval is the bootstrap interval, else the
 *            bracket (lo, hi], a floor [highest rung, inf), a crossing at
 *            the first rung (0, first rung];
 *   cost     at each ladder rate: sum(cpu_s) / sum(completed) over the
 *            accepted ladder windows (us per request), with a 95% t
 *            interval over the log of those windows' own ratios (a
 *            factor: never below zero);
 *   memory   at each ladder rate: the mean of the accepted windows'
 *            anonymous-memory medians (anon_p50, MiB), same interval;
 *   latency  the SLO percentile (the run's slo.percentile) of each
 *            accepted ladder window by the view's one rule (view.h
 *            pslo_ms: its latency histogram's percentile, as the knee and
 *            the report read a window), request-weighted mean over the
 *            windows at each ladder rate (the reference rates: every rate
 *            each listed run measured), same interval; and at the knee:
 *            over the accepted ladder windows of the highest rung the knee
 *            holds at (a point's or a bracket's lower rung, a floor's
 *            highest). Until issue 29's last step it read each window's
 *            stored column of the percentile (p50, p90, p99, p99.9 only:
 *            no latency at all for an SLO at p95 or p99.5).
 * The fixed rates are the ladder rates every listed run measured for the
 * implementation (all of them when no rate is common to every run).
 *
 * Ownership: struct history owns everything (history_release()). Loaders
 * fail with one error() line naming the run or the directory.
 */
#ifndef HARNESS_HISTORY_H
#define HARNESS_HISTORY_H

#include <stddef.h>

#include "model/knee.h"

struct sbuf;
struct view;

/* A value with its interval; has_ci 0: the value alone (no interval). */
struct hval {
	double v, lo, hi;
	int has_ci;
	size_t n;                /* windows behind it */
};

struct hist_run {
	char *id, *dir, *status;
	double created_at;
	char **commits;          /* [nimpls of the history], NULL when unrecorded */
};

/* One implementation in one run. */
struct hist_point {
	int present;             /* the run has this implementation */
	enum knee_kind knee_kind;
	struct hval knee;        /* req/s; interval as above */
	struct hval *cost;       /* [nrates]: us per request; n == 0: none */
	struct hval *mem;        /* [nrates]: MiB */
	struct hval *lat;        /* [nrates]: the SLO percentile, ms */
	double held_rps;         /* the highest rung the knee holds at; NAN: none */
	struct hval knee_lat;    /* the SLO percentile there, ms */
};

enum hist_metric { HM_KNEE, HM_COST, HM_MEMORY, HM_LATENCY };

struct hist_step {
	size_t run;              /* index of the run the step lands on */
	enum hist_metric metric;
	size_t rate;             /* index into rates (cost, memory) */
	double from, to;         /* the values of runs run-1 and run */
	int regression;          /* 1: worse (knee down, cost or memory up) */
	int confirmed;           /* the next run stays on the new side */
};

struct hist_impl {
	char *name;
	double *rates;           /* the fixed rates, ascending */
	size_t nrates;
	struct hist_point *points;   /* [nruns] */
	struct hist_step *steps;
	size_t nsteps, asteps;
};

struct history {
	char *spec;
	double margin_pct;       /* the newest run's compare.margin_pct (5) */
	double percentile;       /* the newest run's slo.percentile (99) */
	char *runs_dir;
	struct hist_run *runs;   /* oldest first */
	size_t nruns;
	struct hist_impl *impls;
	size_t nimpls;
	struct view *views;      /* [nruns]: each run, lean (view.h VIEW_LEAN) */
};

/* Which runs: those made from the spec (`run`, nightly: the default),
 * reruns of pull requests (a parent run), or both. */
enum history_kind { HISTORY_RUNS, HISTORY_RERUNS, HISTORY_ALL };

struct history_opts {
	const char *runs_dir;
	const char *spec;        /* NULL: the newest run's spec name */
	const char *impl;        /* NULL: every implementation */
	enum history_kind kind;
	const char *branch;      /* NULL: any; else the spec's or an impl's branch */
};

/* Read every run of the spec under runs_dir and compute the points and
 * the steps. 0, or -1 after error() (unreadable directory, no run of that
 * spec, no implementation of that name). */
int history_load(struct history *h, const struct history_opts *o);
void history_release(struct history *h);

/* The step rule on one series of intervals (exposed for tests): appends
 * to impl's steps. v[i] NULL or without an interval: no step at i. A step
 * also moves the value by more than margin (a fraction) of the level it
 * leaves. */
void history_steps(struct hist_impl *im, enum hist_metric m, size_t rate,
		   const struct hval *const *v, size_t n, double margin);

/* Writers (history_md.c, history_json.c, history_html.c): append one
 * whole document. */
void history_md(const struct history *h, struct sbuf *out);
char *history_json(const struct history *h);   /* malloc'd, ends with '\n' */
void history_html(const struct history *h, struct sbuf *out);

const char *history_metric_name(enum hist_metric m);   /* knee, cost, memory, latency */

#endif
