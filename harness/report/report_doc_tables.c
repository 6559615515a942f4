/*
 * report_doc_tables: the report's tables after the charts: knees, the
 * latency promise, rungs, ratios, paired verdicts, failed and rejected
 * windows per gate, cells.
 */
#include "report/report_doc.h"
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "base/rate.h"
#include "base/util.h"

void rdoc_knees(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (r->spec_ok)
		rdoc_addf(d, RDOC_H2, "Knees (SLO: %s <= %g ms, error rate <= %g)", r->slo_label,
		     r->slo_ms, r->error_rate_max);
	else
		rdoc_add(d, RDOC_H2, "Knees (SLO unknown: none computed)");
	rdoc_addf(d, RDOC_P, "Per implementation, never pooled: isotonic (PAVA) fit of the rung-mean %s "
	     "over the valid (accepted and failed) ladder, refine and confirm windows, weighted by "
	     "requests; a rung crosses outright when every valid window failed or its pooled share "
	     "of requests not answered as expected breaks the error promise (docs/DESIGN.md, "
	     "\"The knee\"). The knee is the first crossing, interpolated between rungs, or a "
	     "bracket (lo, hi] when failed windows made it. Interval: %.0f%% bootstrap over the "
	     "valid windows within each rung (%zu resamples, seed %llu); inferential only when "
	     "both bracketing rungs hold at least %zu valid windows (confirm.reps).",
	     r->slo_label, r->level * 100, r->nboot, (unsigned long long)r->seed, r->min_reps);
	t = rdoc_table(d, "knees", 7, "implementation", "knee", "interval", "rungs used",
		  "windows accepted/total", "CPU/request CV across ladder rungs",
		  "knee the run used (confirm, soak)");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];

		rdoc_cellf(t, "%s", im->name);
		report_fmt_knee(&c, im);
		rdoc_cell(t, &c);
		report_fmt_knee_ci(&c, r, im);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%zu", im->has_knee ? im->knee.rungs : 0);
		sbuf_addf(&c, "%zu/%zu", im->accepted, im->total);
		if (im->not_done)
			sbuf_addf(&c, " (+%zu not run)", im->not_done);
		rdoc_cell(t, &c);
		if (isfinite(im->cpu_cv))
			rdoc_cellf(t, "%.1f%% (%zu rungs)", im->cpu_cv * 100, im->cpu_cv_rungs);
		else
			rdoc_cellf(t, "- (%zu rungs)", im->cpu_cv_rungs);
		if (im->run_knee_crossed == 0)
			sbuf_adds(&c, "not crossed");
		if (isfinite(im->run_knee_rps)) {
			sbuf_adds(&c, im->run_knee_crossed == 0 ? " (>= " : "");
			report_fmt_rate(&c, im->run_knee_rps);
			sbuf_adds(&c, im->run_knee_crossed == 0 ? " req/s)" : " req/s");
		} else if (im->run_knee_crossed != 0) {
			sbuf_adds(&c, "-");
		}
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

void rdoc_promise(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t = NULL;
	size_t i;

	if (r->spec_ok)
		rdoc_addf(d, RDOC_H2, "Latency promise (%s <= %g ms), confirm stage", r->slo_label,
		     r->slo_ms);
	else
		rdoc_add(d, RDOC_H2, "Latency promise (SLO unknown), confirm stage");
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		if (strcmp(g->stage, "confirm"))
			continue;
		if (!t) {
			sbuf_addf(&c, "%s of the merged accepted windows [CI]", r->slo_label);
			t = rdoc_table(d, "promise", 7, "implementation", "rate (req/s)", c.buf, "holds",
				  "worst window (ms)", "windows under SLO", "accepted/total");
			sbuf_reset(&c);
		}
		rdoc_cellf(t, "%s", r->impls[g->impl].name);
		report_fmt_rate(&c, g->rate);
		rdoc_cell(t, &c);
		rdoc_pct(&c, r, &g->pslo);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%s", !isfinite(g->pslo.ms) || !isfinite(r->slo_ms) ? "-" :
			       g->pslo.ms <= r->slo_ms ? "yes" : RDOC_STRONG "no");
		report_fmt_sig(&c, g->worst_pslo_ms);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%zu/%zu", g->under_slo, g->accepted);
		rdoc_cellf(t, "%zu/%zu", g->accepted, g->total);
	}
	if (!t)
		rdoc_add(d, RDOC_P, "No confirm windows in this run.");
	sbuf_release(&c);
}

