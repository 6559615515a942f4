/*
 * spec: the frozen benchmark spec (YAML, libyaml) as a validated struct.
 *
 * spec_load() parses and validates a file; every problem is reported as one
 * line "FILE:LINE:COL: key.path: what is wrong" and the call fails (the
 * caller exits 2). spec_parse() does the same from bytes already in memory
 * (resume and rerun use the spec text stored in the run, never the file).
 *
 * Ownership: a struct spec owns every string and array it points to;
 * spec_free() releases all of it. Paths (repo, body_file) are resolved
 * against the spec file's directory (base_dir) at load time.
 *
 * Defaults are filled in by the parser, so consumers never re-apply them;
 * specs/README.md is the reference for every key, its default and range.
 */
#ifndef HARNESS_SPEC_H
#define HARNESS_SPEC_H

#include "gate/gate.h"

#include <stddef.h>
#include <stdint.h>

/* The mechanisms' own types: enum acct_backend (account.h); enum arrival,
 * enum transport and struct load_request, a workload request
 * (load_request.h); struct kv, a string pair (util.h). */
#include "account/account.h"
#include "load/load_request.h"
#include "base/util.h"

enum restart_policy { RESTART_PER_WINDOW, RESTART_PER_BLOCK, RESTART_NEVER };
/* stats.format: what the stats URL serves (docs/prometheus.md). */
enum stats_format { STATS_JSON, STATS_PROMETHEUS };
/* implementations[].sandbox: bubblewrap for untrusted code only (a
 * rerun's fetched commits), or for this implementation too. */
enum sandbox_mode { SANDBOX_AUTO, SANDBOX_ALWAYS };
/* When a reset command runs (implementations[].reset, dependencies[].reset):
 * before every window, before the first window of every block, or once per
 * invocation before the first window. */
enum reset_every { RESET_WINDOW, RESET_BLOCK, RESET_RUN };

/* implementations[].container, dependencies[].container: the arm runs as
 * a container (ctr.h), from a local image or one built from a
 * Containerfile. Paths are relative to the arm's repo (a rerun's
 * checkout for a fetched commit), resolved where they are used. */
enum ctr_engine_kind { CTR_PODMAN, CTR_DOCKER };
struct spec_container {
	int present;
	char *image;         /* local image name; with containerfile, the tag given
				to the build (NULL: one the harness names) */
	char *containerfile; /* relative to repo, or NULL: run image as it is */
	char *context;       /* build context, relative to repo; default "." */
	char **args;         /* the command's arguments after the image ({port}), or NULL */
	struct kv *env;      /* the container's environment ({port}) */
	size_t nenv;
	int port;            /* the port it listens on (its own namespace); 0: {port} */
	int engine;          /* enum ctr_engine_kind, default podman */
	char cf_hash[65];    /* SHA-256 of the Containerfile when the spec was
				loaded, "" when it could not be read then */
};

/* A declared runtime-stats signal: name -> RFC 6901 JSON pointer. */
struct spec_signal {
	char *name;
	char *pointer;
};

/* A derived signal: a stats.signals value "= EXPR" (sigexpr.h), computed
 * per poll or per window from the polled ones; spec_check.c moves it out
 * of signals[] (which only holds what rtstats polls). */
struct spec_derived {
	char *name;
	char *expr;          /* the text after '=' */
};

