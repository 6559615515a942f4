/*
 * run_quality: how much of a run measured something, in one line:
 *
 *   14 windows: 9 accepted, 3 failed, 2 rejected (top: generator 2); load 1.9 -> 2.3
 *   12 windows: ..., 2 replacements; 1 cell short: ladder 200 req/s b 1/2 valid; load ...
 *
 * Counts are over done windows by status (docs/DESIGN.md, "Window status":
 * accepted and failed windows are valid measurements, rejected ones are
 * void); "top" is the reason that rejected the most windows (a window
 * rejected by two gates counts for both; ties go to the name first in
 * alphabetical order); replacements counts windows planned to replace a
 * rejected one, and a cell short (cells.h: fewer valid windows than
 * pre-registered once its replacements ran out) is named; load is the host's 1-minute load average when the
 * run started and when it ended ("?" when unknown). `harness run` and
 * `resume` print it at the end on standard error; every report format
 * carries it at the top (report.json as an object).
 *
 * Ownership: struct run_quality owns its reason table; run_quality_release()
 * frees it. Nothing here fails.
 */
#ifndef HARNESS_RUN_QUALITY_H
#define HARNESS_RUN_QUALITY_H

#include <stddef.h>

struct sbuf;
struct store;

struct run_quality_reason {
	char *name;
	size_t count;
};

struct run_quality {
	size_t windows;              /* done windows */
	size_t accepted, failed, rejected;
	size_t not_done;             /* planned or running */
	struct run_quality_reason *reasons; /* over rejected windows */
	size_t nreasons, alloc;
	double load_start, load_end; /* 1-minute load average; NAN unknown */
	size_t replacements;         /* windows replacing a rejected one */
	size_t nshort;               /* cells short of their pre-registered n */
	char *shorts;                /* "ladder 200 req/s b 1/2 valid, ..." or NULL */
};

void run_quality_init(struct run_quality *q);
void run_quality_release(struct run_quality *q);

/* Count one window: status "accepted" | "failed" | "rejected" (anything
 * else, NULL or "", counts as not done); reasons a comma list (rejected
 * windows only are counted by reason). */
void run_quality_add(struct run_quality *q, const char *status, const char *reasons);

/* The reason that rejected the most windows, or NULL; *count its count. */
const char *run_quality_top(const struct run_quality *q, size_t *count);

/* Parse a load average as stored ("1.93"); NAN for NULL, "unknown", junk. */
double run_quality_parse_load(const char *s);

/* Append the line above (no trailing newline). */
void run_quality_format(const struct run_quality *q, struct sbuf *out);

/* Count the replacements and name the short cells (cells.h). */
struct cells;
void run_quality_cells(struct run_quality *q, const struct cells *cells);

/* Read run_id's windows and its loadavg host facts from the store (the
 * start from host fact loadavg_1m, the end from loadavg_1m_end). -1 after
 * an error() naming the database. */
int run_quality_load(struct store *st, const char *run_id, struct run_quality *q);

/* When a run stops (finished, failed after measuring, interrupted): record
 * the load average now as host fact RUN_QUALITY_LOAD_END_KEY, then print
 * "harness: RUN run quality: <line>" on standard error. -1 after an
 * error() (the line is then not printed). */
int run_quality_finish(struct store *st, const char *run_id);

/* The host fact the runner writes when a run stops (finished, failed or
 * interrupted): the 1-minute load average then. */
#define RUN_QUALITY_LOAD_END_KEY "loadavg_1m_end"

#endif
