/*
 * runner: a whole run, window by window (docs/DESIGN.md, "Data flow of one
 * window"): plan -> sut start -> health -> warm-up with gates -> discard ->
 * measured window (load + accounting + runtime stats) -> window gates ->
 * one sqlite transaction -> sut stop/keep -> next.
 *
 * `harness run`, `harness resume` and `harness rerun` all end up here.
 */
#ifndef HARNESS_RUNNER_H
#define HARNESS_RUNNER_H

#include <stddef.h>

struct armops;
struct load_config;
struct load_result;

enum stage_bits { STAGE_LADDER = 1, STAGE_CONFIRM = 2, STAGE_SOAK = 4, STAGE_SATURATION = 8 };
/* Parse "ladder,confirm,soak"; -1 on an unknown name. */
int runner_parse_stages(const char *s, unsigned *out);

/*
 * A rerun replaces an implementation's source (same name, new work tree)
 * or adds an arm cloned from one (new name, e.g. "go@base"), interleaved
 * in the same blocks as every other arm.
 */
struct run_arm {
	const char *name;        /* arm name */
	const char *clone_of;    /* NULL: replaces the implementation `name` */
	const char *src_dir;     /* work tree to build and start in */
	const char *commit;      /* recorded commit id */
	const char *ref_asked;   /* the ref the user asked for, or NULL */
	const char *remote_url;  /* credentials already stripped, or NULL */
	int untrusted;           /* build and run as the sandbox user */
	/* Fetched on the implementation's host (implementations[].host,
	 * rsut_fetch.h): src_dir is its path there, held by this agent for
	 * the run (the caller closes it after runner_run); else NULL. */
	struct rsut_src *remote_src;
};

/*
 * What a run is made of beyond its spec and its host, for unit tests that
 * drive the runner in-process against fake arms on a fake clock
 * (tests/unit/test_runner.c). The binary passes none (run_opts.seams
 * NULL): each implementation and dependency on armops_pick's backend, the
 * load engine (or workload.generators' agents), the system clock.
 * Borrowed: outlives runner_run.
 */
struct runner_seams {
	/* every arm's and dependency's backend (armops.h) */
	const struct armops *backend;
	/* one warm-up's or window's load, with load_run's contract (load.h) */
	int (*load)(void *ctx, const struct load_config *cfg, struct load_result *res);
	/* the clock of the runner's decisions and stamps: unix seconds now,
	 * and a wait of s seconds (runner_clock.c) */
	double (*now)(void *ctx);
	void (*sleep)(void *ctx, double s);
	void *ctx;
};

struct run_opts {
	const struct runner_seams *seams;  /* NULL: the real ones (above) */
	const char *runs_dir;    /* NULL: store_runs_dir() default */
	const char *run_id;      /* NULL: generated (UTC timestamp + host) */
	unsigned stages;         /* 0: every stage the spec declares */
	int allow_dirty;         /* accept a dirty spec; stamp exploratory */

	/* The spec: a file, or text stored in another run (rerun). */
	const char *spec_path;
	const char *spec_text;   /* when non-NULL, used instead of the file */
	size_t spec_len;
	const char *spec_base_dir;
	const char *parent_run;  /* rerun: the run the spec text came from */
	int exploratory;         /* rerun of an exploratory run: stamp this one too */

	const struct run_arm *arms;
	size_t narms;

	/* rerun --until-decided: after the pre-registered blocks, paired
	 * blocks until decided (runner_until.c); the budget in minutes of
	 * the whole rerun (<= 0: compare.sequential.max_minutes) */
	int until_decided;
	double max_minutes;
};

/* A new run id: the UTC time and suffix (NULL: the host name), e.g.
 * 20261202T051533-bench1, with -2, -3... when runs_dir already has it.
 * Caller frees. */
char *runner_new_run_id(const char *runs_dir, const char *suffix);

/* The longest run id --run-id accepts (a directory name, a line of
 * output, a key in every table). */
#define RUNNER_RUN_ID_MAX 64

/* 0 when id is a run id a user may choose: 1..RUNNER_RUN_ID_MAX
 * characters of [A-Za-z0-9._-], not starting with '.' or '-' (a hidden
 * directory, an option). Else -1 after one error() line naming cmd's
 * --run-id and the offending character (escaped) or the length. */
int runner_check_run_id(const char *cmd, const char *id);

/* Start a new run; prints the run id as the first line of stdout.
 * Returns an exit code (enum exit_code). */
int runner_run(const struct run_opts *o);

/* SIGINT, SIGTERM and SIGHUP ask the run to stop from now on (runner_run
 * and runner_resume catch them themselves): for what comes before it, a
 * rerun's fetches. runner_stop_asked: has one come. */
void runner_catch_stop(void);
int runner_stop_asked(void);

/* Continue the run in dir (resume). force: accept a changed spec hash or
 * commit, stamping the run. Returns an exit code. */
int runner_resume(const char *run_dir, int force);

#endif