/* A rung resting on a short cell (cells.h): every number of its row
 * rests on fewer valid windows than the stage planned. */
static void short_note(const struct report *r, const struct report_rung *g, struct sbuf *c)
{
	const struct cell *x = cells_find(r->cells, g->stage, r->impls[g->impl].name, g->rate);

	if (x && cell_short(x))
		sbuf_addf(c, " SHORT: %zu/%zu valid", x->valid, x->planned);
}

void rdoc_rungs(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	rdoc_add(d, RDOC_H2, "Rungs");
	rdoc_addf(d, RDOC_P, "Accepted windows only (failed windows are valid measurements over the SLO "
	     "and count for the knee; rejected ones are void; SHORT: fewer valid windows than "
	     "the stage planned, after replacements, see the cell table). Percentiles (ms) from the merged histogram of the "
	     "group's accepted windows (never averaged), with %.0f%% order-statistic intervals; "
	     "CPU = sum of CPU / sum of completed requests; memory = p99 of the pooled anon samples. "
	     "* : too few requests for that percentile, the interval's real coverage is below %.0f%%.",
	     r->level * 100, r->level * 100);
	sbuf_addf(&c, "isotonic fit of mean %s", r->slo_label);
	t = rdoc_table(d, "rungs", 11, "implementation", "stage", "rate (req/s)", "accepted/total",
		  "failed / rejected by", "p50", "p99 [CI]", "p99.9 [CI]", c.buf, "CPU µs/request",
		  "anon p99 (MiB)");
	sbuf_reset(&c);
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		rdoc_cellf(t, "%s", r->impls[g->impl].name);
		rdoc_cellf(t, "%s", g->stage);
		report_fmt_rate(&c, g->rate);
		rdoc_cell(t, &c);
		sbuf_addf(&c, "%zu/%zu", g->accepted, g->total);
		if (g->not_done)
			sbuf_addf(&c, " (+%zu not run)", g->not_done);
		short_note(r, g, &c);
		rdoc_cell(t, &c);
		rdoc_reasons(&c, g->reasons, g->nreasons);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, g->p50.ms);
		rdoc_cell(t, &c);
		rdoc_pct(&c, r, &g->p99);
		rdoc_cell(t, &c);
		rdoc_pct(&c, r, &g->p999);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, g->fit_ms);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, REPORT_CPU_US(g->cpu_ms_per_req));
		rdoc_cell(t, &c);
		report_fmt_mib(&c, g->anon_p99);
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

/* " [0.91, 1.20]" when the ratio has an interval (report_ratio.c) */
static void ratio_ci(struct sbuf *c, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		sbuf_addf(c, " [%.2f, %.2f]", lo, hi);
}

void rdoc_ratios(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (!r->nratios)
		return;
	for (i = 0; i < r->nratios && r->ratios[i].base == r->ratios[0].base; i++)
		;
	if (i == r->nratios)
		rdoc_addf(d, RDOC_H2, "Ratios to %s, each stamped with its rate",
		     r->impls[r->ratios[0].base].name);
	else
		rdoc_add(d, RDOC_H2, "Ratios between implementations, each stamped with its rate");
	rdoc_addf(d, RDOC_P, "A ratio is a curve, not a number: > 1 means more than the base at that "
	     "stage and rate (merged percentiles, pooled CPU and memory of accepted windows). "
	     "[lo, hi]: a conservative interval from each side's own %.0f%% interval (the "
	     "percentile's order-statistic interval; a t interval over the windows' CPU per "
	     "request), lo = a.lo / b.hi, hi = a.hi / b.lo.", r->level * 100);
	t = rdoc_table(d, "ratios", 6, "implementation / base", "stage", "rate (req/s)", r->slo_label,
		  "CPU/request", "anon p99");
	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];

		rdoc_cellf(t, "%s / %s", r->impls[q->impl].name, r->impls[q->base].name);
		rdoc_cellf(t, "%s", q->stage);
		report_fmt_rate(&c, q->rate);
		rdoc_cell(t, &c);
		report_fmt_num(&c, q->pslo, 2);
		ratio_ci(&c, q->pslo_lo, q->pslo_hi);
		rdoc_cell(t, &c);
		report_fmt_num(&c, q->cpu, 2);
		ratio_ci(&c, q->cpu_lo, q->cpu_hi);
		rdoc_cell(t, &c);
		report_fmt_num(&c, q->anon, 2);
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

