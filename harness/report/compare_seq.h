/*
 * compare_seq: how `harness compare` judges a run made by `harness rerun
 * --until-decided` (docs/STATISTICS.md "Sequential rerun"). A fixed-n
 * test after optional stopping is invalid, so a paired implementation
 * with a stopping rule stored in NEW (store_seq.h) is judged by the rule
 * itself: the same confidence sequences (decide.h), recomputed from the
 * stored windows at the rule's judged rates with its stored level and
 * margins. The per-rate cells stay as detail.
 *
 * Ownership: struct cmp_seq is the cmp_impl's (cmp_seq_free); its rule
 * is borrowed from compare.new_.
 */
#ifndef HARNESS_COMPARE_SEQ_H
#define HARNESS_COMPARE_SEQ_H

#include <jansson.h>

#include "report/compare.h"
#include "stat/decide.h"

struct cmp_seq {
	const struct seq_rule *rule;
	double *rates;               /* the judged rates */
	size_t nrates;
	struct decide_metric m[2];   /* latency (the SLO percentile), cpu_per_request */
	int on[2];                   /* judged (compare.metric) */
	enum decide_verdict answer;  /* decide_overall() */
};

/* ci->seq when NEW holds a stopping rule for a paired ci, else NULL. */
void cmp_seq_judge(const struct compare *c, struct cmp_impl *ci);
/* ci->verdict and why from ci->seq (compare.h: after the failures,
 * outcome and knee rules, in place of the cells). */
void cmp_seq_verdict(struct cmp_impl *ci, struct sbuf *why);
void cmp_seq_free(struct cmp_seq *s);

/* The method paragraph and per-metric table, appended to the
 * implementation's part of compare's document (report_doc.h); the JSON
 * object "sequential" of an implementation. */
struct rdoc;
void cmp_seq_doc(const struct cmp_seq *s, struct rdoc *d);
json_t *cmp_seq_json(const struct cmp_seq *s);

#endif