struct spec_impl {
	char *name;
	char *repo;          /* absolute path of its git work tree */
	char **build;        /* NULL-terminated argv, or NULL when none */
	char **version;      /* argv whose output is recorded (toolchain), or NULL */
	char **start;        /* NULL-terminated argv; may contain "{port}" */
	struct kv *env; /* added on top of the minimal environment */
	size_t nenv;
	char *health_url;    /* may contain "{port}"; NULL with health_tcp */
	int health_tcp;      /* healthy once 127.0.0.1:port accepts (health.tcp) */
	int port;            /* a fixed port (implementations[].port), 0: chosen */
	struct kv *paths;    /* request name -> its path for this implementation */
	size_t npaths;
	char *artifact;      /* what it ships as (absolute after the checks), or NULL */
	double health_timeout_s;        /* default 30 */
	char *stats_url;     /* NULL when no stats endpoint; may contain "{port}" */
	double stats_poll_hz;           /* default 1 */
	enum stats_format stats_format; /* default json: signals are JSON pointers;
					   prometheus: metric selectors */
	struct spec_signal *signals;
	size_t nsignals;
	struct spec_derived *derived;   /* in the spec's order */
	size_t nderived;
	char *cpus;          /* cpu list ("0-2,4") or NULL */
	enum restart_policy restart;    /* default per_window */
	enum sandbox_mode sandbox;      /* default auto */
	char **reset;        /* argv run to bring its state back, or NULL; may
				contain "{port}" (runner_reset.c) */
	enum reset_every reset_every;   /* default window */
	double reset_timeout_s;         /* default 300: then killed, the window void */
	/* Limits for the implementation's cgroup (0 = none). */
	uint64_t memory_max_bytes;
	uint64_t pids_max;
	/* Run on another host through an agent (rsut.h): its ssh destination
	 * and the harness binary there; NULL: this host. */
	char *host;
	char *host_binary;
	/* The ports of the dependencies it is told about, set by bind_deps
	 * (bind.h): what a sandbox relays into its namespace, nothing else. */
	int *dep_forward;
	size_t ndep_forward;
	size_t ndep_used;        /* the dependencies it refers to (bind_deps),
				    relayed into its jail or not */
	/* [ndeps]: 1 for each dependency it uses, directly or through
	 * another it uses (bind_deps); NULL before. The others are frozen
	 * while it is measured (runner_freeze.c). */
	unsigned char *dep_used;
	struct spec_container ctr;      /* container.present: runs as a container */
	int line, col;       /* where it was declared, for messages */
};

/*
 * A dependency (database, cache, downstream service): started before the
 * implementations in declared order, shared by all of them, accounted and
 * guarded per window (gates/dependency_headroom.c). Its implementation-
 * shaped part (name, repo, start, env, health.url, health.timeout_s, cpus,
 * limits) is a struct spec_impl, so sut starts it exactly as it starts an
 * implementation; that impl's build, stats and restart are unused.
 * Implementations, requests and later dependencies refer to it as
 * {dep.NAME.port} and {dep.NAME.host} (bind.h).
 */
/* How long one instance of a dependency lives: the whole run, or one block
 * (stopped and started afresh, with its setup, before each block). */
enum dep_lifecycle { DEP_LIFE_RUN, DEP_LIFE_BLOCK };

struct spec_dep {
	struct spec_impl impl;
	char *health_tcp;    /* "127.0.0.1:{port}": healthy once it accepts, or NULL */
	char **health_cmd;   /* argv: healthy once it exits 0, or NULL */
	char **version;      /* argv whose output is recorded in the run, or NULL */
	char **setup;        /* argv run once after its first healthy start (and after
				every fresh start of a block lifecycle), or NULL */
	enum dep_lifecycle lifecycle;   /* default DEP_LIFE_RUN */
	/* impl.host set: the address {dep.NAME.host} becomes, set by the
	 * runner before bind_deps (NULL: 127.0.0.1). */
	char *address;
	/* dependencies[].stats (runner_depstats.c): a command run before
	 * and after each window's load, its output read
	 * as named counters; demand names the one whose rate over the window
	 * is the dependency's demand (dependency_headroom). */
	char **stats_cmd;    /* argv, or NULL */
	char *stats_demand;  /* a counter of its output, or NULL */
	/* stats.signals: name -> "= EXPR" over its counters, per window
	 * (window functions but rate: the readings' span is not kept),
	 * reported per implementation per rung (report_signals.c) */
	struct spec_signal *stats_signals;
	size_t nstats_signals;
	double stats_timeout_s;         /* default 10 */
	/* dependencies[].ladder (runner_depladder.c): a command-driven load
	 * before the first window, rung by rung ({rate} and {duration} in
	 * its argv), to the rate it stops keeping up with. */
	int ladder_present;
	char **ladder_cmd;
	char *ladder_throughput;        /* POSIX ERE; its first group: ops/s achieved */
	double ladder_start, ladder_step, ladder_max, ladder_duration_s, ladder_tolerance_pct;
};

/* Pre-flight (workload.preflight): before the first window every request
 * is sent to every implementation and checked (harness/runner/preflight.h). */
