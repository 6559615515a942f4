/*
 * sigexpr: derived runtime-stats signals (implementations[].stats.signals
 * entries whose value starts with '='), computed from the polls rtstats
 * already takes (specs/README.md "Derived signals", docs/STATISTICS.md).
 *
 * An expression is arithmetic (+ - * /, parentheses, numbers) over the
 * polled signals of its implementation, by name. A signal read as several
 * series (a Prometheus selector with free labels, a JSON object of
 * counters) is their sum. Two kinds:
 *
 *   per poll    no window function: evaluated at every poll, a series the
 *               warm-up and window gates see like a polled signal (e.g.
 *               "= pool_idle + pool_busy"); a window's value is its mean.
 *   per window  every signal inside a window function, one number per
 *               window:
 *                 delta(s)        increase over the window (a counter;
 *                                 a drop is a restart: its new value counts)
 *                 rate(s)         delta(s) / seconds between its first and
 *                                 last poll
 *                 mean(e) min(e) max(e) last(e)   of a per-poll expression
 *                 quantile(q, s)  s a histogram (series named by their upper
 *                                 bound, as Prometheus's le; cumulative):
 *                                 the q-quantile of the window's
 *                                 observations, interpolated within the
 *                                 bucket as histogram_quantile does
 *               e.g. "= delta(cache_hits) / (delta(cache_hits) +
 *               delta(cache_misses))", "= quantile(0.99, gc_pause_bucket)".
 *
 * A value that cannot be computed (a signal never read, a division by
 * zero, no observation in the window) is NAN with a reason, never 0.
 *
 * Ownership: a struct sigexpr owns its tree (sigexpr_free). Evaluation
 * borrows the rows and allocates only what it returns. No global state.
 */
#ifndef HARNESS_SIGEXPR_H
#define HARNESS_SIGEXPR_H

#include <stddef.h>

enum sigexpr_kind { SIGEXPR_POLL, SIGEXPR_WINDOW };

struct sigexpr;

/* Parse text (without its leading '='); every name must be one of
 * known[0..nknown), or any name when known is NULL (a dependency's
 * counters: whatever its stats command prints, unknown before the run).
 * 0, or -1 with *err (malloc'd: "column N: ..."). */
int sigexpr_parse(const char *text, const char *const *known, size_t nknown,
		  struct sigexpr **out, char **err);
enum sigexpr_kind sigexpr_kind(const struct sigexpr *x);
void sigexpr_free(struct sigexpr *x);
/* 1 when x calls the window function fn ("rate", "delta", ...). */
int sigexpr_uses(const struct sigexpr *x, const char *fn);

/* One stored reading (table rtstats): a signal's value, or one of its
 * series (key), at one poll. Rows are ordered by t; the rows of one poll
 * share its t. Rows of failed polls (signal "") and NAN values are
 * skipped. */
struct sigexpr_row {
	double t;
	const char *signal;
	const char *key;             /* NULL for a single number */
	double value;
};

/* The window's value: a per-window expression's, or a per-poll one's
 * mean. NAN with *why (a static string) when it cannot be computed. */
double sigexpr_window(const struct sigexpr *x, const struct sigexpr_row *rows, size_t n,
		      const char **why);
/* A per-poll expression at every poll where it is a number: returns the
 * count, *t and *v malloc'd (NULL when none). 0 for a per-window one. */
size_t sigexpr_series(const struct sigexpr *x, const struct sigexpr_row *rows, size_t n,
		      double **t, double **v);

#endif
