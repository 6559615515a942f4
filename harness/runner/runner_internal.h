/*
 * runner_internal: state shared by runner.c (setup, resume), runner_stages.c
 * (ladder, confirm, soak, blocks) and runner_window.c (one window).
 */
#ifndef HARNESS_RUNNER_INTERNAL_H
#define HARNESS_RUNNER_INTERNAL_H

#include <signal.h>
#include <stdint.h>

#include "sut/armops.h"
#include "base/hostfacts.h"
#include "gate/judge.h"
#include "model/knee.h"
#include "agent/fleet.h"
#include "load/load_pool.h"
#include "runner/plan.h"
#include "runner/runner.h"
#include "spec/spec.h"
#include "stat/stat.h"
#include "store/store.h"

struct account_window;
struct rtstats;
struct window_reset_rows;

/* Where a reset command last ran (runner_reset.c). */
struct reset_state {
	int done;                /* ran in this invocation */
	char stage[16];          /* the stage and block of that window */
	int block;
};

/* One arm of the run: an implementation of the spec, or a clone of one
 * (rerun --with-baseline) with its own work tree. */
struct arm {
	char *name;
	struct spec_impl impl;   /* shallow copy of the spec's; name and repo
				    point at this arm's own strings */
	char *workdir;           /* where build and start run */
	int untrusted;           /* fetched code: its checkout is given to its uid */
	int jailed;              /* build/run in a jail (jail.h) as its own uid:
				    untrusted, or the spec says sandbox: always */
	int ro;                  /* its tree bound read-only from the start (a
				    trusted repo in a jail: never given away) */
	int frozen;              /* an @base control: built first, then its
				    tree root's and bound read-only */
	int uid;                 /* untrusted: this arm's own uid in this run
				    (group: the sandbox user's), else -1 */
	int argv_recorded;       /* its start argv is in the events */
	int built;               /* built (and, when frozen, frozen) */
	int candidate;           /* rerun: the commit under test (not an @base
				    control): its build or start failure is
				    its own fault, exit 1, not the host's */
	int quota;               /* its checkout has a disk of its own here (quota.h) */
	struct rsut_src *src;    /* a rerun's checkout on impl.host (rsut_fetch.h;
				    borrowed), or NULL */
	/* Where it runs (armops.h): filled at its first use (runner_arm_site;
	 * label owned), unless a test set site.ops and site.label first. */
	struct armops_site site;
	char *label;
	struct armops_inst *inst; /* running instance, or NULL */
	unsigned starts;         /* times started in this invocation */
	int64_t last_block;      /* for restart: per_block */
	struct knee_result knee; /* from its valid windows (knee.h); rung table
				    released: only the scalar fields are kept */
	int knee_known;
	struct reset_state reset; /* its implementations[].reset */
};

/* A dependency of the run (runner_deps.c). */
struct dep_run {
	const struct spec_dep *spec;
	struct spec_impl impl;   /* shallow copy of spec->impl, named sut_name */
	char *sut_name;          /* "dep-<name>": its logs and cgroup label */
	char *dir;               /* runs/<id>/deps/<name>, absolute; NULL until first start */
	struct kv *env;          /* spec->impl.env + HARNESS_DEP_DIR (impl.env points here) */
	/* Where it runs (armops.h): filled at its first use (runner_dep_site;
	 * label owned), unless a test set site.ops and site.label first. */
	struct armops_site site;
	char *label;
	struct armops_inst *inst; /* running instance, or NULL */
	unsigned starts;
	char *cpus;              /* the cpus the kernel reported at its start */
	double ncpus;            /* their count (NAN unknown) */
	int acct_open;
	/* the last window's figures beyond struct gate_dep */
	uint64_t throttled_usec, oom_kill;
	int has_oom;
	double anon_max;
	/* its stats readings' command start and end, before the load and
	 * after the drain (wall seconds; NAN none): runner_depstats.c's */
	double stats_t[4];
	/* lifecycle block: the stage and block its instance serves */
	struct reset_state life;
};

