/*
 * store_dep: a dependency's own ceiling and costs (schema 14): its
 * ladder's rungs before the first window (dep_ceiling) and its stats
 * command's counters before and after each window's load
 * (window_dep_stats). runs/README.md documents the tables.
 *
 * Ownership: rows read are the caller's (the *_release functions); rows
 * written borrow their strings. Writers run inside the caller's
 * transaction, or alone.
 */
#ifndef HARNESS_STORE_DEP_H
#define HARNESS_STORE_DEP_H

#include <stddef.h>
#include <stdint.h>

struct store;

struct dep_ceiling_row {
	char *run_id;
	char *name;                  /* the dependency */
	int idx;                     /* rung, 0.. */
	double rate;                 /* offered ops/s; NAN: closed loop */
	double duration_s;
	double throughput;           /* achieved ops/s as the command reported; NAN none */
	double demand_rps;           /* stats.demand's rate over the rung; NAN none */
	int kept_up;
	int exit_code;               /* -1: did not exit on its own */
};

struct window_dep_stat_row {
	int64_t window_id;
	char *name;                  /* the dependency */
	char *key;                   /* a counter of its output */
	double first, last;          /* NAN: not read at that end */
};

struct dep_ceiling_rows { struct dep_ceiling_row *v; size_t n; };
struct window_dep_stat_rows { struct window_dep_stat_row *v; size_t n; };

int store_dep_ceiling_insert(struct store *st, const struct dep_ceiling_row *r);
/* Every rung of run_id (name NULL) or of one dependency, by name, idx. */
int store_dep_ceilings_load(struct store *st, const char *run_id, const char *name,
			    struct dep_ceiling_rows *out);
void dep_ceiling_rows_release(struct dep_ceiling_rows *r);
/* Every rung of one dependency of run_id (a partial ladder, measured
 * again on resume). */
int store_dep_ceilings_delete(struct store *st, const char *run_id, const char *name);

int store_window_dep_stat_insert(struct store *st, const struct window_dep_stat_row *r);
/* Every window's counters of run_id, by window, dependency, key. */
int store_window_dep_stats_load(struct store *st, const char *run_id,
				struct window_dep_stat_rows *out);
void window_dep_stat_rows_release(struct window_dep_stat_rows *r);

/* The column list of table name (dep_ceiling, window_dep_stats), or NULL
 * (for the schema test). */
const struct store_table *store_dep_table(const char *name);

#endif
