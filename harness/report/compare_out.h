/*
 * compare_out: what compare's writers (compare_md.c, compare_json.c,
 * compare_junit.c) say alike, so the formats cannot word it apart.
 * Report-internal. Each appends to the caller's buffer; nothing is kept.
 */
#ifndef HARNESS_COMPARE_OUT_H
#define HARNESS_COMPARE_OUT_H

#include "report/compare.h"

/* "holm" or "none". */
const char *cmp_out_correction(int corr);
/* The p-value of the estimate's direction, raw -> adjusted under Holm,
 * e.g. "rise 0.0039 → 0.016"; "not tested" when untested. */
void cmp_out_p(struct sbuf *o, const struct cmp_metric *m, int corr);
/* The MDE at prec decimals with its % of base; "none (n too small)"; "-". */
void cmp_out_mde(struct sbuf *o, const struct cmp_metric *m, int prec);
/* 1 and *d = new - base when both knees are points; else 0. */
int cmp_out_knee_shift(const struct cmp_impl *im, double *d);

#endif
