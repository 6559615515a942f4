/*
 * report: a run's roll-ups, read from its database into an in-memory model
 * that every output format (md, html + svg, json, csv) renders.
 *
 * Rules the numbers follow (docs/DESIGN.md, "Definitions that must be exact"):
 *   - only accepted windows (windows.status = 'accepted') feed a roll-up,
 *     and every roll-up carries its counts (accepted / total, and why the
 *     others were rejected);
 *   - percentiles across windows come from MERGED histograms, never from
 *     averaged percentiles, with order-statistic confidence intervals;
 *   - cost per request is sum(cpu_s) / sum(completed) over accepted windows,
 *     always printed with its rate;
 *   - knees are per implementation (harness/model/knee.h over the valid ladder,
 *     refine and confirm windows: failed windows are evidence above the
 *     SLO), with a bootstrap interval labelled non-inferential when a
 *     bracketing rung holds fewer valid windows than the spec's confirm.reps;
 *   - paired verdicts pair two implementations' windows of the same block
 *     only when both were accepted.
 *
 * A window's "errors" are every request that was due and did not get the
 * answer its request expects: unexpected responses (by default any status
 * but 2xx/3xx; workload.requests[].expect) + transport errors (connect,
 * reset, timeout, parse, other) + dropped (backlog full). Its "requests"
 * are the requests due in the measured window.
 *
 * The run itself (its record, spec, windows, cells and knees) is the view
 * (view.h) the report loads and owns: struct report's strings, windows,
 * cells and knees point into it. Ownership: struct report owns everything
 * it points to, the view included; report_release() frees it. The writers append to a caller's sbuf and never fail (they
 * only format); report_write_files() / report_write_run() write the files.
 */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/cells.h"
#include "base/hist.h"
#include "model/view.h"
#include "model/run_quality.h"
#include "model/knee.h"
#include "stat/stat.h"

struct sbuf;

/* report_csv.c: one CSV cell, RFC 4180 quoting (NULL is the empty cell);
 * report_csv_num: a comma, then the number (%.10g; nothing when not
 * finite). study.csv's rows write through the same two. */
void report_csv_field(struct sbuf *out, const char *s);
void report_csv_num(struct sbuf *out, double v);
struct store;
struct spec;

struct report_kv {
	char *key;
	char *value;
};

/* A reason (gate name, sut_exited, under_warmed, ...) and how many
 * windows it rejected (void) and failed (a valid measurement over the SLO:
 * an outcome gate); `recorded` counts failures of gates with enforce: false
 * (recorded, not rejecting). */
struct report_reason {
	char *name;
	size_t rejected;
	size_t recorded;
	size_t failed;
};

/* CPU per request as people read it: microseconds, the unit compare, load
 * and history print (docs/DESIGN.md, "Units"). The structs keep
 * milliseconds, the unit of report.json's cpu_ms_per_req keys; every text,
 * table and chart converts with this. */
#define REPORT_CPU_US(ms) ((ms) * 1e3)

/* A percentile read from a merged histogram, with its interval. */
struct report_pct {
	double ms, lo_ms, hi_ms;     /* NAN when no data */
	double coverage;             /* the interval's real coverage; below the
					level when too few requests for the percentile */
};

/* One request name over a rung's accepted windows. */
struct report_rreq {
	char *name;
	double slo_ms;               /* 0: no promise of its own */
	uint64_t completed, unexpected;
	struct report_pct p50, p99, pslo;   /* merged histograms */
	size_t windows, over;        /* accepted windows with it; of them over its slo_ms */
};

