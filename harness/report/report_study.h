/*
 * report_study: what a study's write-up quotes beyond knees and cost, one
 * section per file, each with its own roll-up and its rendering in every
 * format (the report's blocks for md and html, report.json, study.csv):
 *
 *   report_signals.c   derived signals (stats.signals "= EXPR",
 *                      sigexpr.h) per implementation per rung: mean and
 *                      range across valid windows, and a chart
 *   report_memory.c    memory both ways: steady state (anon p99) and the
 *                      high-water mark (the cgroup's peak), with the ratio
 *                      of each implementation's to the first's
 *   report_receipts.c  run-wide totals of every measured window: requests
 *                      due and answered, by status class, unexpected,
 *                      transport errors, dropped; throttled windows, OOM
 *                      kills; pre-flight cases passed; and the paragraph
 *                      closing the summary
 *
 * Ownership: struct report_study belongs to its struct report (r->study),
 * freed by report_study_free(); every string in it is owned, except the
 * stage names borrowed from r->windows.
 */
#ifndef HARNESS_REPORT_STUDY_H
#define HARNESS_REPORT_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct report;
struct rdoc;
struct sbuf;
struct spec;
struct store;

/* A derived signal as declared (copied from the stored spec): an
 * implementation's (impl set: over its polls, table rtstats) or a
 * dependency's (dep set, impl NULL; name "DEP.SIGNAL": over its stats
 * command's two readings around each window's load, table
 * window_dep_stats, for every implementation's windows). */
struct report_sigdef {
	char *impl, *dep, *name, *expr;
	char **polled;               /* its implementation's polled signals' names;
					NULL for a dependency's (any counter) */
	size_t npolled;
};

/* One derived signal of one implementation at one rung. */
struct report_sigrung {
	int impl;                    /* index into r->impls */
	const char *stage;           /* borrowed from r->windows */
	double rate;
	const char *name;            /* borrowed from sigdefs */
	int ord;                     /* its first declaration's index: the table's order */
	size_t windows;              /* valid windows (accepted or failed) */
	size_t accepted, failed;     /* of windows */
	size_t computed;             /* of them with a value */
	double mean, lo, hi;         /* over those; NAN none */
	char *why;                   /* the first reason a window had none, or NULL */
};

/* Memory of one implementation at one rung. */
struct report_memrung {
	int impl;
	const char *stage;
	double rate;
	size_t windows;              /* accepted windows: what both figures rest on */
	size_t failed;               /* failed windows of the rung, left out */
	double steady;               /* bytes: anon p99 of the rung (report_rung.anon_p99) */
	double peak;                 /* bytes: the highest cgroup peak of the rung's windows */
	const char *peak_scope;      /* "window" | "lifetime" | NULL (static) */
	double steady_ratio, peak_ratio;  /* to the first implementation's at the
					     same stage and rate; NAN without */
};

struct report_receipts {
	size_t windows;              /* measured (done) windows */
	int64_t due, sent, answered, dropped;
	int64_t status[5];           /* 2xx 3xx 4xx 5xx other */
	int64_t unexpected;          /* answered, not what the request expects */
	int64_t err_connect, err_reset, err_timeout, err_parse, err_other;
	size_t throttled_windows;    /* windows with CFS throttling; */
	int throttle_known;          /* 0: no backend gave throttling */
	int64_t oom_kills;           /* -1: no backend gave OOM counts */
	size_t sut_exits;            /* windows in which the implementation died */
	int preflight_cases, preflight_passed;  /* -1: none recorded */
	size_t accepted, failed, rejected;
};

/* A dependency's measured ceiling (dependencies[].ladder) beside the
 * demand the windows put on it (dependencies[].stats.demand). */
struct report_depceil {
	char *dep;
	size_t rungs;
	double ceiling;              /* the most achieved; NAN none */
	int in_demand;               /* ceiling in stats.demand's unit (else the command's) */
	double kept_rate;            /* the highest offered rate kept up with; NAN none
					(a closed-loop run: NAN) */
	int closed_loop;
	double peak_demand;          /* the highest window's demand; NAN none */
	const char *peak_stage;      /* borrowed from the windows */
	double peak_rate;
	int peak_impl;
	size_t windows;              /* windows with a demand */
};