struct evidence;

struct run_ctx {
	struct spec *spec;
	const struct runner_seams *seams;  /* NULL: the real ones (runner.h) */
	/* A templated workload's request pool (spec_pool_size entries from
	 * the spec's seed): built before the first load, shared by every
	 * warm-up and window of every arm. */
	struct load_pool pool;
	int have_pool;
	struct store st;
	char *run_id;
	char *dir;               /* runs/<id> */
	char *logs_dir;          /* runs/<id>/logs */
	struct arm *arms;
	size_t narms;
	struct dep_run *deps;    /* [ndeps], the spec's dependencies */
	struct dep_study *dep_study; /* [ndeps] or NULL: stats and ceilings (runner_depstats.c) */
	size_t ndeps;
	int *dep_ports;          /* [ndeps], chosen once (bind_deps) */
	struct reset_state *dep_resets; /* [ndeps] or NULL: their resets */
	unsigned stages;
	double *rungs;
	size_t nrungs;
	struct hostfacts facts;  /* read at start; drift is checked per window */
	int sandbox_gid;          /* this host's sandbox group (armops prepare), -1 */
	char *hide_dir;          /* the runs directory, hidden from jails */

	/* progress (runner_progress.c) */
	size_t done, accepted, failed, rejected;
	size_t plan_pre[PLAN_NSTAGES]; /* pre-registered windows per stage */
	size_t plan_extra;       /* the most replacements can add */
	size_t done_pre[PLAN_NSTAGES], done_extra;  /* done, by the same split */
	double stored_cost_s;    /* mean wall of the windows done before this
				    process (warm-up + window), 0: none */
	double cost_sum_s;       /* measured here: end to end of each window */
	size_t ncost;
	double mark;             /* wall when the last window ended (or the
				    first began) */
	double eta_shown;        /* the last ETA printed (it never rises); <0 none */
	double started;          /* wall seconds */
	double last_p99_ms;
	const char *cur_stage;
	int cur_rung;
	const char *cur_impl;    /* the window's arm (borrowed), NULL before one */
	double cur_rate;

	/* the pre-flight passed (or was recorded only) in this run; resume
	 * skips it then */
	int preflight_done;
	int preflight_candidate;  /* its failure was a rerun candidate's */
	char *preflight_why;      /* its first failing line blaming fail_impl
				     (runs.failure shows it), or NULL */

	/* workload.generators: the agents (runner_gens.c) */
	struct agent_link *links;
	struct fleet_gen *gens;
	int *link_open;
	size_t ngens;

	/* harness rerun --until-decided: the exit code of its answer (0, 1,
	 * 3), -1 when the run has no stopping rule (runner_until.c) */
	int until_exit;

	/* a stage ended with an arm without one valid window (every one
	 * void: runner_stages); answer: a stage's own negative answer
	 * (confirm or soak not held) */
	int unmeasured, answer_negative;

	/* fatal: an environment error (exit 3) stopped the run */
	int fatal;
	/* why the run failed, for runs.failure_kind / failure_impl (NULL:
	 * not set; fail_impl points at an arm's name) */
	const char *fail_kind, *fail_impl;
	/* The status last set ends the run for good (finished, or failed by
	 * an arm's own doing): its checkouts' disks go (quota.h). */
	int over;
	/* The runs filesystem was found full as the run ended (store.h):
	 * failed, kind environment, exit 3. */
	int disk_full;
};

/* runner_gens.c: how an agent on another host is reached: its harness
 * binary (NULL: "harness") and the spec's ssh options; o->sut is 0 (the
 * caller sets it for an implementation's agent). o points into rc->spec. */
void runner_agent_opts(const struct run_ctx *rc, const char *binary, struct agent_opts *o);