/* One (implementation, stage, rate) group of windows. */
struct report_rung {
	int impl;                    /* index into report.impls */
	const char *stage;           /* "ladder" | "confirm" | "soak" | other */
	double rate;
	int rung;
	size_t total, accepted, not_done;
	size_t failed;               /* of total: failed (the rest not accepted: rejected) */
	struct report_reason *reasons;  /* why the others were failed or rejected */
	size_t nreasons;
	uint64_t requests, completed;   /* sums over accepted windows */
	struct report_pct p50, p99, p999, pslo;  /* merged histograms */
	double mean_pslo_ms;         /* count-weighted mean of windows' pslo (knee input) */
	double fit_ms;               /* ladder: isotonic fit of mean_pslo (NAN otherwise) */
	double cpu_ms_per_req;       /* sum cpu / sum completed; NAN without accounting */
	double anon_p99;             /* bytes, p99 of pooled samples (or max of windows' p99) */
	double worst_pslo_ms;        /* worst accepted window */
	size_t under_slo;            /* accepted windows holding the promise: pslo <= threshold
					and every request within its own slo_ms (knee_ms) */
	struct report_rreq *reqs;    /* per request name, in first-seen order */
	size_t nreqs;
};

/* An implementation's knee as the formats print it: a summary of its
 * knee_result (knee.h), filled by report_rollup.c. */
struct report_knee {
	int crossed;         /* the fit reaches the SLO */
	int at_first_rung;   /* crossed already at the first rung: knee <= it */
	double knee_rps;     /* NAN when !crossed */
	double highest_rung_rps;
	size_t rungs;        /* rungs with at least one valid window */
	size_t lo, hi;       /* indices (into the used rungs) bracketing the knee */
};

/* The knee's bootstrap interval (knee.h: knee_result's ci_*). */
struct report_knee_ci {
	double lo, hi;       /* percentile interval of the knee (rps) */
	size_t nboot;        /* resamples */
	size_t ncrossed;     /* resamples that crossed (others: no knee) */
	int inferential;     /* both bracketing rungs have >= min_reps windows */
};

struct report_impl {
	const char *name;            /* these strings: the view's */
	int ord;
	const char *repo, *commit, *branch, *diff_hash, *ref_asked, *remote_url, *baseline_of;
	int dirty;                   /* -1 unknown */
	double run_knee_rps;         /* impls.knee_rps: what the run used for confirm/soak */
	int run_knee_crossed;        /* -1 unknown */
	size_t total, accepted, not_done;
	size_t failed;               /* of total: failed (the rest not accepted: rejected) */
	struct report_reason *reasons;  /* over all stages */
	size_t nreasons;
	int has_knee;                /* some valid ladder/refine/confirm window */
	const struct knee_result *kres;  /* the knee (knee.h, the view's): point,
					    bracket or floor */
	struct report_knee knee;     /* kres's summary (knee_rps = bracket's hi) */
	struct report_knee_ci knee_ci;
	int has_knee_ci;
	double cpu_cv;               /* CV of ladder rungs' CPU ms/request (NAN < 2 rungs) */
	size_t cpu_cv_rungs;
};

/* impl / base at the same stage and rate. */
struct report_ratio {
	const char *stage;
	double rate;
	int impl, base;
	double pslo, cpu, anon;      /* NAN when a side is missing */
	/* conservative intervals of pslo and cpu (report_ratio.c), NAN none */
	double pslo_lo, pslo_hi, cpu_lo, cpu_hi;
};

struct report_verdict {
	const char *stage;
	double rate;
	int a, b;                    /* impl indices; difference is a - b */
	const char *metric;          /* "p99_ms" (the SLO percentile) | "cpu_ms_per_req" */
	size_t blocks;               /* blocks in which both ran */
	double margin;               /* absolute, in the metric's unit */
	double mean_a, mean_b;       /* over the pairs */
	struct diff_ci ci;           /* ci.mean: the shift by the method */
	enum stat_method method;     /* compare.interval; the sequence for a
					sequential confirm stage */
	double p, p_adj;             /* two-sided p of a difference; Holm-
					adjusted over the report's verdicts
					(= p with correction none); NAN untested */
	size_t family;               /* verdicts tested (the correction's family) */
	double mde;                  /* minimum detectable |A - B|, 80 % power,
					two-sided at (1 - level) / family; +inf
					when n cannot reach it; NAN untested */
	double *xa, *xb;             /* the pairs, only while building */
};

/* One dependency over one measured window (window_deps). */
struct report_dep {
	char *name;
	int64_t window_id;
	double ncpus, duration_s, cpu_s;
	int64_t nr_throttled;        /* -1: the backend gives none */
	int64_t oom_kill;            /* -1: the backend gives none */
	double anon_max;             /* bytes; NAN unknown */
	int exited;
};

