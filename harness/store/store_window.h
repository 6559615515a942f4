/*
 * store_window: a window of the run database as structs, written and read
 * through one column list per table (store_window.c). The runner writes a
 * window with store_window_update(); report, compare, audit, status and
 * the runner's own decisions read it back with store_windows_load(), by
 * column name. Adding a column is one migration (store_schema.c), one field
 * here and one line in the list.
 *
 * Ownership: every struct here owns its strings and blobs; the *_release()
 * functions free them. Loaders initialise their output (also on failure,
 * when it is empty) and fail with one error() line naming the database
 * file and sqlite's message: an error is never "no rows".
 */
#ifndef HARNESS_STORE_WINDOW_H
#define HARNESS_STORE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "gate/judge.h"   /* enum window_status */
#include "store/store.h"

/* windows.state */
enum window_state { WINDOW_PLANNED, WINDOW_RUNNING, WINDOW_DONE };

const char *window_state_name(enum window_state s);

/* One row of the windows table: every column. Counts read 0 when NULL;
 * reals NAN; texts and blobs NULL; tri-state ints -1. */
struct window_row {
	int64_t id;
	char *run_id;
	char *stage;                 /* ladder|refine|confirm|soak */
	int rung, block, slot;
	char *impl;
	double rate;                 /* offered (planned), req/s */
	enum window_state state;
	enum window_status status;   /* WINDOW_STATUS_NONE until done */
	char *reasons;               /* comma list, or NULL */
	int attempts;
	int warm;                    /* -1 unknown */
	double warmup_s, warmup_rate;
	double started_at, ended_at, duration_s;
	double offered_rps, achieved_rps;
	int64_t due, sent, completed, dropped;
	int64_t s2xx, s3xx, s4xx, s5xx, s_other;
	int64_t err_connect, err_reset, err_timeout, err_parse, err_other;
	int64_t err_unexpected;      /* completed but not what the request expects */
	char *protocol;              /* HTTP version(s) of the responses, or NULL */
	int64_t bytes_sent, bytes_received;   /* HTTP bytes, measured part */
	double p50_ms, p90_ms, p99_ms, p999_ms, max_ms;
	double service_p50_ms, service_p99_ms;
	double lateness_p50_ms, lateness_p99_ms, lateness_max_ms;
	double sched_lag_p99_ms, sched_lag_max_ms;
	int64_t host_void;           /* due requests the host held back (void) */
	struct store_blob latency_hist, service_hist, lateness_hist; /* hist_serialize() */
	double gen_cpu_s;
	char *acct_backend;          /* NULL: not accounted */
	double cpu_s, cpu_user_s, cpu_system_s;
	int has_throttle;            /* nr_throttled, throttled_usec not NULL */
	int64_t nr_throttled, throttled_usec;
	double anon_p50, anon_p99, anon_max;
	int has_mem_peak;
	int64_t mem_peak;
	char *mem_peak_scope;
	int has_oom;                 /* oom, oom_kill not NULL */
	int64_t oom, oom_kill;
	int has_majfault;
	int64_t pgmajfault;
	double sampler_cpu_s;
	double cpu_wait_s;           /* the arm's threads' run-queue wait over
					the window (account.h wait_s; schema
					19); NAN: not known */
	double acct_span_s;          /* the span the CPU accounting covered
					(account.h duration_s; schema 20);
					NAN: not known */
	double host_held_s;          /* of cpu_wait_s, what the host held
					(account.h held_s; schema 22) */
	double host_held_max_s;      /* one thread's longest host-held wait
					in one sample interval (held_max_s) */
	double foreign_cpu_s;        /* CPU the host gave others (schema 22);
					all three NAN: not known */
	double host_held_ref_s;      /* the median host_held_s of the arm's
					earlier windows at this stage and rate
					(runner_held.c); NAN: none */
	double host_wait_s;          /* the threads' whole wait as the held
					sampler saw it (held_wait_s) */
	int sut_exited;
	int has_replaces;            /* a replacement window (schema 7) */
	int64_t replaces;            /* the rejected window it replaces */
};

void window_row_init(struct window_row *w);
void window_row_release(struct window_row *w);
/* The column list of the windows table (for tests and the evidence map). */
const struct store_table *window_table(void);
/* The column list of a table this module owns (windows and its series),
 * or NULL. */
const struct store_table *store_window_table(const char *name);