/* runner_clock.c: the clock the runner's decisions and stamps read
 * (budgets, timeouts, durations, started/ended times): the seams' (a unit
 * test's fake one), else the system's. The load engine, the accounting and
 * the runtime-stats polls keep their own now_ns clock, on which their
 * timestamps are compared. */
double runner_now(const struct run_ctx *rc);          /* unix seconds */
/* runner_held.c: the arm's usual host-held wait for a window of due
 * requests: the median host_held_s / due of wp's arm's last three done
 * windows, times due; NAN when it has none. */
struct window_plan;
double runner_held_ref(struct run_ctx *rc, const struct window_plan *wp, uint64_t due);
void runner_sleep(const struct run_ctx *rc, double s);

/* runner_gens.c: the load from workload.generators' agents. */
/* Start every agent (version checked). 0, or -1 after an error(). */
int runner_gens_open(struct run_ctx *rc);
void runner_gens_close(struct run_ctx *rc);
/* The URL the agents load: sut_url with generator_options.target_host
 * (into buf), or sut_url itself when no generators or no target_host. */
const char *runner_gens_url(const struct run_ctx *rc, const char *sut_url, struct sbuf *buf);
/* Run cfg through the agents (lost ones reconnected first); events per
 * agent on window wid; *lost / *clock set when the load is void.
 * 0, or -1 after an error() (an agent could not be reconnected: exit 3). */
int runner_gens_load(struct run_ctx *rc, int64_t wid, const char *phase,
		     const struct load_config *cfg, struct load_result *res, int *lost,
		     int *clock);

/* runner_record.c: where a run comes from. Its runs row (status running;
 * spec_abs the spec's path, dirty: exploratory), one run_impls row per
 * arm (its repository read here, or, for a checkout on another host,
 * what o's arm says), and the host facts: 0 or -1 (the store said why).
 * The checkouts fetched on other hosts, as remote_checkout events. */
struct prov_repo;
int runner_record_run(struct run_ctx *rc, const struct run_opts *o, const char *spec_abs,
		      int dirty, const struct prov_repo *spec_repo);
int runner_record_impls(struct run_ctx *rc, const struct run_opts *o);
int runner_record_facts(struct run_ctx *rc);
/* When the generator may not run real-time here (host fact
 * generator_sched, base/rtsched.h): one warning and a generator_sched
 * event; nothing when it may. */
void runner_note_generator_sched(struct run_ctx *rc);
void runner_record_remote_checkouts(struct run_ctx *rc);

/* runner_progress.c */
struct window_plan;
/* Set by SIGINT/SIGTERM/SIGHUP; the load engine polls it every tick. */
extern volatile sig_atomic_t runner_stop;
/* Catch SIGINT, SIGTERM and SIGHUP (they set runner_stop), ignore SIGPIPE. */
void runner_install_signals(void);
/* The plan and the windows done before this process (resume), for the
 * progress line. 0 or -1 after error(). */
int runner_progress_init(struct run_ctx *rc);
/* Progress line on stderr (redrawn on a terminal, plain otherwise):
 * "window k of n planned (+r replacements at most)" and an ETA from the
 * measured cost of a window that never rises. */
void runner_progress(struct run_ctx *rc, const char *what);
/* A window is stored: counted by its status and kind (replacement or
 * pre-registered), its cost measured; then the progress line. */
void runner_progress_window_done(struct run_ctx *rc, const struct window_plan *wp,
				 enum window_status st, const char *what);

/* runner_stages.c: plan and run every requested stage. Returns an exit
 * code: 0, 1 (a stage measured nothing usable / interrupted), 3 (env). */
int runner_stages(struct run_ctx *rc);
struct view;
/* The run as it stands, for one decision: the run view (model/view.h,
 * VIEW_DECIDE, with the run's own spec), built from the database each
 * call. 0, or -1 after an error line. */
int runner_view(struct run_ctx *rc, struct view *v);
/* runner_blocks.c: the blocks the stages are made of; stage ids seed each
 * block's counterbalanced order. */