/* A statement's cost to a dependency, per implementation: the increase
 * of its stats output's "time:STMT" and "calls:STMT" over the windows of
 * that implementation (its own windows: the others were frozen or idle). */
struct report_depstmt {
	const char *dep;             /* borrowed from depceil or the view */
	int impl;
	char *stmt;
	double ms, calls;
	size_t windows;
};

/* Any other counter of a dependency's stats output, summed per
 * implementation and rung over valid windows (redis INFO's
 * keyspace_hits, keyspace_misses: the cache's own hit rate). */
struct report_depcounter {
	const char *dep;
	int impl;
	const char *stage;
	double rate;
	char *key;
	double delta;
	size_t windows;
};

/* A dependency whose stats command failed in windows (events
 * dep_stats_failed, runner_depstats.c): those windows have no demand,
 * statement cost or signal from it. */
struct report_depfail {
	const char *dep;             /* borrowed from depnames */
	size_t failures;             /* failed readings */
	size_t windows;              /* distinct windows they were in */
};

struct report_study {
	struct report_sigdef *sigdefs;
	size_t nsigdefs;
	struct report_sigrung *sigrungs;
	size_t nsigrungs;
	struct report_memrung *memrungs;
	size_t nmemrungs;
	int has_peak;                /* some window has a cgroup peak */
	struct report_receipts receipts;
	struct report_depceil *depceil;
	size_t ndepceil;
	struct report_depstmt *depstmt;
	size_t ndepstmt;
	struct report_depcounter *depctr;
	size_t ndepctr;
	struct report_depfail *depfail;
	size_t ndepfail;
	char **depnames;             /* owned: the names depstmt, depctr and depfail borrow */
	size_t ndepnames;
};

/* report.c: the declarations from the stored spec (sp may be NULL). */
struct report_study *report_study_new(const struct spec *sp);
/* After report_rollup: every section's roll-up. 0, or -1 after an error(). */
int report_study_load(struct report *r, struct store *st);
void report_study_free(struct report_study *s);

/* The sections (each file's entry points). */
int report_signals_load(struct report *r, struct store *st);
void rdoc_signals(const struct report *r, struct rdoc *d);
json_t *report_signals_json(const struct report *r);
void report_signals_csv(const struct report *r, struct sbuf *out);
void report_chart_signals(const struct report *r, const char *title, struct sbuf *out);

int report_memory_load(struct report *r);
void rdoc_memory(const struct report *r, struct rdoc *d);
json_t *report_memory_json(const struct report *r);
void report_memory_csv(const struct report *r, struct sbuf *out);

int report_receipts_load(struct report *r);
void rdoc_receipts(const struct report *r, struct rdoc *d);        /* the table */
void rdoc_receipts_paragraph(const struct report *r, struct rdoc *d); /* the summary's end */
json_t *report_receipts_json(const struct report *r);
void report_receipts_csv(const struct report *r, struct sbuf *out);

int report_depstudy_load(struct report *r, struct store *st);
void rdoc_depstudy(const struct report *r, struct rdoc *d);
/* Adds "ceiling" and "statements" to each of deps' (report.json's
 * dependencies) objects, by name. */
void report_depstudy_json(const struct report *r, json_t *deps);
void report_depstudy_csv(const struct report *r, struct sbuf *out);
void report_depstudy_free(struct report_study *s);

/* study.csv: one row per figure of these sections, long form:
 * section,impl,stage,rate_rps,name,value,lo,hi,windows,detail */
void report_study_csv(const struct report *r, struct sbuf *out);
void report_study_csv_row(struct sbuf *out, const char *section, const char *impl,
			  const char *stage, double rate, const char *name, double value,
			  double lo, double hi, long long windows, const char *detail);

#endif