enum equivalence { EQUIV_OFF, EQUIV_STRICT };
#define SPEC_PREFLIGHT_TMPL_SENDS 3
struct spec_preflight {
	int enforce;                    /* default 1: a failure refuses the run */
	int sends;                      /* default 1 (SPEC_PREFLIGHT_TMPL_SENDS
					   with workload.vars): times each
					   request is sent; 0: no pre-flight */
	enum equivalence equivalence;   /* default off */
	enum equivalence base;          /* default strict: a rerun's commit
					   under test against its @base */
	char **ignore;                  /* JSON pointers skipped by strict, or NULL */
};

/* A load generator on another host (workload.generators[]): an agent
 * started over ssh (agent_link.h), or `local`. */
struct spec_generator {
	char *host;                     /* ssh destination, or "local" */
	int threads;                    /* 0: workload.threads */
	char *cpus;                     /* its threads' pinning on its host, or NULL */
	char *binary;                   /* the harness there; NULL: "harness" */
};

struct spec_workload {
	enum arrival arrival;           /* default constant */
	int connections;                /* default 64, 1..100000 */
	int backlog_max;                /* default 10000, >= 0 */
	int timeout_ms;                 /* default 5000 */
	int threads;                    /* generator threads, default 1 */
	char *cpus;                     /* generator pinning or NULL */
	enum transport transport;       /* default auto (native for http://) */
	struct load_request *requests;
	size_t nrequests;
	/* Generators on other hosts; none: the load runs here, as always. */
	struct spec_generator *generators;
	size_t ngenerators;
	char **ssh_options;             /* generator_options.ssh_options, or NULL */
	double max_offset_ms;           /* generator_options.max_offset_ms, default 5 */
	char *target_host;              /* generator_options.target_host, or NULL */
	struct spec_preflight preflight;
	struct load_var *vars;          /* template variables, or NULL */
	size_t nvars;
	uint64_t pool;                  /* pool size; 0: automatic (spec_pool_size) */
	enum http_version http;         /* default 2 (HTTP/1.1 over plain http) */
	struct {                        /* implementations serve https:// */
		int present;
		char *cacert;           /* absolute PEM path, or NULL: the system's CAs */
		int insecure;           /* do not verify their certificates */
	} tls;
};

struct spec_ladder {
	double start_rps, step, max_rps;
	int reps;                       /* default 3 */
	double window_s, discard_s;
	int rungs_past_knee;            /* stop.rungs_past_knee, default 1 */
};

/* Sequential confirm (confirm.until): more confirm blocks until every
 * paired confidence-sequence interval is narrow enough (stat.h). */
struct spec_until {
	int present;
	double half_width_pct;          /* default 5: of the pair's mean value */
	int max_reps;                   /* default 30: blocks per confirm rate */
};

struct spec_confirm {
	int present;
	int reps;                       /* default 10 */
	double window_s, discard_s;
	/* at: knee_bracket (the only mode) */
	struct spec_until until;
};

/* Refine (optional): after the ladder, geometric midpoints of each crossed
 * knee's bracket until it is within resolution_pct of its low end. */
struct spec_refine {
	int present;
	int reps;                       /* default 3: windows per arm per step */
	double resolution_pct;          /* default 5 */
	int max_steps;                  /* default 4 */
	double window_s, discard_s;     /* default: the ladder's */
};

/* Replacement windows for rejected (void) ones. */
struct spec_retries {
	int max_per_cell;               /* default 3, 0..50; 0: no replacement */
	double extra_time_pct;          /* default 25, 0..1000: more replacements,
					   within this share of the time the
					   pre-registered windows took */
};

struct spec_soak {
	int present;
	double window_s, discard_s;     /* discard default 0 */
	double at_knee_fraction;        /* (0,1], default 0.8 */
};

/* Closed-loop saturation (stages.saturation): N connections each waiting
 * for its answer, wrk/ab style; reported apart from the open loop's
 * windows and knees (runner_saturation.c, store_saturation.h). */
struct spec_saturation {
	int present;
	int connections;                /* default 64 */
	double duration_s;              /* default 10; with requests: the cap */
	uint64_t requests;              /* 0 (default): for duration_s */
	int reps;                       /* default 3 */
	double warmup_s;                /* default 2: not recorded */
};