/* One dependency at one rung (stage, rate) over its measured windows. */
struct report_dep_rung {
	const char *stage;           /* borrowed from the windows */
	double rate;
	size_t windows, exited;
	size_t measured;             /* windows with a CPU figure */
	double cores_mean;           /* mean over those of cpu_s / duration_s; NAN none */
	double ncpus;                /* the cores it may use (its cpus, else every online cpu) */
	double peak_pct;             /* highest window's cores / ncpus, in %; NAN unknown */
	int64_t throttled;           /* CFS periods summed; -1: the backend gives none */
	int64_t oom_kills;           /* summed; -1: the backend gives none */
	double anon_max;             /* highest window's anonymous memory, bytes; NAN */
};

/* One dependency over the run (report_deps.c): its version output, its
 * allotment, its peak window against that allotment, and its rungs. */
struct report_dep_sum {
	const char *name;            /* borrowed from dep_rows */
	const char *version;         /* its version output, or NULL (borrowed) */
	double ncpus;
	double peak_pct, peak_cores; /* the highest window; NAN none measured */
	const char *peak_stage;      /* where it was (borrowed), NULL none */
	double peak_rate;
	int64_t peak_window;
	size_t windows, exited;
	int64_t throttled;           /* -1: not counted */
	int64_t oom_kills;           /* -1: not counted */
	double anon_max;             /* bytes over the run; NAN unknown */
	struct report_dep_rung *rungs;  /* in the order of first appearance */
	size_t nrungs;
};

/* stages.saturation per implementation over its reps (report_saturation.c):
 * a closed loop, never a knee or a window. */
struct report_sat {
	const char *impl;            /* borrowed from the rows */
	size_t reps;
	int connections;
	double rps_med, rps_min, rps_max;   /* throughput over the reps */
	double p50_ms, p90_ms, p99_ms, p999_ms, max_ms; /* service time, reps merged */
	double cpu_ms_per_req;       /* the implementation's CPU / requests; NAN unknown */
	double gen_cpu_max;          /* the busiest rep's generator CPU, % of its cores */
	int64_t requests, errors;
	size_t exited;               /* reps in which it exited */
};

/* The footprint of an implementation over its starts (report_footprint.c):
 * measured before any load, not part of the cost at load. */
struct report_fp {
	const char *impl;            /* borrowed from the rows */
	size_t starts;
	double startup_med, startup_min, startup_max;   /* ms; NAN none */
	double rss_med, rss_min, rss_max;               /* bytes; NAN none */
	double pss_med, pss_min, pss_max;               /* bytes; NAN none */
	double artifact_bytes;       /* the last start's reading; NAN none */
};

struct report_event {
	char *kind;
	size_t count;
};

struct report {
	struct view view;            /* the run (view.h), owned */
	/* provenance (the view's strings) */
	const char *run_id, *spec_name, *spec_path, *spec_hash, *stages, *status, *failure;
	const char *run_harness_version, *parent_run, *sandbox_user;
	const char *spec_repo, *spec_commit, *spec_branch;
	int spec_dirty;              /* -1 unknown */
	int exploratory, forced;
	int preflight_cases, preflight_passed;  /* -1: no pre-flight recorded */
	const char *preflight;       /* its summary, then the failing cases, or NULL */
	uint64_t seed;
	double created_at, finished_at;
	const char *report_version;  /* this binary's harness_version */
	struct report_kv *host;      /* the array is the report's, the strings the view's */
	size_t nhost;
	struct report_event *events;
	size_t nevents;
	/* version output of dependencies and implementations (events
	 * dep_version, impl_version: key "dependency NAME" or
	 * "implementation NAME", value the output; dep_image, impl_image:
	 * "... NAME (image)", a container's image in full), and each dependency's
	 * accounting per measured window (table window_deps, schema 9) */
	const struct view_version *versions;   /* the view's */
	size_t nversions;
	struct report_dep *dep_rows;
	size_t ndep_rows;
	struct report_dep_sum *deps; /* dep_rows rolled up per dependency (report_deps.c) */
	size_t ndeps;
	/* stages.saturation (table saturation) and each start's footprint
	 * (table footprint), rolled up per implementation in the order of
	 * impls (report_saturation.c, report_footprint.c) */
	struct saturation_row *sat_rows;
	size_t nsat_rows;
	struct report_sat *sat;
	size_t nsat;
	struct footprint_row *fp_rows;
	size_t nfp_rows;
	struct report_fp *fp;
	size_t nfp;

