/*
 * knee_run: an implementation's knee from a run database, through the one
 * rule of knee.h. The runner (ladder stop, confirm brackets, soak rate),
 * `harness knee RUN`, and `compare` call this; the report builds the same
 * knee_window values from its own window model (same columns, same rule),
 * and its windows.csv carries them so `harness knee --windows` refits the
 * same knees.
 *
 * A window's knee input, from the windows table: its rung is `rate` (the
 * planned offered rate); valid = status accepted or failed, state done,
 * stage ladder, refine or confirm; pct_ms = the SLO percentile of its
 * latency_hist (without a histogram: p50/p90/p99/p999_ms when the
 * percentile is one of those, else none); requests = due; bad = s4xx +
 * s5xx + s_other + transport errors + dropped (docs/DESIGN.md "Errors"),
 * for a failed window at least due - s2xx - s3xx (knee_window_bad()).
 */
#ifndef HARNESS_KNEE_RUN_H
#define HARNESS_KNEE_RUN_H

#include <stddef.h>

#include "knee.h"
#include "store.h"

struct spec;

/* The knee's `bad` of a window (knee.h): errors, and for a failed window
 * at least due - ok (ok: 2xx + 3xx responses), never below 0. */
double knee_window_bad(int failed, double due, double errors, double ok);

/* The valid windows of impl in run_id (ladder windows only at rungs <=
 * max_ladder_rung when it is >= 0). *out is malloc'd (free it); -1 after
 * one error line. */
int knee_run_windows(struct store *st, const char *run_id, const char *impl,
		     double percentile, int max_ladder_rung, struct knee_window **out,
		     size_t *n);

/* Load and fit with the spec's SLO, seed and confirm.reps
 * (knee_params_from_spec), nboot resamples (0: no interval). out must be
 * released with knee_result_release() (also after -1). */
int knee_for_impl(struct store *st, const char *run_id, const char *impl,
		  const struct spec *spec, int max_ladder_rung, size_t nboot,
		  struct knee_result *out);

#endif