struct spec_warmup {
	/* rate: exactly one of fixed_rps (> 0) or knee_fraction (> 0) */
	double fixed_rps;               /* 0 when knee_fraction is used */
	double knee_fraction;           /* default 0.5 */
	double min_rps;                 /* default 100 */
	double min_s, max_s, trailing_s;/* defaults 20, 180, 30 */
	char **gates;                   /* NULL-terminated gate names */
	size_t ngates;
	/* Each window's discard_s head, at the window's rate, judged by these
	 * flatness gates (default p99_flat, p999_flat; recorded as phase
	 * "head"); a failure rejects the window only with head_enforce. */
	char **head_gates;
	size_t nhead_gates;
	int head_enforce;               /* default 0: record only */
};

/* A gate's parameters as written in the spec (`gates:`) are the gate
 * module's struct gate_params (gate.h). */

struct spec_slo {
	double percentile;              /* (0,100), default 99 */
	double threshold_ms;            /* > 0, required */
	double error_rate_max;          /* [0,1], default 0.001 */
};

struct spec_accounting {
	enum acct_backend backend;      /* default auto */
	int sample_ms;                  /* default 50, 10..10000 */
};

enum compare_metric { CMP_P99 = 1, CMP_CPU_PER_REQUEST = 2 };
/* compare.interval and compare.correction (the order of their names) */
enum { CMP_INTERVAL_HL, CMP_INTERVAL_T };
enum { CMP_CORRECT_HOLM, CMP_CORRECT_NONE };
/* harness rerun --until-decided: the budget of its sequential blocks
 * (docs/STATISTICS.md "Sequential rerun"). */
struct spec_sequential {
	double max_minutes;             /* default 30: of the whole rerun */
	int max_blocks;                 /* default 200: sequential blocks added */
	int method;                     /* latency's: decide.h enum decide_method
					   (median_cs, the default; mean_cs) */
	int margin_rule;                /* what "no change" is judged against:
					   decide.h enum decide_margin_rule
					   (point, the default; base_bound) */
	int present;                    /* compare.sequential was given: the
					   spec's reruns run --until-decided
					   (harness check's plan refusal) */
};

struct spec_compare {
	double margin_pct;              /* default 5 */
	double margin_ms;               /* latency floor, default 0.75 (ms) */
	double margin_cpu_us;           /* CPU per request floor, default 2 (us) */
	unsigned metrics;               /* bit set of compare_metric; default both */
	double alpha;                   /* default 0.05 (95% intervals) */
	int min_pairs;                  /* default 3: valid pairs at a rate */
	int interval;                   /* CMP_INTERVAL_*, default HL */
	int correction;                 /* CMP_CORRECT_*, default Holm */
	int present;                    /* the spec has a compare: section */
	struct spec_sequential sequential;
};

/* Untrusted builds (harness rerun). */
struct spec_sandbox {
	char *user;                     /* default "harness-sut" */
	double build_timeout_s;         /* default 600 */
	uint64_t memory_max_bytes;      /* default 4 GiB */
	uint64_t pids_max;              /* default 4096 */
	double cpu_max;                 /* cores, default 0: none */
	uint64_t relay_connections;     /* dependency connections relayed at once, default 128 */
	uint64_t log_max_bytes;         /* each log file of a jailed arm, default 64 MiB */
	uint64_t disk_max_bytes;        /* a rerun's checkout filesystem, default 4 GiB */
};

struct spec {
	int version;                    /* must be 1 */
	char *name;
	uint64_t seed;
	char *path;                     /* the file it came from (for messages) */
	char *base_dir;                 /* absolute directory of that file */
	struct spec_slo slo;
	struct spec_impl *impls;
	size_t nimpls;                  /* >= 1 */
	struct spec_dep *deps;          /* dependencies: */
	size_t ndeps;                   /* 0 when none */
	struct spec_workload workload;
	struct spec_ladder ladder;
	struct spec_confirm confirm;
	struct spec_refine refine;
	struct spec_soak soak;
	struct spec_saturation saturation;
	struct spec_retries retries;
	struct spec_warmup warmup;
	struct gate_params *gates;        /* parameters of every gate named anywhere */
	size_t ngates;
	char **window_gates;            /* NULL-terminated */
	size_t nwindow_gates;
	struct spec_accounting accounting;
	struct spec_compare compare;
	struct spec_sandbox sandbox;
	unsigned host_require;          /* host.require: HOSTTUNE_* bits (hosttune.h) */

