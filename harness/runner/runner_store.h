/*
 * runner_store: step 4 of a window (harness/runner/runner_window.c), storing a
 * measured and judged window.
 *
 * Contract: the caller has measured and judged the window and fills a
 * struct window_record whose pointers it keeps valid for the call; the
 * record is read only (nothing in it is taken over or freed). The warm-up
 * and measured evidence carry their totals already (runner_window.c
 * fills them, the measured part's by its judge step). Runs on the
 * runner's thread, inside no open transaction of the caller's.
 */
#ifndef HARNESS_RUNNER_STORE_H
#define HARNESS_RUNNER_STORE_H

#include <stdint.h>

struct account_window;
struct evidence;
struct gate_result;
struct load_stats;
struct run_ctx;
struct spec;
struct window_reset_rows;
struct window_seconds;
struct window_verdict;

struct window_record {
	int64_t id;                          /* the planned window's row */
	const struct spec *spec;
	const char *impl;                    /* the arm's name, for events */
	const struct window_verdict *verdict;
	int warm_passed, sut_exited;
	double started_wall;                 /* unix s the measured part began; NAN: never */
	/* totals with the evidence <-> column map (evidence_load.h) */
	const struct evidence *warm, *meas;
	/* warm-up and measured part (drain included): counts, histograms */
	const struct load_stats *warm_total, *meas_total;
	const struct account_window *acct;   /* NULL: no accounting */
	const struct window_seconds *secs;   /* every second, all phases, in order */
	const struct window_reset_rows *resets;
	/* the last warm-up evaluation ([spec->warmup.ngates], warm_evals of
	 * them; 0: none stored), the window gates ([spec->nwindow_gates]) and
	 * the head gates ([spec->warmup.nhead_gates]), as judged */
	const struct gate_result *warm_gates, *gates, *head;
	unsigned warm_evals;
};

/* One transaction: the window's row (state done, status, reasons, every
 * result column), its series, resets, dependencies and gate results.
 * 0, or -1 (rolled back, nothing stored) after an error(). */
int runner_store_window(struct run_ctx *rc, const struct window_record *r);

#endif
