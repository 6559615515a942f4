/*
 * gate: the interface every gate in gates/ implements, and the registry.
 *
 * A gate is a pure function of a struct gate_input (data the runner
 * measured and stored) and its spec parameters, returning pass / fail /
 * not_evaluable with its statistic, threshold and a short evidence string.
 * Pure matters: `harness audit --recheck` rebuilds the input from the run
 * database and must reach the same verdict.
 *
 * A gate that lacks the data it needs (no stats endpoint, a missing signal,
 * an accounting backend without that figure, too few seconds) returns
 * GATE_NOT_EVALUABLE, never GATE_PASS. What the runner does with
 * not_evaluable is its policy (it rejects the window, and says so).
 *
 * Adding a gate: one file gates/<name>.c defining `const struct gate_def
 * gate_<name>` and one line in gates/registry.c.
 */
#ifndef HARNESS_GATE_H
#define HARNESS_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* One parameter value of a gate, as the spec gives it (struct kv: util.h). */
enum gate_value_type { GATE_VAL_NUM, GATE_VAL_BOOL, GATE_VAL_STR, GATE_VAL_MAP };
struct gate_value {
	char *key;
	enum gate_value_type type;
	double num;                     /* GATE_VAL_NUM, GATE_VAL_BOOL (0/1) */
	char *str;                      /* GATE_VAL_STR */
	struct kv *map;            /* GATE_VAL_MAP: key -> number as text */
	size_t nmap;
};

/* The parameters of one gate (the spec's `gates:` map), defaults filled
 * in by the spec parser; the spec owns them. */
struct gate_params {
	char *name;
	int enforce;                    /* default 1; 0 = record only */
	struct gate_value *values;
	size_t nvalues;
};

enum gate_status { GATE_PASS = 0, GATE_FAIL = 1, GATE_NOT_EVALUABLE = 2 };
const char *gate_status_name(enum gate_status s); /* "pass" | "fail" | "not_evaluable" */

enum gate_phase { GATE_PHASE_WARMUP = 1, GATE_PHASE_WINDOW = 2 };

/*
 * What a gate's failure means (gates/README.md, "Gate classes"), fixed in
 * the registry, never from the spec:
 *   validity: the measurement itself is void through no fault of the
 *             implementation (warm-up not reached, generator behind, CPU
 *             throttled by our own limits): the window is rejected.
 *   outcome:  the implementation failed the promise (errors, under-
 *             delivery while the generator kept its schedule, death, OOM,
 *             latency drifting upward): the window is failed, a valid
 *             measurement above the SLO.
 */
enum gate_class { GATE_VALIDITY = 0, GATE_OUTCOME = 1 };
const char *gate_class_name(enum gate_class c); /* "validity" | "outcome" */

/* One numeric runtime-stats signal over time (t in seconds from the start
 * of the phase). Polls where the signal was missing or not a number are
 * left out of t/v and counted in nmissing. */
struct gate_series {
	const char *signal;
	size_t n;
	const double *t;
	const double *v;
	size_t nmissing;
};

/* A signal whose value is an object of counters (per-request-name calls),
 * as read at the last successful poll. ok = 0 when never read. */
struct gate_counters {
	const char *signal;
	int ok;
	size_t n;
	const char *const *keys;
	const double *values;
};

/* One dependency (spec dependencies:) over the phase, from its own
 * cgroup (or process tree) like the implementation's accounting. */
struct gate_dep {
	const char *name;
	double ncpus;             /* cores it may use (its cpuset, else online cpus) */
	double duration_s;        /* the accounting window's length */
	double cpu_s;             /* CPU seconds it used over it */
	int has_throttle;
	uint64_t nr_throttled;
	int exited;               /* it exited (or was restarted) during the phase */
	/* Its demand over the phase (its stats.demand counter's rate) and
	 * the ceiling its ladder measured before the run, in the same unit
	 * (ops/s); NAN (or 0 from memset) when either is unknown. */
	double demand_rps, ceiling_rps;
};

/* An arm not being measured (or a dependency another arm uses and the
 * judged implementation does not) over the phase: frozen through it, or
 * left running where it could not be frozen; its CPU over the phase
 * either way (runner_freeze.c, gates/idle_arms_quiet.c). */
struct gate_idle {
	const char *name;         /* the arm, or "dep-<name>" */
	const char *kind;         /* "implementation" | "dependency" */
	const char *freezer;      /* what held it frozen through the phase
				     (account_freezer), NULL: left running */
	double duration_s;        /* the measured part's length */
	double cpu_s;             /* CPU seconds it used over it; NAN unknown */
};

/* A derived signal's value over the phase (stats.signals "= EXPR",
 * sigexpr.h): a per-window expression's value, or a per-poll one's mean
 * (a per-poll one is also among the series). NAN with why when it cannot
 * be computed. */