	/* Problems of a well-formed spec, as "FILE:LINE:COL: key.path: ...\n"
	 * lines; NULL when none. refusals: a plan that can never pass (a gate
	 * needing more seconds or polls than a warm-up or a window gives):
	 * `check` and a new `run` refuse the spec (exit 2), while a spec
	 * stored in a run (resume, report, compare, rerun) is read as frozen.
	 * warnings ("FILE:LINE:COL: warning: key.path: ..."): printed by
	 * `check` and a new `run`, never refused. */
	char *refusals;
	char *warnings;

	/* Freezing: the spec's bytes and SHA-256 over them and every
	 * referenced file (see spec_hash in spec.c for the order). */
	char *text;
	size_t text_len;
	char hash[65];
};

/* Parse and validate the file at path. On failure prints every problem
 * found (one line each) and returns NULL. */
struct spec *spec_load(const char *path);

/* Parse and validate text; `path` names it in messages and its directory
 * resolves relative paths (it need not exist when base_dir is given). */
struct spec *spec_parse(const char *text, size_t len, const char *path,
			const char *base_dir);

/* The same, appending the messages (one line each, "\n"-terminated) to
 * errs instead of printing them; errs NULL prints to stderr. */
struct sbuf;
struct spec *spec_load_diag(const char *path, struct sbuf *errs);
struct spec *spec_parse_diag(const char *text, size_t len, const char *path,
			     const char *base_dir, struct sbuf *errs);

void spec_free(struct spec *s);

/*
 * The workload's requests as implementation im is sent them: NULL when
 * it has no implementations[].paths (use s->workload.requests), else a
 * malloc'd array of s->workload.nrequests shallow copies (strings owned
 * by s) whose paths are im's where it names one; free() the array only.
 */
struct load_request *spec_impl_requests(const struct spec *s, const struct spec_impl *im);
/* Its path for request `name` (implementations[].paths), or NULL. */
const char *spec_impl_path(const struct spec_impl *im, const char *name);

/* Lookups; NULL when absent. */
const struct spec_impl *spec_impl_find(const struct spec *s, const char *name);
/* The index of dependency `name` (len bytes of it), or -1. */
int spec_dep_index(const struct spec *s, const char *name, size_t len);

/*
 * The next reference "{dep.NAME.port}" or "{dep.NAME.host}" in s[0..len)
 * at or after *pos: 1 with *at (its offset), *reflen, the name
 * (name/namelen point into s) and *is_port set, *pos moved past it; 0
 * when there is none. Malformed "{dep." text is returned as a reference
 * with namelen 0 (the validator refuses it).
 */
int spec_dep_ref_next(const char *s, size_t len, size_t *pos, size_t *at, size_t *reflen,
		      const char **name, size_t *namelen, int *is_port);
const struct gate_params *spec_gate_find(const struct spec *s, const char *gate);

/* A gate parameter as a number / map, with the gate's default already
 * applied by the parser. */
double spec_gate_num(const struct gate_params *g, const char *key, double def);
const struct gate_value *spec_gate_value(const struct gate_params *g, const char *key);

/* The tightest latency promise: slo.threshold_ms, or a request's own
 * slo_ms when smaller (0 there: none). */
double spec_slo_tightest_ms(const struct spec *s);

/* The ladder's rates, start_rps * step^k up to max_rps inclusive.
 * Returns the count; *rates is malloc'd (caller frees). */
size_t spec_ladder_rungs(const struct spec *s, double **rates);

/*
 * The request pool of a templated workload (workload.vars; load_pool.h):
 * its size, workload.pool when given, else enough for the longest window
 * at the highest rate any stage offers (no request repeats within a
 * window), at most SPEC_POOL_AUTO_MAX. 0 when the workload has no
 * variables.
 */
#define SPEC_POOL_AUTO_MAX 4000000ull
uint64_t spec_pool_size(const struct spec *s);

/* Replace every "{port}" in tmpl by port (port <= 0: a copy, unchanged);
 * returns a malloc'd string, NULL when tmpl is NULL. The one substitution
 * of the spec's {port}: sut uses it for start, env, health and stats. */
char *spec_subst_port(const char *tmpl, int port);
/* A copy of the NULL-terminated argv with {port} substituted in every
 * element (NULL: an empty vector); free with strv_free() (util.h). */
char **spec_subst_port_argv(char *const *argv, int port);

/* Print the JSON Schema of the spec language to sb. */
void spec_schema_json(struct sbuf *sb);
/* The markdown key reference (the generated part of specs/README.md). */
void spec_reference_md(struct sbuf *sb);

#endif
