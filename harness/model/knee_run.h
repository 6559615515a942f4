/*
 * knee_run: the rules that turn a stored window into the knee's input
 * (knee.h's struct knee_window), one copy for every reader. The run view
 * (view.h) applies them to every window (view_knee_windows); the runner
 * (runner_stages.c: ladder stop, refine points, confirm brackets, soak
 * rate) and the readers of a stored run (report, compare, history,
 * `harness knee RUN`) fit the knee from there, and report's windows.csv
 * carries the same values so `harness knee --windows` refits the same
 * knees.
 *
 * A window's knee input: its rung is `rate` (the planned offered rate);
 * valid = status accepted or failed, state done, stage ladder, refine or
 * confirm; pct_ms = the SLO percentile of its latency histogram (view.h
 * pslo_ms); requests = due; bad = s4xx + s5xx + s_other + transport
 * errors + dropped (docs/DESIGN.md "Errors"), for a failed window at least
 * due - s2xx - s3xx (knee_window_bad()).
 *
 * Per-request promises (workload.requests[].slo_ms): a window holds the
 * promise only when the mix's percentile is within the SLO and every
 * request with an slo_ms has its own percentile (from its measured
 * histogram in window_requests) within it. The knee reads one value per
 * window, so pct_ms becomes max(pct_ms, threshold_ms x ratio), ratio the
 * largest of a request's percentile over its slo_ms (knee_apply_ratio):
 * above the threshold exactly when some request misses its own promise.
 */
#ifndef HARNESS_KNEE_RUN_H
#define HARNESS_KNEE_RUN_H

/* The knee's `bad` of a window (knee.h): errors, and for a failed window
 * at least due - ok (ok: 2xx + 3xx responses), never below 0. */
double knee_window_bad(int failed, double due, double errors, double ok);

/* pct_ms raised to threshold_ms x ratio (NAN stays NAN). */
double knee_apply_ratio(double pct_ms, double threshold_ms, double ratio);

#endif
