/*
 * compare_out_pooled: the pooled tests (struct cmp_pooled) in compare's
 * formats: a table above the cells in its document (report_doc.h), a
 * JSON array, one line of detail for a JUnit testcase. compare_md.c,
 * compare_json.c and compare_junit.c place them.
 */
#include <math.h>
#include <stdio.h>

#include "report/compare.h"
#include "report/compare_pooled.h"
#include "report/report_doc.h"
#include "base/jout.h"
#include "base/util.h"

#define JZ(x) json_integer((json_int_t)(x))

const char *cmp_pooled_unit(const struct cmp_pooled *pm)
{
	return pm->cpu ? "µs" : "ms";
}

/* "rise 0.00024 → 0.00061" (the estimate's direction; no arrow without
 * the correction) */
static void p_text(struct sbuf *o, const struct compare *c, const struct cmp_pooled *pm)
{
	int up = !(pm->shift < 0);

	sbuf_addf(o, "%s %.2g", up ? "rise" : "fall", up ? pm->p_up : pm->p_down);
	if (c->correction == CMP_CORRECT_HOLM)
		sbuf_addf(o, " → %.2g", up ? pm->padj_up : pm->padj_down);
}

static void mde_text(struct sbuf *o, const struct cmp_pooled *pm)
{
	if (isinf(pm->mde))
		sbuf_adds(o, "none (n too small)");
	else if (isfinite(pm->mde_pct))
		sbuf_addf(o, "%.1f%%", pm->mde_pct);
	else
		sbuf_adds(o, "-");
}

void cmp_pooled_md(const struct compare *c, const struct cmp_impl *im, struct rdoc *d)
{
	struct sbuf cell = SBUF_INIT;
	struct rdoc_block *t;
	char nm[160];
	size_t i;

	if (!im->npooled)
		return;
	rdoc_addf(d, RDOC_P, "Pooled over the rates (%s): per metric, one stratified signed-rank "
		  "test of the per-block log ratios new / base (strata = rates, van Elteren's "
		  "weights), its Hodges-Lehmann shift in %% of base and %g%% interval; the "
		  "margin is the larger of %g%% and the metric's floor.",
		  im->judged ? "these decide the metrics' verdict" : "advisory",
		  (1 - 2 * c->alpha) * 100, c->margin_pct);
	t = rdoc_table(d, "pooled", 9, "metric", "base (geo. mean)", "shift",
		       "interval of the shift", "margin", "n",
		       c->correction == CMP_CORRECT_HOLM ? "p → Holm" : "p", "MDE", "verdict");
	rdoc_align(t, "lrrlrrlrl");
	for (i = 0; i < im->npooled; i++) {
		const struct cmp_pooled *pm = &im->pooled[i];
		const char *u = cmp_pooled_unit(pm);

		if (pm->verdict == CMP_NA)
			continue;
		rdoc_push_cell(t, cmp_pooled_name(c, pm, nm, sizeof(nm)));
		rdoc_cellf(t, "%.4g %s", pm->base_ref, u);
		rdoc_cellf(t, "%+.1f%% (%+.3g %s)", pm->est_pct, pm->shift, u);
		if (isfinite(pm->lo_pct))
			rdoc_cellf(t, "[%+.1f%%, %+.1f%%]", pm->lo_pct, pm->hi_pct);
		else
			rdoc_push_cell(t, "-");
		rdoc_cellf(t, "±%.3g %s (%.1f%%)", pm->margin, u, pm->margin / pm->base_ref * 100);
		rdoc_cellf(t, "%zu pairs, %zu rate%s", pm->npairs, pm->nrates,
			   pm->nrates == 1 ? "" : "s");
		p_text(&cell, c, pm);
		rdoc_cell(t, &cell);
		mde_text(&cell, pm);
		rdoc_cell(t, &cell);
		rdoc_cellf(t, "%s%s", pm->verdict == CMP_REGRESSION ? RDOC_STRONG : "",
			   cmp_verdict_name(pm->verdict));
	}
	sbuf_release(&cell);
}

json_t *cmp_pooled_json(const struct compare *c, const struct cmp_impl *im)
{
	json_t *a = json_array();
	char nm[160];
	size_t i;

	for (i = 0; i < im->npooled; i++) {
		const struct cmp_pooled *pm = &im->pooled[i];
		json_t *o = json_object();

		jout_set(o, "metric", jout_str(cmp_pooled_name(c, pm, nm, sizeof(nm))),
			 "verdict", jout_str(cmp_verdict_name(pm->verdict)),
			 "test", jout_str("stratified signed-rank (van Elteren)"),
			 "exact", json_boolean(pm->exact), "rates", JZ(pm->nrates),
			 "pairs", JZ(pm->npairs), "base", jout_num(pm->base_ref),
			 "shift", jout_num(pm->shift), "shift_lo", jout_num(pm->lo),
			 "shift_hi", jout_num(pm->hi), "shift_pct", jout_num(pm->est_pct),
			 "shift_lo_pct", jout_num(pm->lo_pct), "shift_hi_pct", jout_num(pm->hi_pct),
			 "margin", jout_num(pm->margin), "p_rise", jout_num(pm->p_up),
			 "p_fall", jout_num(pm->p_down), "p_rise_adjusted", jout_num(pm->padj_up),
			 "p_fall_adjusted", jout_num(pm->padj_down), "weight", jout_num(pm->weight),
			 "mde", jout_num(pm->mde), "mde_pct", jout_num(pm->mde_pct), NULL);
		json_array_append_new(a, o);
	}
	return a;
}

void cmp_pooled_detail(const struct compare *c, const struct cmp_pooled *pm, struct sbuf *d)
{
	char nm[160];
	const char *u = cmp_pooled_unit(pm);

	sbuf_reset(d);
	sbuf_addf(d, "%s over %zu rates, %zu pairs: base %.4g %s (geometric mean), shift %+.1f%% "
		  "(%+.4g %s), ", cmp_pooled_name(c, pm, nm, sizeof(nm)), pm->nrates, pm->npairs,
		  pm->base_ref, u, pm->est_pct, pm->shift, u);
	if (isfinite(pm->lo_pct) && isfinite(pm->hi_pct))
		sbuf_addf(d, "%g%% interval [%+.1f%%, %+.1f%%]", (1 - 2 * c->alpha) * 100,
			  pm->lo_pct, pm->hi_pct);
	else
		sbuf_adds(d, "no interval: n too small");
	sbuf_addf(d, ", margin ±%.4g %s; stratified signed-rank (van Elteren), correction %s: p ",
		  pm->margin, u, c->correction == CMP_CORRECT_HOLM ? "weighted holm" : "none");
	p_text(d, c, pm);
	sbuf_adds(d, "; MDE ");
	mde_text(d, pm);
}