enum { STAGE_ID_LADDER = 1, STAGE_ID_CONFIRM = 2, STAGE_ID_SOAK = 3, STAGE_ID_REFINE = 4,
       STAGE_ID_SEQUENTIAL = 5 /* rerun --until-decided, runner_until.c */ };
/* One block to plan or run. */
struct block_spec {
	const char *stage;
	unsigned stage_id;
	int rung;                    /* ladder rung; -1 off the ladder */
	int block;
	double rate;                 /* every arm's offered rate, unless rates */
	struct arm **arms;
	size_t n;
	const double *rates;         /* per arm (refine: each its own), or NULL */
	const int64_t *replaces;     /* per arm: the rejected window replaced; 0 none */
};

/* The block's order from the database, or planned (its order and windows
 * inserted in one transaction); order[k] indexes b->arms. 0 or -1. */
int runner_block_order(struct run_ctx *rc, const struct block_spec *b, int *order);
/* Run every window of the block not done yet. 0, 1 interrupted, -1 fatal. */
int runner_run_block(struct run_ctx *rc, const struct block_spec *b);
/* Replacement rounds of b's short cells (docs/DESIGN.md "Replacement
 * windows"); key numbers them apart. 0, 1 interrupted, -1 fatal. */
int runner_replace_rejected(struct run_ctx *rc, const struct block_spec *b, int key);
/* Every arm, malloc'd (the caller frees the array). */
struct arm **runner_all_arms(struct run_ctx *rc);
/* runner_seq.c: is every paired confidence sequence at this confirm rate
 * narrower than stages.confirm.until.half_width_pct of its pair's mean?
 * 1 yes, 0 no (why: the widest), -1 after an error(). */
struct sbuf;
int runner_seq_narrow(struct run_ctx *rc, double rate, struct sbuf *why);
/* The metric's value of an accepted window: the SLO percentile (ms, from
 * its histogram) or (cpu) CPU ms per request; NAN when missing or the
 * window is not accepted. */
struct window_row;
double runner_seq_value(const struct window_row *w, const struct spec *s, int cpu);
/* runner_until.c: harness rerun --until-decided (docs/STATISTICS.md
 * "Sequential rerun"). register: one stopping rule per implementation
 * with an "<impl>@base" arm, budget from o (or the spec), inside the
 * caller's transaction; 0 or -1. runner_until: after the pre-registered
 * stages, paired blocks at the judged rates until decided or the budget
 * ends; 0 (rc->until_exit set: the answer's exit code, -1 when the run
 * has no rule), 1 interrupted, -1 fatal. */
int runner_until_register(struct run_ctx *rc, const struct run_opts *o);
int runner_until(struct run_ctx *rc);
/* runner_arm.c: the rate an arm is known to hold: the knee's hold_rps,
 * else its knee (a bracket at the first rung), else the highest rung;
 * NAN unknown. */
double runner_arm_hold_rps(const struct arm *a);

/* runner_window.c */
struct window_plan {
	int64_t id;
	const char *stage;
	int rung;
	int block;
	int slot;
	struct arm *arm;
	double rate;
};
/* Run one window to completion and store it in one transaction.
 * 0: stored; 1: interrupted (nothing stored, window back to planned);
 * -1: environment error (message printed, rc->fatal set). */
int runner_window(struct run_ctx *rc, const struct window_plan *wp);

/* runner_saturation.c: the closed-loop stage (stages.saturation), the
 * reps not stored yet. 0, 1 interrupted, -1 fatal (after the messages). */
int runner_saturation(struct run_ctx *rc);

/* runner_footprint.c: the footprint of the arm's start that just
 * answered healthy (before any load): a footprint row (an event when its
 * artifact cannot be read); nothing for an arm on another host. */
void runner_footprint_note(struct run_ctx *rc, struct arm *a, int64_t wid);