	/* from the stored spec (defaults, slo_ms NAN, when spec_ok is 0) */
	int spec_ok;
	char *const *req_names;      /* the workload's request names and their slo_ms (the view's) */
	const double *req_slo_ms;
	size_t nreq_names;
	int any_req_slo;
	double slo_pct, slo_ms, error_rate_max;
	char slo_label[16];          /* "p99", "p99.9", ... */
	size_t min_reps;             /* confirm.reps (ladder.reps without confirm) */
	double margin_pct, level;    /* compare.margin_pct, 1 - compare.alpha */
	int interval, correction;    /* compare.interval, compare.correction */
	int sequential;              /* confirm.until: the confirm stage's verdicts
					by the confidence sequence */
	double cs_t_star;            /* its tuning n (confirm.reps) */
	unsigned metrics;            /* compare.metrics bit set */
	size_t nboot;

	struct report_impl *impls;
	size_t nimpls;
	const struct view_window *windows;  /* the view's, ordered by id */
	size_t nwindows;
	struct report_rung *rungs;   /* by impl, stage (ladder, confirm, soak), rate */
	size_t nrungs;
	struct report_ratio *ratios;
	size_t nratios;
	struct report_verdict *verdicts;
	size_t nverdicts;
	struct run_quality quality;  /* counts by status, top rejecting gate, load */
	const struct cells *cells;   /* the view's: stage x rate x impl */
	double ref_rps;              /* the summary's reference rate (report_rollup.c); NAN none */
	double spectrum_rps;         /* percentile_spectrum's ladder rung, chosen
					(report_spectrum_choose); NAN: the default */
	struct report_reason *gate_fails; /* per gate over all impls (html chart) */
	size_t ngate_fails;
	size_t total, accepted, not_done;
	/* signals, memory steady and peak, receipts (report_study.h) */
	struct report_study *study;
};

/* Read RUN's database (opened with store_open_run) and compute every
 * roll-up. Fails with an error() naming the database or the stored spec. */
int report_load(struct report *r, struct store *st, const char *run_id);
void report_release(struct report *r);
/* report_rollup.c, for report_load: compute the roll-ups of the windows
 * report.c read into r. 0, or -1 after an error(). */
int report_rollup(struct report *r);
/* report_deps.c, for report_load: r->deps from r->dep_rows, r->windows
 * and r->versions; report_deps_release frees them. */
void report_deps_rollup(struct report *r);
void report_deps_release(struct report *r);
/* report_saturation.c and report_footprint.c, for report_load: their
 * tables read and rolled up (0, or -1 after an error()); _release frees
 * them. _json: their report.json arrays (a jansson json_t *, new). */
struct store;
int report_saturation_load(struct report *r, struct store *st);
void report_saturation_release(struct report *r);
void *report_saturation_json(const struct report *r);
int report_footprint_load(struct report *r, struct store *st);
void report_footprint_release(struct report *r);
void *report_footprint_json(const struct report *r);
/* their rows of study.csv (report_study.h's long form), appended to out */
void report_saturation_csv(const struct report *r, struct sbuf *out);
void report_footprint_csv(const struct report *r, struct sbuf *out);
/* report_chart_spectrum.c: the ladder rate percentile_spectrum draws:
 * the one chosen, else the reference rate, else the lowest ladder rung
 * with an accepted window; NAN none. report_spectrum_choose sets the
 * choice: -1 after an error() listing the ladder rungs when no
 * implementation has an accepted ladder window at rate. */
