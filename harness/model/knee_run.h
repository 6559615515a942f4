/*
 * knee_run: an implementation's knee from a run database, through the one
 * rule of knee.h. The runner (ladder stop, confirm brackets, soak rate)
 * calls this during a run; the readers of a stored run (report, compare,
 * history, `harness knee RUN`) take the run view's knee (view.h), built
 * from the same knee_window values (same columns, same rule), and
 * report's windows.csv carries them so `harness knee --windows` refits
 * the same knees.
 *
 * A window's knee input, from the windows table: its rung is `rate` (the
 * planned offered rate); valid = status accepted or failed, state done,
 * stage ladder, refine or confirm; pct_ms = the SLO percentile of its
 * latency_hist (without a histogram: p50/p90/p99/p999_ms when the
 * percentile is one of those, else none); requests = due; bad = s4xx +
 * s5xx + s_other + transport errors + dropped (docs/DESIGN.md "Errors"),
 * for a failed window at least due - s2xx - s3xx (knee_window_bad()).
 *
 * Per-request promises (workload.requests[].slo_ms): a window holds the
 * promise only when the mix's percentile is within the SLO and every
 * request with an slo_ms has its own percentile (from its measured
 * histogram in window_requests) within it. The knee reads one value per
 * window, so pct_ms becomes max(pct_ms, threshold_ms x ratio), ratio the
 * largest of a request's percentile over its slo_ms (knee_request_ratio):
 * above the threshold exactly when some request misses its own promise.
 */
#ifndef HARNESS_KNEE_RUN_H
#define HARNESS_KNEE_RUN_H

#include <stddef.h>

#include "model/knee.h"
#include "store/store.h"

struct spec;

/* The knee's `bad` of a window (knee.h): errors, and for a failed window
 * at least due - ok (ok: 2xx + 3xx responses), never below 0. */
double knee_window_bad(int failed, double due, double errors, double ok);

/* The valid windows of impl in run_id (ladder windows only at rungs <=
 * max_ladder_rung when it is >= 0), judged by spec's SLO and per-request
 * promises. *out is malloc'd (free it); -1 after one error line. */
int knee_run_windows(struct store *st, const char *run_id, const char *impl,
		     const struct spec *spec, int max_ladder_rung, struct knee_window **out,
		     size_t *n);

struct window_row;
/* Window w's mix percentile (e.g. 99) in ms: from its latency histogram
 * (loaded with_hists) when it has one (NAN when it completed nothing),
 * else its stored p50/p90/p99/p999 column when the percentile is one of
 * those, else NAN. 0, or -1 when the histogram is corrupt. */
int knee_row_percentile(const struct window_row *w, double percentile, double *out);

/* 1 when some request of spec has its own slo_ms. */
int knee_has_request_slos(const struct spec *spec);
/* Window wid's largest ratio of a request's SLO percentile (measured
 * phase) to its slo_ms, over spec's requests that have one and completed
 * something; 0 when none. *worst (when non-NULL) gets that request's
 * index in spec's requests, -1 when none. 0, or -1 after an error(). */
int knee_request_ratio(struct store *st, int64_t wid, const struct spec *spec, double *ratio,
		       int *worst);
/* pct_ms raised to threshold_ms x ratio (NAN stays NAN). */
double knee_apply_ratio(double pct_ms, double threshold_ms, double ratio);

/* Load and fit with the spec's SLO, seed and confirm.reps
 * (knee_params_from_spec), nboot resamples (0: no interval). out must be
 * released with knee_result_release() (also after -1). */
int knee_for_impl(struct store *st, const char *run_id, const char *impl,
		  const struct spec *spec, int max_ladder_rung, size_t nboot,
		  struct knee_result *out);

#endif
