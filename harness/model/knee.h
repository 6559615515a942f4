/*
 * knee: an implementation's knee, the one rule the runner (ladder stop,
 * confirm brackets, soak and warm-up rates), the report, `harness knee`
 * and `compare` all use (docs/DESIGN.md "The knee"; specs/README.md says
 * it for spec writers).
 *
 * Input: the implementation's *valid* windows (accepted and failed; never
 * rejected ones, never another implementation's) of the stages that back
 * the knee (ladder, refine, confirm). Windows with equal offered rates
 * (rate.h rate_same) form a rung.
 *
 * Per rung, over its valid windows:
 *   B      = sum(bad) / sum(requests): the pooled share of the requests due
 *            that did not get an expected answer (unexpected statuses,
 *            transport errors, dropped, unserved);
 *   value  = +infinity (a crossing) when every valid window failed (a
 *            wall), or B > error_rate_max (the SLO's error promise broken
 *            over the pooled requests), or B > 1 - percentile/100 (the
 *            pooled SLO percentile, unserved requests counted as infinitely
 *            slow, is infinite); else the request-weighted mean of the
 *            windows' SLO percentile (each read from its own merged
 *            histogram).
 * So one failed window among many does not pin the knee unless the rung's
 * pooled evidence says so, and with accepted windows only (whose error
 * rates are within the promise) the value is the request-weighted mean of
 * their percentiles, as before failed windows existed.
 *
 * PAVA (non-decreasing) over the rungs, weighted by requests, +infinity as
 * a large finite sentinel; the knee is the first rung whose fit reaches
 * threshold_ms:
 *   KNEE_POINT    interpolated between the last rung that holds and it;
 *                 at the first rung: knee <= that rung (never extrapolated);
 *   KNEE_BRACKET  the crossing is made by an infinite rung (failed windows,
 *                 errors, unserved requests): the knee is in (lo, hi], with
 *                 a reason ("at 2025 req/s 83.0% of offered requests served
 *                 OK; 3 of 3 windows failed"); lo is NAN when the first
 *                 rung already crossed;
 *   KNEE_FLOOR    no crossing: knee >= the highest valid rung (the
 *                 implementation held the SLO at every valid rung);
 *   KNEE_NONE     no valid window.
 * Interval: nboot resamples (seeded). In each, every rung resamples its
 * valid windows (which decides whether it is infinite); a finite rung's
 * value is then its mean plus its standard error times a draw of Student's
 * t with k - 1 degrees of freedom (k: its windows with a percentile; a
 * rung of one such window keeps its value: it shows no spread, so a point
 * between rungs one of which has a single such window gets no interval,
 * has_ci 0, while nboot and ncrossed still count). A resample
 * contributes its knee (point), its bracket's ends (bracket) or the highest
 * rung (no crossing); the interval is the percentiles of those, so it
 * never leaves [lowest, highest rung]. docs/STATISTICS.md "The knee's
 * interval" gives the simulated coverage behind the t draw (a plain window
 * bootstrap covered 0.77 at 3 windows a rung). Inferential when both
 * bracketing rungs have >= min_reps valid windows.
 *
 * Pure and deterministic; arrays are the caller's; knee_result owns its
 * rung table (knee_result_release).
 */
#ifndef HARNESS_KNEE_H
#define HARNESS_KNEE_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;
struct spec;

/* One valid window. */
struct knee_window {
	double rate;       /* offered req/s: its rung */
	int failed;        /* 1: failed (an outcome gate, death); 0: accepted */
	double pct_ms;     /* its SLO percentile from its merged histogram; NAN: none */
	double requests;   /* requests due (the weight) */
	double bad;        /* of them, not answered as expected: the window's
			      errors (unexpected statuses + transport errors +
			      dropped); for a failed window at least due - 2xx -
			      3xx, so requests still unserved when it ended count
			      (an accepted window's deficit is boundary noise:
			      requests in flight at its two ends) */
};

struct knee_params {
	double percentile;     /* slo.percentile, e.g. 99 or 99.9 */
	double threshold_ms;   /* slo.threshold_ms */
	double error_rate_max; /* slo.error_rate_max; NAN: no error criterion */
	size_t min_reps;       /* confirm.reps: valid windows per bracketing rung */
	uint64_t seed;         /* bootstrap */
	size_t nboot;          /* 0: no interval */
	double level;          /* interval level, e.g. 0.95 */
	int plain_bootstrap;   /* 1: the window bootstrap at every n (the rule
				  before the t draw; kept for the coverage
				  test that shows why it went) */
};

/* The spec's SLO, confirm.reps (10 without confirm, at least 2), seed,
 * 2000 resamples at level 1 - compare.alpha. */
void knee_params_from_spec(struct knee_params *p, const struct spec *spec);

enum knee_kind { KNEE_NONE = 0, KNEE_POINT, KNEE_BRACKET, KNEE_FLOOR };

/* One rung as fitted (sorted by rate). */
struct knee_rung_row {
	double rate;
	size_t nwin, nfailed;
	double requests, bad;  /* pooled */
	int inf;               /* value is +infinity (see above) */
	double value_ms;       /* the rung value; NAN when inf */
	double fit_ms;         /* isotonic fit; INFINITY when the sentinel */
};

struct knee_result {
	enum knee_kind kind;
	int crossed;             /* POINT or BRACKET */
	int at_first_rung;       /* crossed at the lowest valid rung */
	double knee_rps;         /* POINT: the knee; BRACKET: hi; else NAN */
	double lo_rps, hi_rps;   /* BRACKET: (lo, hi]; POINT: the bracketing rungs */
	double hold_rps;         /* the highest rate known to hold: POINT the knee,
				    BRACKET lo (NAN at the first rung), FLOOR the
				    highest rung; for soak and warm-up rates */
	double highest_rung_rps;
	char reason[160];        /* BRACKET: why; else "" */
	size_t lo, hi;           /* bracketing rung indices into rungs[] */
	size_t nrungs;
	struct knee_rung_row *rungs;
	size_t nvalid, nfailed;  /* windows used */
	/* interval (has_ci = 0 without resamples or data, or for a point
	 * whose bracketing rung has one window with a percentile) */
	int has_ci;
	double ci_lo, ci_hi;
	size_t nboot, ncrossed;
	int inferential;
};

/* Fit. Returns 0 (out filled; KNEE_NONE when n == 0 or nothing valid). */
int knee_fit(const struct knee_window *w, size_t n, const struct knee_params *p,
	     struct knee_result *out);
void knee_result_release(struct knee_result *r);

/* One phrase: "knee 1180 req/s" (", interpolated between 1000 and 1500
 * (no interval)" when it has none), "knee <= 500 req/s (over the SLO at the
 * first rung)", "knee in (1350, 2025] req/s: at 2025 req/s ...",
 * "knee >= 1493 req/s (held the SLO at every valid rung)", "no knee: no
 * valid window". */
void knee_describe(const struct knee_result *r, struct sbuf *out);
/* "point" | "bracket" | "floor" | "none" */
const char *knee_kind_name(enum knee_kind k);

#endif
