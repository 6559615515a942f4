/*
 * compare_pooled: each judged metric's pooled evidence over every rate
 * (struct cmp_pooled, compare.h), for compare_cells.c's family.
 */
#ifndef HARNESS_COMPARE_POOLED_H
#define HARNESS_COMPARE_POOLED_H

#include <jansson.h>

#include "report/compare.h"

/*
 * ci->pooled from the per-window pairs of ci's judged cells (their xa =
 * NEW, xb = BASE, still held): one entry per judged metric (latency and
 * CPU per compare.metric, then each request with its own slo_ms), with
 * its test, shift, interval, margin and raw p-values (padj = p). Nothing
 * (npooled 0) for an unpaired implementation or when the paired cells are
 * judged by the confidence sequence. ci owns the array.
 */
void cmp_pooled_build(const struct compare *c, struct cmp_impl *ci);

/* pm's MDE at level (its first step in the family) and its verdict from
 * its adjusted p-values (compare.h's cell rule, on the pooled shift). */
void cmp_pooled_judge(const struct compare *c, struct cmp_pooled *pm, double level);

/* "latency", "cpu_per_request" or "request NAME's latency" into buf. */
const char *cmp_pooled_name(const struct compare *c, const struct cmp_pooled *pm, char *buf,
			    size_t len);

/* Writers (compare_out_pooled.c). The unit of pm's metric ("ms", "µs"). */
const char *cmp_pooled_unit(const struct cmp_pooled *pm);
/* The implementation's pooled paragraph and table, appended to its
 * document (report_doc.h); nothing when none. */
struct rdoc;
void cmp_pooled_md(const struct compare *c, const struct cmp_impl *im, struct rdoc *d);
/* A JSON array of the implementation's pooled tests (new reference). */
json_t *cmp_pooled_json(const struct compare *c, const struct cmp_impl *im);
/* One line of detail of pm (d is reset first). */
void cmp_pooled_detail(const struct compare *c, const struct cmp_pooled *pm, struct sbuf *d);

#endif