/* runner_preflight.c: every arm started, the pre-flight sent, its result
 * stored, the arms stopped. 0 passed (or enforce: false); 1 interrupted;
 * -1 refused or failed, after the messages, with rc->fail_kind "preflight"
 * (refused; fail_impl the arm at fault) or "start" set. */
int runner_preflight(struct run_ctx *rc);

/* runner_arm.c: the sandbox an arm's code runs in (filled into *sb), or
 * NULL for code that runs as the harness's user. */
struct bind_sandbox;
const struct bind_sandbox *runner_arm_sandbox(const struct run_ctx *rc, const struct arm *a,
					     struct bind_sandbox *sb);

/* runner_reset.c: the resets due before window wp, each appended to out
 * (window_resets rows); _deps before the implementation starts, _arm once
 * it is up. 1 when one failed (message and event made), else 0; _arm -1
 * when a jailed arm's reset hit its sandbox's limits (runner_arm_limit_record
 * made the event and the run's failure: the window is not measured). */
int runner_reset_deps(struct run_ctx *rc, const struct window_plan *wp,
		      struct window_reset_rows *out);
int runner_reset_arm(struct run_ctx *rc, const struct window_plan *wp,
		     struct window_reset_rows *out);

/* runner_testhook.c: HARNESS_TEST_STALL_GENERATOR (tests only): the ms the
 * generator stalls in window wp's measured load (load.h test_stall_ms),
 * 0 for none; records a test_stall event when it does. */
#define RUNNER_TEST_STALL_MS 500
double runner_test_stall_ms(struct run_ctx *rc, const struct window_plan *wp);

/* runner_status.c */
/*
 * The run's status, and why when it did not finish cleanly: failure is the
 * sentence for people, kind the word for programs (runs/README.md:
 * sandbox, build, start, environment, interrupted, nothing_measured);
 * build and start name the implementation (rc->fail_impl). Any status
 * but running releases the run database's reserve (store.h); on a full
 * runs filesystem (store_disk_full) any end but interrupted is recorded
 * as failed, kind environment, saying so (rc->disk_full set).
 */
int runner_set_status(struct run_ctx *rc, const char *status, const char *failure,
		      const char *kind);
/* Did the arm that failed to build or start hold a rerun's commit under
 * test? Then the failure is that commit's answer (exit 1), not the
 * host's (exit 3; also for `run`, whose implementations are the user's). */
int runner_candidate_failed(const struct run_ctx *rc);

/* Does the run hold a rerun's commit under test (an arm candidate)? */
int runner_is_rerun(const struct run_ctx *rc);

/* The exit code of a run that finished with code (runner_stages'):
 * rerun --until-decided's answer where it has one; a rerun whose stage
 * left an arm without a valid window (rc->unmeasured), no stage's own
 * negative answer: 3, no answer (as compare reads it); else code. */
int runner_finished_exit(const struct run_ctx *rc, int code);
/*
 * A run that failed by an arm's own doing, wherever it happened (build,
 * start, health wait, pre-flight, window): it never came up healthy, or
 * it hit its sandbox limits (rc->fail_kind "start" or "limit"). Sets the
 * run's status and returns 1 for the commit under test, 3 for any other
 * arm; -1 (nothing set) when the failure is not an arm's.
 */
int runner_arm_fault(struct run_ctx *rc);

/* runner_arm.c */
/* Make sure the arm's implementation is up and healthy for window wp
 * (restarting it after an exit or at a new block under per_block).
 * -1 after one error line. */
int runner_arm_start(struct run_ctx *rc, struct arm *a, const struct window_plan *wp);
/* An untrusted arm that hit a limit of its sandbox (forks refused at
 * pids.max, OOM kills: account_limit_hits): records a sandbox_limit event
 * with the kernel's counts, sets rc->fail_kind "limit" and fail_impl, and
 * returns 1; else 0 (trusted arms, nothing running, nothing hit). */