/* The verdicts without an interval (too few pairs: not tested), one
 * paragraph: how many, where, with how many pairs, and what would test
 * them; every figure stays in report.json's "verdicts". */
static void rdoc_untested(const struct report *r, struct rdoc *d, size_t ntested)
{
	struct sbuf c = SBUF_INIT;
	size_t i, k, n = 0, need = 0, groups = 0;
	int hl = 1;

	for (i = 0; i < r->nverdicts; i++)
		if (isnan(r->verdicts[i].p)) {
			n++;
			hl &= r->verdicts[i].method == STAT_HL;
		}
	if (!n)
		return;
	if (hl)
		need = stat_strat_floor((1 - r->level) / 2);
	sbuf_addf(&c, "%s%zu of %zu verdicts not tested (too few pairs for a %.0f%% interval)",
		  ntested ? "" : "No verdict could be tested: ", n, r->nverdicts, r->level * 100);
	/* by stage and pair of implementations, each rate once with its
	 * pairs (the larger count of its metrics) */
	for (i = 0; i < r->nverdicts; i++) {
		const struct report_verdict *v = &r->verdicts[i];
		size_t pairs = 0, first = 1;

		if (!isnan(v->p))
			continue;
		for (k = 0; k < i; k++) {
			const struct report_verdict *u = &r->verdicts[k];

			if (isnan(u->p) && !strcmp(u->stage, v->stage) && u->a == v->a && u->b == v->b)
				break;
		}
		if (k < i)   /* its group was written */
			continue;
		sbuf_addf(&c, "%s %s, %s / %s at ", groups++ ? ";" : ":", v->stage, r->impls[v->a].name,
			  r->impls[v->b].name);
		for (k = i; k < r->nverdicts; k++) {
			const struct report_verdict *u = &r->verdicts[k];
			size_t j;

			if (!isnan(u->p) || strcmp(u->stage, v->stage) || u->a != v->a || u->b != v->b)
				continue;
			for (j = i; j < k; j++)   /* this rate written: the other metric */
				if (isnan(r->verdicts[j].p) && !strcmp(r->verdicts[j].stage, v->stage) &&
				    r->verdicts[j].a == v->a && r->verdicts[j].b == v->b &&
				    rate_same(r->verdicts[j].rate, u->rate))
					break;
			if (j < k)
				continue;
			pairs = u->ci.n;
			for (j = k + 1; j < r->nverdicts; j++)
				if (isnan(r->verdicts[j].p) && !strcmp(r->verdicts[j].stage, v->stage) &&
				    r->verdicts[j].a == v->a && r->verdicts[j].b == v->b &&
				    rate_same(r->verdicts[j].rate, u->rate) && r->verdicts[j].ci.n > pairs)
					pairs = r->verdicts[j].ci.n;
			sbuf_adds(&c, first ? "" : ", ");
			report_fmt_rate(&c, u->rate);
			sbuf_addf(&c, "%s (%zu pair%s)", first ? " req/s" : "", pairs,
				  pairs == 1 ? "" : "s");
			first = 0;
		}
	}
	sbuf_adds(&c, ". A pair is a block with both windows accepted; ");
	if (need)
		sbuf_addf(&c, "the signed-rank test needs at least %zu at a rate to reach %.0f%% "
			  "(more where Holm divides alpha): that many blocks (stages.ladder.reps, "
			  "or a confirm stage's reps) with few rejected windows would test them.",
			  need, r->level * 100);
	else
		sbuf_adds(&c, "more blocks at a rate (stages.ladder.reps, or a confirm stage's "
			  "reps) with few rejected windows would test them.");
	sbuf_adds(&c, " Every verdict's figures, these too: report.json, \"verdicts\".");
	rdoc_addf(d, RDOC_P, "%s", c.buf);
	sbuf_release(&c);
}

