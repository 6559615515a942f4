/*
 * headline: the one line every report and compare output starts with
 * (markdown and text first line, html's first paragraph, json
 * "headline"), as hyperfine's "A is 2.3x faster than B" and k6's
 * summary do, saying only what the evidence supports: a knee's interval,
 * its bracket between two rungs, or "at least" (docs/DESIGN.md,
 * "Headline").
 *
 * A knee as the evidence supports it (headline_knee_range):
 *   point, inferential interval     [ci_lo, ci_hi]
 *   point, no inferential interval  [the rung that holds, the rung that
 *                                    crosses]: the interpolation is a
 *                                    guess between them, not a measurement
 *   point at the first rung         [0, that rung]
 *   bracket (failed windows)        (lo, hi], lo 0 at the first rung
 *   floor (never crossed)           [highest rung, +inf)
 * The report compares the two implementations that hold the most: A (the
 * highest low end) over B (the next): "A holds at least X times the rate
 * of B" when A's low end is above B's high end (X = A's low / B's high,
 * rounded down), else "not told apart". Compare states the answer
 * (regression, improvement, no change, inconclusive) of each judged
 * implementation with the figure that decided it: a pooled shift or a
 * cell's with its interval in % of base, else compare's own reason.
 *
 * Both append one line (no newline, no markup) to out; never "nan".
 */
#ifndef HARNESS_HEADLINE_H
#define HARNESS_HEADLINE_H

#include "model/knee.h"

struct sbuf;
struct report;
struct compare;

/* The knee's range as above; 0 when there is no knee (KNEE_NONE). */
int headline_knee_range(const struct knee_result *k, double *lo, double *hi);

void report_headline(const struct report *r, struct sbuf *out);
/* The implementation whose knee's range lies wholly above every other's
 * (the headline's "at least" case), or -1: the one to mark as the best. */
int headline_best(const struct report *r);
void compare_headline(const struct compare *c, struct sbuf *out);

#endif