int runner_arm_limit_hit(struct run_ctx *rc, struct arm *a, int64_t window_id);
/* Fill h->disk_full when the arm's checkout disk here (quota.h) is full;
 * one a backend or a command already reported (an agent's host) is kept. */
void runner_arm_disk_check(const struct arm *a, struct armops_hits *h);
/* The run ended: each fetched checkout's disk removed when the run is
 * over for good (finished, or failed by an arm's own doing), else only
 * unmounted, its image kept for resume (quota_attach). */
void runner_arm_disk_release(struct run_ctx *rc, int over);
/* The same for limits h already read (a build's, an agent's answer):
 * the sandbox_limit event and the run's failure; 1 when h holds any. */
int runner_arm_limit_record(struct run_ctx *rc, struct arm *a, int64_t window_id,
			    const struct armops_hits *h);
/* Stop the arm's implementation and its poller (no-op when not running). */
void runner_arm_stop(struct arm *a);
/* Where the arm runs (armops.h): a->site, filled at its first use from rc
 * and the arm (its backend: armops_pick, unless a test set one). */
struct armops_site *runner_arm_site(struct run_ctx *rc, struct arm *a);
/* The running implementation, through its instance's ops (armops.h): */
int runner_arm_up(const struct arm *a);         /* started (1) or not (0) */
int runner_arm_exited(struct arm *a);           /* non-blocking; 0 when not up */
/* Exited because the agent of an implementation on another host was lost
 * (its channel broke: the agent then stopped it), not by its own doing;
 * *why (static or owned by the arm) says how. */
int runner_arm_lost(const struct arm *a, const char **why);
const char *runner_arm_url(const struct arm *a);  /* where the load goes */
int runner_arm_port(const struct arm *a);
int runner_arm_netns(const struct arm *a);      /* its namespace here, or -1 */
/* Its accounting window (account.h), on whichever host runs it. */
int runner_arm_acct_begin(struct arm *a);
int runner_arm_acct_end(struct arm *a, struct account_window *out);
/* Its runtime stats: polled here, or there and streamed back; NULL when
 * it has none. */
struct rtstats *runner_arm_rts(struct arm *a);
/* Stop every arm's implementation. */
void runner_stop_all(struct run_ctx *rc);
/* Build every arm once (logs/build-<arm>.log). -1 after one error line. */
int runner_build_all(struct run_ctx *rc);

/* runner_ctr.c: containers. A container arm's provenance (ctr.h,
 * ctr_provenance) as two events: impl_version (dep_version when dep)
 * "NAME: container REF ID12, podman V", what the report's version columns
 * show, and impl_image (dep_image) "NAME: image REF sha256:ID (digest
 * ...), podman V ..., PATH sha256 H", the provenance in full; and a
 * dependency's image built before its first start through site, its
 * backend (armops_ctr.c): 0, or -1 after an error() (the run stops,
 * exit 3). */
void runner_ctr_provenance(struct run_ctx *rc, int dep, const char *name,
			   const struct spec_impl *im, const char *workdir);
int runner_ctr_dep_build(struct run_ctx *rc, struct dep_run *d, const struct armops_site *site);
/* Record a version command's output (log_path, written by sut_build; ok:
 * it exited 0) as an event of kind `kind` ("NAME: output", 4 KiB at most). */
void runner_store_version(struct run_ctx *rc, const char *kind, const char *name,
			  const char *log_path, int ok);
/* Each arm's implementations[].version, once per invocation (impl_version).
 * -1 when a jailed arm's probe hit its sandbox's limits (recorded as
 * runner_arm_limit_record does: the run fails, kind limit), else 0. */
int runner_arm_versions(struct run_ctx *rc);

