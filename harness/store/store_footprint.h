/*
 * store_footprint: what an implementation costs before any load (table
 * footprint, schema 14; written by harness/runner/runner_footprint.c, read by
 * harness/report/report_footprint.c): one row per start
 * of an implementation, read once it first answered healthy and before
 * any request of the run reached it.
 *
 * Ownership: loaded rows are the caller's (footprint_rows_free). Every
 * function returns 0, or -1 after an error() naming the database.
 */
#ifndef HARNESS_STORE_FOOTPRINT_H
#define HARNESS_STORE_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct footprint_row {
	int64_t id;             /* assigned by the database (0 when writing) */
	char *run_id, *impl;
	double at;              /* unix seconds of the reading */
	double startup_ms;      /* exec -> first healthy; NAN unknown */
	int64_t rss_kb, pss_kb; /* its processes' RSS and PSS; -1 unknown */
	int64_t artifact_bytes; /* implementations[].artifact's size; -1 none */
};

int store_footprint_add(struct store *st, const struct footprint_row *r);
/* The run's rows, by impl then time; *n 0 when none (or the database
 * predates schema 14). */
int store_footprint_load(struct store *st, const char *run_id, struct footprint_row **out,
			 size_t *n);
void footprint_rows_free(struct footprint_row *v, size_t n);
const struct store_table *store_footprint_table(void);

#endif
