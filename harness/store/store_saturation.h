/*
 * store_saturation: the closed-loop stage's rows (table saturation,
 * schema 14; stages.saturation, harness/runner/runner_saturation.c). One row
 * per implementation per rep, written once it ran; a resumed run skips
 * the reps that have one. Never a window: a closed loop's latency is a
 * service time, and its throughput no knee (docs/DESIGN.md "Closed-loop
 * saturation").
 *
 * Ownership: loaded rows are the caller's (saturation_rows_free). Every
 * function returns 0, or -1 after an error() naming the database.
 */
#ifndef HARNESS_STORE_SATURATION_H
#define HARNESS_STORE_SATURATION_H

#include <stddef.h>

#include "store/store.h"

struct saturation_row {
	char *run_id, *impl;
	int rep, connections;
	double elapsed_s;       /* start to the last answer */
	int64_t requests;       /* answered */
	int64_t errors;         /* transport errors + unexpected answers */
	double throughput_rps;  /* requests / elapsed_s */
	double p50_ms, p90_ms, p99_ms, p999_ms, max_ms;
	double cpu_s;           /* the implementation's CPU; NAN unknown */
	double gen_cpu_pct;     /* generator CPU, % of its threads' cores */
	int exited;
	struct store_blob hist; /* hist_serialize */
};

int store_saturation_put(struct store *st, const struct saturation_row *r);
/* The run's rows by impl, rep; *n 0 for a run without the stage (or a
 * database from before schema 14: then too). */
int store_saturation_load(struct store *st, const char *run_id, struct saturation_row **out,
			  size_t *n);
void saturation_rows_free(struct saturation_row *v, size_t n);
const struct store_table *store_saturation_table(void);

#endif