/* runner_freeze.c: arms not being measured do not run (docs/DESIGN.md).
 * _begin, once window wp's arm is up, reset and about to be loaded:
 * every other arm that is up and every dependency another arm uses and
 * wp's arm does not (spec_impl.dep_used) frozen (account_freeze), or left running where it
 * cannot be; never NULL. _meas_begin / _meas_end at the measured part's
 * edges: each one's CPU over it appended to e (evidence_add_idle).
 * _end thaws them all and frees (NULL: no-op): on every way out of the
 * window. _store writes e's idle rows (table window_idle, inside the
 * caller's transaction). */
struct runner_idle;
struct runner_idle *runner_idle_begin(struct run_ctx *rc, const struct window_plan *wp);
void runner_idle_meas_begin(struct runner_idle *ri);
void runner_idle_meas_end(struct runner_idle *ri, struct evidence *e);
void runner_idle_end(struct runner_idle *ri);
int runner_idle_store(struct run_ctx *rc, int64_t wid, const struct evidence *e);

/* runner_deps.c: the dependencies. -1 returns follow one error line. */
/* Choose their ports and bind the spec to them (before the arms). */
int runner_deps_bind(struct run_ctx *rc);
/* Where dependency d runs (armops.h): d->site, filled at its first use. */
struct armops_site *runner_dep_site(struct run_ctx *rc, struct dep_run *d);
/* Start every dependency not running, in order (first start: version,
 * setup). */
int runner_deps_start(struct run_ctx *rc);
/* Before window wp: restart any that exited (event dep_exited); start
 * afresh, with its setup, each `lifecycle: block` one whose instance served
 * another block (event dep_cycle) and then set *cycled (the caller
 * restarts the implementations: their connections went to the old one). */
int runner_deps_ensure(struct run_ctx *rc, const struct window_plan *wp, int *cycled);
/* Accounting over the measured part; _end appends each to e->deps. */
void runner_deps_window_begin(struct run_ctx *rc);
void runner_deps_window_end(struct run_ctx *rc, struct evidence *e);
/* e's dependencies as window_deps rows (inside the caller's transaction). */
int runner_deps_store(struct run_ctx *rc, int64_t wid, const struct evidence *e);
/* Run argv (its {port} substituted) for dependency d, as its version and
 * setup run: 0 exited 0; 1 exited non-zero with quiet; -1 after an
 * error() (timed out, could not start). Output appended to log_path. */
int runner_dep_command(struct run_ctx *rc, struct dep_run *d, char **argv, const char *what,
		       double timeout_s, int quiet, const char *log_path);
/* runner_depladder.c: each dependencies[].ladder, once per run before the
 * first window (read back on resume): the rungs stored (dep_ceiling) and
 * the ceiling kept for the windows. -1 after an error() (a command that
 * cannot run: the run stops, exit 3). */
int runner_dep_ladders(struct run_ctx *rc);
/* runner_depstats.c: dependencies[].stats read at window wid's load's
 * start (begin) and end (end: each dependency's demand and ceiling into
 * e's, after runner_deps_window_end);
 * _store writes the readings (window_dep_stats) in the window's
 * transaction. _read: one reading now (0, or -1: none), t its command's
 * start and end (wall seconds; the snapshot lies between); a window's (wid
 * >= 0) failed command is a warning (the first), an event
 * dep_stats_failed (each) and a count at _release; a ladder's (wid -1)
 * is its caller's to report. _end also sets each dep_run's stats_t. */
struct depstats;
void runner_depstats_begin(struct run_ctx *rc, int64_t wid);
void runner_depstats_end(struct run_ctx *rc, int64_t wid, struct evidence *e);
int runner_depstats_store(struct run_ctx *rc, int64_t wid);
int runner_depstats_read(struct run_ctx *rc, size_t i, int64_t wid, struct depstats *out,
			 double t[2]);
void runner_depstats_set_ceiling(struct run_ctx *rc, size_t i, double ceiling);
void runner_depstats_release(struct run_ctx *rc);
/* Stop them all (reverse order); _release also frees. */
void runner_deps_stop(struct run_ctx *rc);
void runner_deps_release(struct run_ctx *rc);

#endif