/* blocks: the order of one block's windows, planned once. */
struct block_row {
	char *run_id, *stage;
	int rung, block;
	double rate;
	char *order_json;            /* impl names in run order */
};
int store_block_insert(struct store *st, const struct block_row *b);

/* A planned window: run_id, stage, rung, block, slot, impl, rate, state
 * and replaces inserted; w->id receives the new id. */
int store_window_insert(struct store *st, struct window_row *w);
/* A measured window (w->id): every column but the plan's (run_id, stage,
 * rung, block, slot, impl, rate) and attempts. */
int store_window_update(struct store *st, const struct window_row *w);
/* Set window id's state; bump: attempts + 1 as well. */
int store_window_set_state(struct store *st, int64_t id, enum window_state state, int bump);
/* Every `running` window of the run back to `planned` (resume). */
int store_windows_unrun(struct store *st, const char *run_id);

struct window_query {
	const char *stage;           /* NULL: any */
	const char *impl;            /* NULL: any */
	int done_only;               /* state = done */
	int with_hists;              /* load the three histogram blobs */
	int block;                   /* with by_block */
	int by_block;
};

struct window_rows {
	struct window_row *v;
	size_t n;
};

/* Run run_id's windows matching q (NULL: all), ordered by id. */
int store_windows_load(struct store *st, const char *run_id, const struct window_query *q,
		       struct window_rows *out);
/* One window by id; -1 after error() when there is none. */
int store_window_load(struct store *st, int64_t id, int with_hists, struct window_row *out);
void window_rows_release(struct window_rows *r);

/* ----------------------------------------------------- a window's series */

/* seconds: one row per second of a phase (warmup|discard|measured). */
struct window_second {
	int64_t window_id;
	char *phase;
	int idx;
	double rate;
	int64_t due, sent, completed, errors, dropped, s4xx, s5xx, s_other;
	int64_t unexpected;          /* completed but not what the request expects */
	double p50_ms, p99_ms, p999_ms, max_ms;   /* NAN when none completed */
	double lateness_p99_ms, sched_lag_p99_ms;
	struct store_blob hist;
};

/* window_requests: per workload request name and phase (warmup|measured). */
struct window_request {
	int64_t window_id;
	char *phase, *name;
	int64_t sent, completed, errors;   /* errors: transport errors */
	int64_t unexpected;
	double p99_ms;
	struct store_blob hist;
};

/* unexpected_samples: the first responses of a window phase that were
 * not what their request expects. */
struct unexpected_row {
	int64_t window_id;
	char *phase;
	int seq;
	char *name;
	int status;
	char *why;
	struct store_blob body;      /* the body's first bytes; empty when not read */
};

/* acct_samples */
struct acct_sample_row {
	int64_t window_id;
	double t_ms, anon_bytes, cpu_s;
};

/* window_deps: one dependency over a window's measured part. */
struct window_dep_row {
	int64_t window_id;
	char *name;
	char *cpus;                  /* the cpus it ran on, or NULL */
	double ncpus;                /* cores it may use */
	double duration_s, cpu_s;
	int has_throttle;            /* nr_throttled, throttled_usec not NULL */
	int64_t nr_throttled, throttled_usec;
	int has_oom;
	int64_t oom_kill;
	double anon_max;             /* bytes, NAN unknown */
	int exited;
	double demand_rps;           /* stats.demand's rate (schema 14); NAN none */
	double ceiling_rps;          /* its measured ceiling, same unit; NAN none */
	/* schema 18: its stats command's start and end (unix seconds) for
	 * the reading before the load (first) and after the drain (last);
	 * NAN none. demand_rps spans the two readings' middles. */
	double stats_first_start, stats_first_end, stats_last_start, stats_last_end;
};

/* window_idle: an arm, or a dependency the window's implementation does
 * not use, idle over a window's measured part (runner_freeze.c). */
struct window_idle_row {
	int64_t window_id;
	char *name;                  /* the arm, or "dep-<name>" */
	char *kind;                  /* implementation | dependency */
	char *frozen;                /* the freezer that held it ("cgroup1
					freezer", "cgroup2 cgroup.freeze"),
					or NULL: left running, measured */
	double duration_s;
	double cpu_s;                /* NAN unknown */
};

/* window_resets: one reset command run before a window. */
struct window_reset_row {
	int64_t window_id;
	char *name;                  /* the implementation or dependency */
	char *kind;                  /* implementation | dependency */
	double duration_s;
	int exit_code;               /* -1: did not exit on its own */
	char *detail;                /* why, when it failed, or NULL */
};

