/*
 * store_run: a run's own rows (runs, impls, host_facts) as one struct,
 * written and read through one column list per table (store_run.c).
 * cmd_rerun, cmd_runs, compare, report, status, audit and the runner's
 * resume all read a run through run_record_load().
 *
 * Ownership: struct run_record owns everything it points to;
 * run_record_release() frees it. Loaders fail with one error() line naming
 * the database file (and sqlite's message when sqlite failed).
 */
#ifndef HARNESS_STORE_RUN_H
#define HARNESS_STORE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One row of the impls table. Tri-state ints are -1 when NULL. */
struct run_impl {
	char *run_id;
	char *name;
	int ord;                     /* position in the spec */
	char *repo, *commit_id, *branch;
	int dirty;                   /* -1 unknown */
	char *diff_hash;
	char *ref_asked, *remote_url, *src_dir;   /* rerun: what was fetched */
	char *baseline_of;           /* rerun --with-baseline: the impl cloned */
	double knee_rps;             /* NAN: none */
	int knee_crossed;            /* -1 unknown */
	char *knee_kind;             /* point|bracket|floor|none (knee.h); NULL before schema 4 */
	double knee_lo_rps, knee_hi_rps;  /* a bracket's (lo, hi], a point's rungs */
	char *knee_reason;           /* a bracket's reason */
};

struct host_fact {
	char *run_id;
	char *key, *value;
};

/* The runs row, its impls (ordered by ord, name) and host facts (by key). */
struct run_record {
	char *id, *spec_name, *spec_path;
	struct store_blob spec_text; /* the frozen bytes (p NULL: NULL) */
	char *spec_hash;
	int64_t seed;
	char *stages;
	double created_at, finished_at;
	char *status;                /* running|finished|failed|interrupted */
	char *failure;
	char *failure_kind;          /* sandbox|build|start|environment|
					interrupted|nothing_measured, or NULL */
	char *failure_impl;          /* build and start: the implementation */
	int exploratory, forced;
	char *harness_version, *parent_run, *sandbox_user;
	char *spec_repo, *spec_commit, *spec_branch;
	int spec_dirty;              /* -1 unknown */
	int rules;                   /* judge.h JUDGE_RULES it was judged by;
					-1: recorded before schema 10 */
	int preflight_cases;         /* -1: no pre-flight recorded (schema 11) */
	int preflight_passed;        /* -1 with it */
	char *preflight;             /* summary line, then one line per failing case */

	struct run_impl *impls;
	size_t nimpls;
	struct host_fact *host;
	size_t nhost;
};

void run_record_init(struct run_record *r);
void run_record_release(struct run_record *r);
void run_impl_init(struct run_impl *im);
/* The column lists (for tests). */
const struct store_table *run_table(void);
const struct store_table *run_impl_table(void);
/* runs, impls or host_facts; NULL for another name. */
const struct store_table *store_run_table(const char *name);
void run_impl_release(struct run_impl *im);

/* Load run_id's record (run_id NULL: the database's only run). -1 after
 * error(): "database holds no run", "no run 'x'", or sqlite's message. */
int run_record_load(struct store *st, const char *run_id, struct run_record *r);
/* The impl called name, or NULL. */
const struct run_impl *run_record_impl(const struct run_record *r, const char *name);
/* The stored spec's bytes as (text, len) for spec_parse(); -1 after an
 * error() naming the database when the run holds no spec (NULL or empty:
 * a parser must never see it). */
int run_record_spec(const struct run_record *r, const char *db_path, const char **text,
		    size_t *len);

/* ------------------------------------------------------- the runs dir */

/* One run directory under a runs directory. */
struct run_entry {
	char *dir;                   /* runs_dir/<name> */
	struct run_record rec;       /* readable: loaded; else id = <name>,
					status = "unreadable" */
	int readable;
};

/* Every directory under runs_dir holding a run.db, oldest first (created_at,
 * then id). A database that cannot be read is listed unreadable after one
 * error() line naming it. *v is malloc'd; free with run_entries_free. -1
 * after error() when runs_dir cannot be read (*missing set when it does not
 * exist: before the first run). */
int store_runs_list(const char *runs_dir, struct run_entry **v, size_t *n, int *missing);
void run_entries_free(struct run_entry *v, size_t n);
/*
 * What a reader shows of a run: one stored `running` whose process is
 * gone (nobody holds DIR/.lock, runlock.h) reads status "abandoned", its
 * failure the evidence ("its process is gone: nothing holds DIR/.lock;
 * ..."); any other record is left as stored. For `status`, `runs`,
 * `compare`, reports and `history`, never for the runner (resume reads
 * the stored status).
 */
void run_record_show_abandoned(struct run_record *r, const char *dir);
/* The same for each readable entry. */
void run_entries_show_abandoned(struct run_entry *v, size_t n);
/* The newest readable run's directory (`latest`); -1 after error(). */
int store_latest_run(const char *runs_dir, struct sbuf *dir);

/* Writers (inside the caller's transaction). */
int store_run_insert(struct store *st, const struct run_record *r);  /* runs row only */
int store_impl_insert(struct store *st, const struct run_impl *im);
int store_host_fact_upsert(struct store *st, const struct host_fact *f);
/* impls.knee_* of run_id's impl name: the knee the runner used
 * (harness/model/knee.h; kind and reason may be NULL). */
int store_impl_set_knee(struct store *st, const char *run_id, const char *name,
			double knee_rps, int crossed, const char *kind, double lo_rps,
			double hi_rps, const char *reason);
/* runs.status, failure, failure_kind, failure_impl (NULL: NULL),
 * finished_at (NAN: NULL). */
int store_run_set_status(struct store *st, const char *run_id, const char *status,
			 const char *failure, const char *kind, const char *impl,
			 double finished_at);
/* runs.preflight_cases, preflight_passed, preflight (harness/runner/preflight.h). */
int store_run_set_preflight(struct store *st, const char *run_id, int cases, int passed,
			    const char *text);
/* runs.forced = 1. */
int store_run_set_forced(struct store *st, const char *run_id);

#endif