void rdoc_verdicts(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	char buf[128];
	size_t i, ntested = 0;

	if (!r->nverdicts)
		return;
	for (i = 0; i < r->nverdicts; i++)
		ntested += !isnan(r->verdicts[i].p);
	rdoc_add(d, RDOC_H2, "Paired verdicts");
	if (!ntested) {   /* the one line, without the method of no test */
		rdoc_untested(r, d, ntested);
		sbuf_release(&c);
		return;
	}
	rdoc_addf(d, RDOC_P, "Over blocks: a block pairs only when both implementations' windows were "
	     "accepted. Difference = A - B by the method named (HL: Hodges-Lehmann shift with its "
	     "Wilcoxon signed-rank interval; t: mean with a paired t interval; CS: mean with "
	     "Robbins' normal-mixture confidence sequence, the rule a sequential confirm stopped "
	     "by), at %.0f%%; a tie when the interval lies within +-%g%% of the pairs' mean "
	     "(compare.margin_pct); A or B lower only when the two-sided p, %s, is <= %g; too few "
	     "pairs for the level is inconclusive. MDE: the smallest |A - B| found with %.0f%% "
	     "power at that level given n (docs/STATISTICS.md).", r->level * 100, r->margin_pct,
	     r->correction == CMP_CORRECT_HOLM ? "Holm-adjusted over every verdict tested"
					       : "uncorrected (compare.correction none)",
	     1 - r->level, STAT_MDE_POWER * 100);
	if (r->nverdicts)
		rdoc_addf(d, RDOC_P, "Correction: %s over %zu verdicts tested.",
		     r->correction == CMP_CORRECT_HOLM ? "Holm" : "none", r->verdicts[0].family);
	/* the tested verdicts: decided ones first, then those with an
	 * interval too wide to decide (their MDE says what would) */
	t = rdoc_table(d, "verdicts", 13, "stage", "rate (req/s)", "A", "B", "metric", "pairs/blocks",
		  "mean A", "mean B", "A - B [CI]", "method", "p (adjusted)", "MDE", "verdict");
	for (i = 0; i < 2 * r->nverdicts; i++) {
		const struct report_verdict *v = &r->verdicts[i % r->nverdicts];
		/* verdicts hold the metric's own unit, ms for CPU (report.json) */
		int cpu = strcmp(v->metric, "p99_ms") != 0;
		double k = cpu ? REPORT_CPU_US(1.0) : 1.0;

		if (isnan(v->p) ||
		    (i < r->nverdicts) != (v->ci.verdict != VERDICT_INCONCLUSIVE))
			continue;

		rdoc_cellf(t, "%s", v->stage);
		report_fmt_rate(&c, v->rate);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%s", r->impls[v->a].name);
		rdoc_cellf(t, "%s", r->impls[v->b].name);
		rdoc_cellf(t, "%s", cpu ? "CPU µs/request" : r->slo_label);
		rdoc_cellf(t, "%zu/%zu", v->ci.n, v->blocks);
		report_fmt_sig(&c, k * v->mean_a);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, k * v->mean_b);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, v->ci.n ? k * v->ci.mean : NAN);
		if (isfinite(v->ci.lo)) {
			sbuf_adds(&c, " [");
			report_fmt_sig(&c, k * v->ci.lo);
			sbuf_adds(&c, ", ");
			report_fmt_sig(&c, k * v->ci.hi);
			sbuf_adds(&c, "]");
		}
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%s", v->method == STAT_CS ? "CS" : v->method == STAT_T ? "t" : "HL");
		if (isnan(v->p))
			rdoc_cellf(t, "not tested");
		else if (r->correction == CMP_CORRECT_HOLM)
			rdoc_cellf(t, "%.2g (%.2g)", v->p, v->p_adj);
		else
			rdoc_cellf(t, "%.2g", v->p);
		if (isinf(v->mde))
			rdoc_cellf(t, "none (n too small)");
		else if (isfinite(v->mde)) {
			report_fmt_sig(&c, k * v->mde);
			rdoc_cell(t, &c);
		} else
			rdoc_cellf(t, "-");
		rdoc_cellf(t, "%s%s", v->ci.verdict == VERDICT_INCONCLUSIVE ? "" : RDOC_STRONG,
		      report_verdict_text(r, v, buf, sizeof(buf)));
	}
	rdoc_untested(r, d, ntested);
	sbuf_release(&c);
}