/* rtstats: one signal's value at one poll. */
struct rtstat_row {
	int64_t window_id;
	char *phase;
	double t_s;
	char *signal, *key;          /* signal "" for a failed poll; key NULL */
	double value;                /* NAN: missing or not a number */
	char *error;
};

/* gate_results */
struct gate_row {
	int64_t window_id;
	char *phase;                 /* warmup | window */
	char *gate;
	char *status;                /* pass | fail | not_evaluable */
	int enforced;
	char *stat_name;
	double statistic, threshold;
	char *evidence;
	int evaluations;             /* -1 unknown */
};

/* events */
struct event_row {
	int64_t id;
	char *run_id;
	int has_window;
	int64_t window_id;
	double t;
	char *kind, *detail;
};

struct window_seconds { struct window_second *v; size_t n; };
struct window_requests { struct window_request *v; size_t n; };
struct acct_samples { struct acct_sample_row *v; size_t n; };
struct rtstat_rows { struct rtstat_row *v; size_t n; };
struct gate_rows { struct gate_row *v; size_t n; };
struct event_rows { struct event_row *v; size_t n; };
struct unexpected_rows { struct unexpected_row *v; size_t n; };
struct window_dep_rows { struct window_dep_row *v; size_t n; };
struct window_reset_rows { struct window_reset_row *v; size_t n; };
struct window_idle_rows { struct window_idle_row *v; size_t n; };

/* Writers (one row each; inside the caller's transaction). */
int store_second_insert(struct store *st, const struct window_second *r);
int store_request_insert(struct store *st, const struct window_request *r);
int store_acct_sample_insert(struct store *st, const struct acct_sample_row *r);
int store_rtstat_insert(struct store *st, const struct rtstat_row *r);
int store_gate_insert(struct store *st, const struct gate_row *r);
int store_unexpected_insert(struct store *st, const struct unexpected_row *r);
int store_window_dep_insert(struct store *st, const struct window_dep_row *r);
int store_window_reset_insert(struct store *st, const struct window_reset_row *r);
int store_window_idle_insert(struct store *st, const struct window_idle_row *r);

/*
 * Loaders. `wid` >= 0: that window's rows; wid < 0: every window of
 * run_id. phase NULL: every phase. Ordered by window, then the series'
 * own order (idx, insertion, t_ms). with_hists: load the histogram blobs.
 */
int store_seconds_load(struct store *st, const char *run_id, int64_t wid, const char *phase,
		       int with_hists, struct window_seconds *out);
int store_requests_load(struct store *st, int64_t wid, const char *phase,
			struct window_requests *out);
int store_acct_samples_load(struct store *st, const char *run_id, int64_t wid,
			    struct acct_samples *out);
int store_rtstats_load(struct store *st, int64_t wid, const char *phase,
		       struct rtstat_rows *out);
int store_gates_load(struct store *st, const char *run_id, int64_t wid,
		     struct gate_rows *out);
/* Events of the run (wid >= 0: of that window only), ordered by id. */
int store_events_load(struct store *st, const char *run_id, int64_t wid,
		      struct event_rows *out);

void window_seconds_release(struct window_seconds *r);
void window_requests_release(struct window_requests *r);
void acct_samples_release(struct acct_samples *r);
void rtstat_rows_release(struct rtstat_rows *r);
void gate_rows_release(struct gate_rows *r);
void event_rows_release(struct event_rows *r);
/* One window's unexpected-response samples, by phase then seq. */
int store_unexpected_load(struct store *st, int64_t wid, struct unexpected_rows *out);
void unexpected_rows_release(struct unexpected_rows *r);
/* Dependencies' rows of window wid (wid < 0: every window of run_id),
 * ordered by window, then as stored: the spec's declared order. */
int store_window_deps_load(struct store *st, const char *run_id, int64_t wid,
			   struct window_dep_rows *out);
void window_dep_rows_release(struct window_dep_rows *r);
/* Resets run before window wid (wid < 0: every window of run_id), ordered
 * by window, then as run. */
int store_window_resets_load(struct store *st, const char *run_id, int64_t wid,
			     struct window_reset_rows *out);
void window_reset_rows_release(struct window_reset_rows *r);
/* The idle arms' and dependencies' rows of window wid (wid < 0: every
 * window of run_id), ordered by window, then as stored. */
int store_window_idle_load(struct store *st, const char *run_id, int64_t wid,
			   struct window_idle_rows *out);
void window_idle_rows_release(struct window_idle_rows *r);

#endif