struct gate_derived {
	const char *signal;
	double value;
	const char *why;          /* static text, NULL when value is a number */
};

enum load_status_class { ST_2XX, ST_3XX, ST_4XX, ST_5XX, ST_CLASSES };

struct gate_input {
	enum gate_phase phase;
	/* What the gates need of the spec, as plain values (the gate module
	 * never reads the spec: spec.h depends on gate.h, not back). */
	const char *impl_name;       /* the implementation judged */
	double error_rate_max;       /* slo.error_rate_max (error_rate's default);
					NaN: none */
	double slo_ms;               /* the tightest latency promise: slo.threshold_ms
					and every request's slo_ms (generator's
					default lateness limit); NaN: none */
	double slo_percentile;       /* slo.percentile (99 by default); NaN: none */
	int generator_threads;       /* workload.threads (>= 1); with workload.generators,
					every agent's threads summed */

	/* Per-second latency series from the load engine (from intended send
	 * time). Warm-up: the trailing `trailing_s` seconds; window: the
	 * measured seconds. NaN for a second with no completion. */
	size_t nsec;
	const double *p99_ms;
	const double *p999_ms;

	/* Totals over the phase (warm-up: since the warm-up started). */
	double duration_s;
	double offered_rps;
	double achieved_rps;      /* answered / duration */
	uint64_t due;             /* requests the schedule made due (0: unknown):
				     the realized schedule, Poisson or constant,
				     each counted in the second it was due in */
	uint64_t answered;        /* completed (any status) within the phase's
				     seconds (a window's: not in its drain) */
	uint64_t sent, completed, errors, dropped;
	uint64_t status[ST_CLASSES];
	uint64_t status_other;    /* responses with a status outside 200..599 */
	uint64_t unexpected;      /* completed responses that are not what their
				     request expects (default: not 2xx/3xx) */
	/* The generator's own lateness: p99 of intended send -> the engine
	 * handling the request (load_stats.sched_lag). Waiting for a free
	 * connection is the server's backpressure and is not in it. */
	double lateness_p99_ms;
	/* Due requests the host held back (load.h host_void_ms: a real-time
	 * generator thread not run while it waited for them): void, their
	 * lag not in lateness_p99_ms, their latency in no histogram. */
	uint64_t host_void;
	/* A window's median service time (actual send -> answer, its merged
	 * histogram: the stored service_p50_ms); NaN in a warm-up or when
	 * unknown. */
	double service_p50_ms;
	double generator_cpu_pct; /* generator CPU / wall time, % of one core */

	/* Requests sent per workload request name (same order as the spec). */
	size_t nreq;
	const char *const *req_names;
	const uint64_t *req_sent;

	/* Kernel accounting over the phase; has_* = 0 when the backend does
	 * not provide that figure. */
	const char *acct_backend;    /* "cgroup2" | "cgroup1" | "procfs" | NULL */
	double acct_span_s;          /* the span the CPU accounting covered
					(account.h duration_s); NAN: not known */
	/* The arm's threads' run-queue wait the host held, in the share of
	 * the busy CPU that went to work outside the arm and the harness
	 * (account.h held_s; account_held.c): summed over the threads, and
	 * one thread's longest in one sample interval; the CPU that work
	 * used. NAN: not known. */
	double host_held_s, host_held_max_s, foreign_cpu_s;
	/* the arm's usual host_held_s: the median per request due over its
	 * last three windows, times this one's due (runner_held.c); NAN:
	 * none yet. */
	double host_held_ref_s;
	/* The threads' whole wait as the same sampler saw it: host_held_s /
	 * host_wait_s is the host's share of what the arm waited. */
	double host_wait_s;
	int has_throttle, has_oom, has_majfault;
	uint64_t nr_throttled, throttled_usec;
	uint64_t oom_events, oom_kills;
	uint64_t major_faults;

	/* The implementation exited during the phase. */
	int sut_exited;

	/* The spec's dependencies over the phase (window phase only; none
	 * when the spec declares none). */
	size_t ndeps;
	const struct gate_dep *deps;

	/* The other arms, and the other arms' dependencies it does not use, over the
	 * phase (window phase only). */
	size_t nidle;
	const struct gate_idle *idle;

	/* Runtime-stats signals (only those the implementation declares). */
	size_t nseries;
	const struct gate_series *series;
	size_t ncounters;
	const struct gate_counters *counters;
	/* Derived signals (every one the implementation declares). */
	size_t nderived;
	const struct gate_derived *derived;
};

