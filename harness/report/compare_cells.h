/*
 * compare_cells: the metric cells of one implementation, for
 * compare_verdict.c (the rules are compare.h's, "Metric cells").
 *
 * A cell is one metric (latency, cpu_per_request, a request's latency)
 * at one rate both sides measured. Its shift and one-sided p-values come
 * from the per-window values (paired by stage and block, or unpaired);
 * the judged cells of an implementation form one family, Holm-adjusted
 * by default, and each gets its MDE at the family's level and a verdict.
 * Requests without their own promise get advisory cells, unadjusted and
 * never tallied.
 */
#ifndef HARNESS_COMPARE_CELLS_H
#define HARNESS_COMPARE_CELLS_H

#include <stddef.h>

#include "report/compare.h"

/* Request k of NEW's spec has its own promise (slo_ms): its cells are
 * judged with the implementation's others. */
int cmp_req_judged(const struct compare *c, size_t k);

/*
 * The rates where NEW's ci->name and BASE's arm barm (in run bs: the
 * base run, or NEW's own run for a paired "<impl>@base" arm) both have
 * valid windows, appended to ci->rates (ci owns them; compare_release
 * frees them): their valid and failed counts, valid pairs, outcome
 * regression, and, where both sides have accepted windows, the cells
 * with their verdicts. Sets ci->ncells (the family's size), counts in
 * ci->suspects the undecided cells whose shift is beyond the margin, and
 * adds each judged cell's verdict to tally[verdict]. The per-window
 * values (xa, xb) are freed once judged.
 */
void cmp_impl_rates(struct compare *c, struct cmp_impl *ci, const struct cmp_run *bs,
		    const char *barm, int tally[6]);

#endif