void rdoc_rejections(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i, k;

	rdoc_add(d, RDOC_H2, "Failed and rejected windows per gate per implementation");
	sbuf_addf(&c, "Of %zu finished windows: ", r->total);
	rdoc_counts(&c, r->total, r->accepted, r->quality.failed);
	if (r->not_done)
		sbuf_addf(&c, "; %zu planned windows not run", r->not_done);
	sbuf_adds(&c, ". Failed: an outcome gate failed, a valid measurement over the SLO. "
		      "Rejected: a validity gate failed, the measurement is void. A window can fail "
		      "several gates; \"recorded\" counts failures of gates with enforce: false, "
		      "which decide nothing.");
	rdoc_add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	if (!r->ngate_fails) {
		rdoc_add(d, RDOC_P, "No window failed or was rejected.");
		sbuf_release(&c);
		return;
	}
	t = rdoc_add(d, RDOC_TABLE, "rejections");
	t->ncols = r->nimpls + 1;
	rdoc_push_cell(t, "gate");
	for (k = 0; k < r->nimpls; k++)
		rdoc_push_cell(t, r->impls[k].name);
	for (i = 0; i < r->ngate_fails; i++) {
		rdoc_push_cell(t, r->gate_fails[i].name);
		for (k = 0; k < r->nimpls; k++) {
			const struct report_impl *im = &r->impls[k];
			const struct report_reason *q =
				report_reason_find(im->reasons, im->nreasons, r->gate_fails[i].name);

			if (q && q->failed)
				sbuf_addf(&c, "%zu failed", q->failed);
			if (q && q->rejected)
				sbuf_addf(&c, "%s%zu rejected", c.len ? ", " : "", q->rejected);
			sbuf_addf(&c, "%s/%zu", c.len ? " " : "0", im->total);
			if (q && q->recorded)
				sbuf_addf(&c, " (+%zu recorded)", q->recorded);
			rdoc_cell(t, &c);
		}
	}
	rdoc_push_cell(t, RDOC_STRONG "failed (any gate)");
	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];

		rdoc_cellf(t, "%s%zu/%zu (%.0f%%)", RDOC_STRONG, im->failed, im->total,
		      im->total ? 100.0 * (double)im->failed / (double)im->total : 0.0);
	}
	rdoc_push_cell(t, RDOC_STRONG "rejected (any gate)");
	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];
		size_t rej = im->total - im->accepted - im->failed;

		rdoc_cellf(t, "%s%zu/%zu (%.0f%%)", RDOC_STRONG, rej, im->total,
		      im->total ? 100.0 * (double)rej / (double)im->total : 0.0);
	}
	sbuf_release(&c);
}

/* Per cell (stage x rate x implementation): the pre-registered n and what
 * became of it (docs/DESIGN.md "Replacement windows"); short cells marked. */
void rdoc_cells_table(const struct report *r, struct rdoc *d)
{
	struct rdoc_block *t;
	struct sbuf s = SBUF_INIT;
	size_t i, nshort = 0;

	rdoc_add(d, RDOC_H2, "Cells: valid, failed, rejected and replacement windows");
	for (i = 0; i < r->cells->n; i++)
		nshort += cell_short(&r->cells->v[i]);
	rdoc_addf(d, RDOC_P, "A cell is one stage at one offered rate for one implementation; n is the "
	     "number of windows its stage pre-registered. A rejected (void) window is replaced "
	     "in a later block until n windows are valid or its replacements ran out "
	     "(retries.max_per_cell, then retries.extra_time_pct of the run's time); failed "
	     "windows are valid and never replaced. %zu of %zu cells ended "
	     "short%s.", nshort, r->cells->n, nshort ? " (marked SHORT: every number resting on "
	     "them rests on fewer windows than planned)" : "");
	t = rdoc_add(d, RDOC_TABLE, "cells");
	t->ncols = 9;
	rdoc_push_cell(t, "stage");
	rdoc_push_cell(t, "rate (req/s)");
	rdoc_push_cell(t, "implementation");
	rdoc_push_cell(t, "n");
	rdoc_push_cell(t, "valid");
	rdoc_push_cell(t, "failed");
	rdoc_push_cell(t, "rejected");
	rdoc_push_cell(t, "replacements");
	rdoc_push_cell(t, "note");
	for (i = 0; i < r->cells->n; i++) {
		const struct cell *c = &r->cells->v[i];

		rdoc_push_cell(t, c->stage);
		report_fmt_rate(&s, c->rate);
		rdoc_cell(t, &s);
		rdoc_push_cell(t, c->impl);
		rdoc_cellf(t, "%zu", c->planned);
		rdoc_cellf(t, "%zu", c->valid);
		rdoc_cellf(t, "%zu", c->failed);
		rdoc_cellf(t, "%zu", c->rejected);
		rdoc_cellf(t, "%zu", c->replacements);
		if (cell_short(c))
			rdoc_cellf(t, "%sSHORT %zu/%zu", RDOC_STRONG, c->valid, c->planned);
		else
			rdoc_push_cell(t, c->pending ? "not run yet" : "-");
	}
	sbuf_release(&s);
}