struct gate_result {
	enum gate_status status;
	double statistic;      /* the primary statistic, NaN when none */
	double threshold;      /* what it was compared against, NaN when none */
	char stat_name[32];    /* e.g. "mk_p", "error_rate", "lateness_p99_ms" */
	char evidence[512];    /* one line a human can read */
};

enum gate_param_type {
	GP_NUM,      /* a number within [min, max] */
	GP_BOOL,
	GP_SIGNAL,   /* the name of a declared runtime-stats signal */
	GP_NUM_MAP,  /* a map of name -> number (min_calls.min) */
};

struct gate_param {
	const char *name;
	enum gate_param_type type;
	double def;            /* default for GP_NUM / GP_BOOL */
	double min, max;       /* inclusive range for GP_NUM */
	int required;          /* the spec must give it (no default) */
	const char *help;      /* one line, for specs/README.md and the schema */
};

/* What a gate's `min_points` parameter counts (GATE_POINTS_NONE: it has
 * none). A warm-up gate sees the trailing ceil(warmup.trailing_s) seconds,
 * a window gate the measured window_s - discard_s seconds; runtime-stats
 * polls arrive at the implementation's stats.poll_hz. */
enum gate_points {
	GATE_POINTS_NONE = 0,
	GATE_POINTS_SECONDS,   /* seconds of the per-second series */
	GATE_POINTS_POLLS,     /* runtime-stats polls */
};

struct gate_def {
	const char *name;
	const char *help;      /* one line: what it checks */
	unsigned phases;       /* GATE_PHASE_* where it may be declared */
	enum gate_class class; /* validity or outcome (see above) */
	const struct gate_param *params; /* terminated by { NULL } */
	void (*eval)(const struct gate_params *cfg, const struct gate_input *in,
		     struct gate_result *out);
	/* What the gate's min_points parameter counts, so `harness check`
	 * refuses a spec that can never give it that many (spec_gates.c). */
	enum gate_points points;
};

/* The registry (gates/registry.c). */
extern const struct gate_def *const gate_registry[];
extern const size_t gate_registry_count;
const struct gate_def *gate_find(const char *name);

/* Evaluate gate `name` with its parameters cfg (the spec's entry for it,
 * spec_gate_find(); NULL when the spec gives none); out is always filled
 * (an unknown gate or missing required parameters are not_evaluable). */
void gate_eval(const struct gate_params *cfg, const char *name,
	       const struct gate_input *in, struct gate_result *out);

/* The generator gate's lateness limit, ms (gates/generator.c: its
 * lateness_p99_ms, by default a tenth of slo_ms, at least 1): the engine
 * voids requests the host held back longer than this (load.h
 * host_void_ms). */
double gate_generator_lateness_ms(const struct gate_params *cfg, double slo_ms);

/* Helpers for gate files. */
void gate_resultf(struct gate_result *r, enum gate_status st, const char *stat_name,
		  double statistic, double threshold, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
const struct gate_series *gate_input_series(const struct gate_input *in, const char *signal);
const struct gate_counters *gate_input_counters(const struct gate_input *in, const char *signal);
const struct gate_derived *gate_input_derived(const struct gate_input *in, const char *signal);

/*
 * Parameter lookup for gate files (added by the gates engineer). cfg may be
 * NULL (the spec declares the gate without parameters). A GP_NUM/GP_BOOL
 * parameter absent from cfg reads as def's default from the gate's params
 * table; a default of NAN means "derived by the gate" (see its help).
 */
double gate_param_num(const struct gate_params *cfg, const struct gate_def *def,
		      const char *key);
/* A GP_SIGNAL value; NULL when absent. */
const char *gate_param_str(const struct gate_params *cfg, const char *key);
/* Any value as written (GP_NUM_MAP); NULL when absent. */
const struct gate_value *gate_param_value(const struct gate_params *cfg, const char *key);
/* The declaration of parameter key of def, or NULL. */
const struct gate_param *gate_param_find(const struct gate_def *def, const char *key);

/*
 * The trend verdict shared by p99_flat, p999_flat and stationarity:
 * Mann-Kendall (one-sided, upward) on y[0..n) sampled every dt_s seconds
 * (NaN entries skipped, their time kept), Theil-Sen slope converted to
 * units per minute. Parameters read from cfg/def: alpha,
 * min_slope_ms_per_min, min_points. Fails only when p < alpha AND slope >
 * min_slope; fewer than min_points finite values -> not_evaluable.
 */
/* The parameters every trend gate takes (alpha, min_slope_ms_per_min,
 * min_points), shared by p99_flat, p999_flat and stationarity. */
extern const struct gate_param gate_trend_params[];
void gate_eval_trend(const struct gate_params *cfg, const struct gate_def *def,
		     const double *y, size_t n, double dt_s, const char *what,
		     struct gate_result *out);

#endif