double report_spectrum_rate(const struct report *r);
int report_spectrum_choose(struct report *r, double rate);
/* report_ratio.c: (re)build r->ratios for the pairs "A/B[,C/D...]"
 * (implementation names), or NULL: every implementation over the first;
 * each at every stage and rate where both sides have accepted windows,
 * with its intervals. -1 after an error() naming an unknown
 * implementation or a malformed pair (r->ratios then unchanged). */
int report_ratios(struct report *r, const char *pairs);

/* Reasons a window was rejected, per impl or per rung; NULL when absent. */
const struct report_reason *report_reason_find(const struct report_reason *v, size_t n,
						const char *name);

/* The files, by format bit. */
enum report_format {
	REPORT_MD = 1,        /* report.md */
	REPORT_HTML = 2,      /* report.html */
	REPORT_JSON = 4,      /* report.json */
	REPORT_CSV = 8,       /* windows.csv */
	REPORT_HGRM = 16,     /* hgrm/IMPL_STAGE_RATErps.hgrm (report_hgrm.c) */
	REPORT_ALL = 31,
};
const char *report_file_name(unsigned format);   /* one bit -> "report.md" ... */
/* mkdir -p dir, then write each chosen file atomically; -1 after an
 * error() naming the file. */
int report_write_files(const struct report *r, const char *dir, unsigned formats);
/* report_load + report_write_files + report_release: e.g. a run's end
 * writing runs/<id>/report/. */
int report_write_run(struct store *st, const char *run_id, const char *dir, unsigned formats);

/* hgrm (report_hgrm.c): each rung's merged accepted windows in
 * HdrHistogram's percentile-distribution text, one file per rung with
 * accepted windows under DIR/hgrm/; -1 after an error() naming the file.
 * report_hgrm_path appends the file name of rung g, report_hgrm_rung its
 * text. */
int report_write_hgrm(const struct report *r, const char *dir);
void report_hgrm_path(const struct report *r, const struct report_rung *g, struct sbuf *out);
void report_hgrm_rung(const struct report *r, const struct report_rung *g, struct sbuf *out);

/* The writers: each appends one whole file to out. */
void report_md(const struct report *r, struct sbuf *out);
void report_html(const struct report *r, struct sbuf *out);
void report_json(const struct report *r, struct sbuf *out);
void report_csv(const struct report *r, struct sbuf *out);

/* The charts of report.html, one inline <svg> each (report_svg.c). */
size_t report_nchart(void);
const char *report_chart_title(size_t i);
const char *report_chart_name(size_t i);     /* its data-chart="NAME" */
void report_chart(const struct report *r, size_t i, struct sbuf *out);

/* Formatting helpers shared by the writers. */
const char *report_stamp(const struct report *r);  /* "" or "EXPLORATORY..." */
void report_fmt_num(struct sbuf *out, double v, int prec); /* NAN -> "-" */
void report_fmt_sig(struct sbuf *out, double v);          /* 3 significant figures */
void report_fmt_time(struct sbuf *out, double unix_s);    /* UTC */
void report_fmt_mib(struct sbuf *out, double bytes);
void report_fmt_rate(struct sbuf *out, double rps);
void report_fmt_knee(struct sbuf *out, const struct report_impl *im);
void report_fmt_knee_ci(struct sbuf *out, const struct report *r, const struct report_impl *im);
/* A window's status as a reader should read it: "valid, over SLO" for an
 * accepted window whose SLO percentile is above the threshold (a valid
 * measurement that does not hold the promise), else status itself. */
const char *report_wstatus_words(const struct report *r, const char *status, double pslo_ms);
/* The highest rate impl is known to hold the SLO at: the knee (a point),
 * a bracket's low end, INFINITY for a floor (held at every valid rung),
 * NAN without a knee. */
double report_hold_rps(const struct report_impl *im);
/* impl's ladder rung at rate, or NULL. */
const struct report_rung *report_ladder_rung(const struct report *r, int impl, double rate);
const char *report_dirty_text(int dirty);                 /* clean|dirty|unknown */
const char *report_verdict_text(const struct report *r, const struct report_verdict *v,
				char *buf, size_t len);

#endif
