/*
 * compare_md: the compare result as a document (report_doc.h), a
 * pull-request comment in Markdown through rdoc_md(); compare_html.c
 * makes its page from the same document.
 */
#include "report/compare.h"
#include "report/compare_out.h"
#include "report/compare_pooled.h"
#include "report/compare_seq.h"
#include "report/headline.h"
#include "report/report_doc.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void num(struct sbuf *o, double v, int prec)
{
	if (isfinite(v))
		sbuf_addf(o, "%.*f", prec, v);
	else
		sbuf_adds(o, "-");
}

static void snum(struct sbuf *o, double v, int prec)
{
	if (isfinite(v))
		sbuf_addf(o, "%+.*f", prec, v);
	else
		sbuf_adds(o, "-");
}

static const char *short_commit(const char *c, char buf[13])
{
	if (!c)
		return "unknown";
	snprintf(buf, 13, "%.12s", c);
	return buf;
}

static void knee_text(struct sbuf *o, const struct knee_result *k)
{
	if (!k || k->kind == KNEE_NONE) {
		sbuf_adds(o, "no valid ladder or confirm window");
		return;
	}
	knee_describe(k, o);
	if (k->crossed && k->has_ci && isfinite(k->ci_lo))
		sbuf_addf(o, " [%.0f, %.0f]%s", k->ci_lo, k->ci_hi,
			  k->inferential ? "" : " (non-inferential)");
}

static const char *method_short(enum stat_method m)
{
	switch (m) {
	case STAT_HL: return "HL";
	case STAT_T: return "t";
	case STAT_CS: return "CS";
	}
	return "?";
}

/* The method line of an implementation: method, level, correction. */
static void method_line(struct sbuf *o, const struct compare *c, const struct cmp_impl *im)
{
	enum stat_method m = im->paired ? c->method_paired : c->method_unpaired;
	double lvl = m == STAT_CS ? 1 - c->alpha : 1 - 2 * c->alpha;

	sbuf_addf(o, "Method: %s (%g%% %s); correction: ", stat_method_text(m, im->paired),
		  lvl * 100, m == STAT_CS ? "confidence sequence" : "interval");
	if (c->correction == CMP_CORRECT_HOLM && im->npooled)
		sbuf_addf(o, "weighted Holm over %zu hypotheses, the pooled metrics sharing "
			  "%g%% of alpha and the %zu rate x metric cells tested %g%% (a test "
			  "decides only when its adjusted one-sided p is <= %g)", im->family,
			  (1 - CMP_CELL_SHARE) * 100, im->ncells, CMP_CELL_SHARE * 100, c->alpha);
	else if (c->correction == CMP_CORRECT_HOLM)
		sbuf_addf(o, "Holm over the %zu rate x metric cells tested (a cell regresses only "
			  "when its adjusted one-sided p is <= %g)", im->ncells, c->alpha);
	else
		sbuf_addf(o, "none (%zu tests, each at %g)", im->family, c->alpha);
	sbuf_addf(o, "; MDE: the shift found with %.0f%% power, one-sided at %s.\n\n",
		  CMP_MDE_POWER * 100, c->correction == CMP_CORRECT_HOLM ?
		  "the test's first step in the correction" : "alpha");
}

static const char *pair_text(const struct compare *c, const struct cmp_impl *im,
			     struct sbuf *o)
{
	sbuf_reset(o);
	if (im->paired)
		sbuf_addf(o, "paired by block against `%s@base` (the baseline commit interleaved "
			  "in the same blocks of %s)", im->name, c->new_.id);
	else
		sbuf_addf(o, "unpaired (every %s window against every %s window): the runs ran "
			  "at different times, so the interval also carries any drift between "
			  "them", c->new_.id, c->base.id);
	return o->buf;
}

static void run_status(struct sbuf *o, const char *role, const struct cmp_run *r)
{
	sbuf_addf(o, "%s `%s` **%s**", role, r->id, *r->status ? r->status : "(no status)");
	if (r->failure)
		sbuf_addf(o, " (%s)", r->failure);
}

/* The scratch buffer as a paragraph (its trailing newlines dropped), then
 * emptied. */
static void para(struct rdoc *d, struct sbuf *t)
{
	while (t->len && t->buf[t->len - 1] == '\n')
		t->buf[--t->len] = 0;
	rdoc_add(d, RDOC_P, t->buf);
	sbuf_reset(t);
}

static void md_evidence(struct rdoc *d, const struct cmp_impl *im)
{
	struct rdoc_block *t = rdoc_table(d, "evidence", 5, "rate (req/s)", "base: valid (failed)",
					  "new: valid (failed)", "valid pairs", "outcome");
	size_t j;

	rdoc_align(t, "rrrrl");
	for (j = 0; j < im->nrates; j++) {
		const struct cmp_rate *r = &im->rates[j];

		rdoc_cellf(t, "%.0f", r->rate);
		rdoc_cellf(t, "%zu (%zu)", r->vbase, r->fbase);
		rdoc_cellf(t, "%zu (%zu)", r->vnew, r->fnew);
		rdoc_cellf(t, "%zu", r->vpairs);
		rdoc_push_cell(t, r->outcome_regression ? RDOC_STRONG "new fails where base held"
			       : r->fnew && r->fbase ? "failed windows on both sides"
			       : r->fnew ? "new has failed windows" : r->fbase ? "base has failed windows"
			       : "both hold");
	}
}

/* A rate x metric cell's row: rate, label, base, new, the shift (the one
 * the interval is for and the chart plots, not new - base), in % of base,
 * its interval, n, method, p, MDE, verdict. */
static void md_cell(struct rdoc_block *t, const struct cmp_rate *r, const char *label,
		    const struct cmp_metric *m, int prec, int paired, int corr)
{
	struct sbuf c = SBUF_INIT;

	rdoc_cellf(t, "%.0f", r->rate);
	rdoc_push_cell(t, label);
	num(&c, m->base, prec);
	rdoc_cell(t, &c);
	num(&c, m->new_, prec);
	rdoc_cell(t, &c);
	snum(&c, m->ci.mean, prec);
	rdoc_cell(t, &c);
	snum(&c, m->base > 0 ? 100 * m->ci.mean / m->base : NAN, 1);
	if (m->base > 0 && isfinite(m->ci.mean))
		sbuf_adds(&c, "%");
	rdoc_cell(t, &c);
	if (isfinite(m->ci.lo)) {
		sbuf_adds(&c, "[");
		snum(&c, m->ci.lo, prec);
		sbuf_adds(&c, ", ");
		snum(&c, m->ci.hi, prec);
		sbuf_adds(&c, "]");
	} else {
		sbuf_adds(&c, "-");
	}
	rdoc_cell(t, &c);
	if (paired)
		rdoc_cellf(t, "%zu pairs", m->nnew);
	else
		rdoc_cellf(t, "%zu / %zu", m->nbase, m->nnew);
	rdoc_push_cell(t, method_short(m->method));
	cmp_out_p(&c, m, corr);
	rdoc_cell(t, &c);
	cmp_out_mde(&c, m, prec);
	rdoc_cell(t, &c);
	rdoc_cellf(t, "%s%s", m->verdict == CMP_REGRESSION ? RDOC_STRONG : "",
		   cmp_verdict_name(m->verdict));
	sbuf_release(&c);
}

/* The cells table's header, its first column's title `what`. */
static struct rdoc_block *cells_table(struct rdoc *d, const struct compare *c, const char *what)
{
	struct rdoc_block *t = rdoc_table(d, "cells", 12, "rate (req/s)", what, "base", "new",
					  "shift", "shift %", "interval of the shift", "n",
					  "method", c->correction == CMP_CORRECT_HOLM ? "p → Holm"
					  : "p", "MDE", "verdict");

	rdoc_align(t, "rlrrrrlrllrl");
	return t;
}

/* Per request name: its own latency cell at each rate (compare.h). */
static void md_requests(struct rdoc *d, const struct compare *c, const struct cmp_impl *im)
{
	struct rdoc_block *tb;
	struct sbuf t = SBUF_INIT;
	size_t j, k, any = 0;

	for (j = 0; j < im->nrates; j++)
		for (k = 0; k < im->rates[j].nreq; k++)
			any += im->rates[j].has_cells && im->rates[j].req[k].verdict != CMP_NA;
	if (!any)
		return;
	rdoc_addf(d, RDOC_P, "Per request (p%g of its own responses, ms; judged with the cells "
		  "above: those with their own slo_ms; the others advisory, unadjusted):",
		  c->new_.slo_pct);
	tb = cells_table(d, c, "request");
	for (j = 0; j < im->nrates; j++) {
		const struct cmp_rate *r = &im->rates[j];

		for (k = 0; r->has_cells && k < r->nreq; k++) {
			if (r->req[k].verdict == CMP_NA)
				continue;
			sbuf_reset(&t);
			sbuf_addf(&t, "%s%s", c->new_.reqs[k],
				  c->new_.req_slo_ms[k] > 0 ? " (judged)" : "");
			md_cell(tb, r, t.buf, &r->req[k], 3, im->paired,
				c->new_.req_slo_ms[k] > 0 ? c->correction : CMP_CORRECT_NONE);
		}
	}
	sbuf_release(&t);
}

/* The run-level paragraphs: both runs' states, the warnings, the rule. */
static void md_preamble(struct rdoc *d, const struct compare *c, struct sbuf *t)
{
	double lvl = (1 - 2 * c->alpha) * 100;

	run_status(t, "Base", &c->base);
	run_status(t, "; new", &c->new_);
	sbuf_adds(t, ".");
	para(d, t);
	if (c->same_run)
		rdoc_add(d, RDOC_P, "**BASE and NEW are the same run**: only its paired arms "
			 "(`<impl>@base`) are compared.");
	if (!c->judged)
		rdoc_add(d, RDOC_P, "**No implementation is judged**: none is paired with an `@base` "
			 "control; unpaired comparisons are advisory (`--impl NAME` or "
			 "`--judge-unpaired` judges them).");
	if (c->base.exploratory || c->new_.exploratory)
		rdoc_add(d, RDOC_P, "**EXPLORATORY**: a run was made from a dirty spec (--allow-dirty).");
	sbuf_addf(t, "Spec `%s`, stored hash `%.12s`%s. ", c->new_.spec_name, c->new_.spec_hash,
		  c->same_spec ? " (identical in both runs)" : "; **the runs' stored specs differ**");
	if (c->version_diffs)
		sbuf_addf(t, "**Versions differ between the runs** (the difference may be theirs): %s. ",
			  c->version_diffs);
	sbuf_addf(t, "Rule: margin %g%% (floors %g ms, %g us/request), min_pairs %zu, metrics",
		  c->margin_pct, c->margin_ms, c->margin_cpu_us, c->min_pairs);
	if (c->metrics & CMP_P99)
		sbuf_addf(t, " p%g", c->new_.slo_pct);
	if (c->metrics & CMP_CPU_PER_REQUEST)
		sbuf_adds(t, (c->metrics & CMP_P99) ? ", cpu_per_request" : " cpu_per_request");
	sbuf_addf(t, "; shifts by %s paired, %s unpaired; intervals at %g%%%s, one-sided "
		  "tests at %g%%; correction %s across each implementation's pooled metrics and rate x metric "
		  "cells; over accepted windows; merged values from merged histograms.",
		  stat_method_name(c->method_paired), stat_method_name(c->method_unpaired), lvl,
		  c->method_paired == STAT_CS ? " (the confidence sequence's at 1 - alpha)" : "",
		  c->alpha * 100, cmp_out_correction(c->correction));
	para(d, t);
}

static void md_impl(struct rdoc *d, const struct compare *c, const struct cmp_impl *im,
		    struct sbuf *t)
{
	struct sbuf p = SBUF_INIT;
	char b1[13], b2[13];
	size_t j;
	double dk;

	if (im->judged)
		rdoc_addf(d, RDOC_H3, "`%s`: **%s**", im->name, cmp_verdict_name(im->verdict));
	else
		rdoc_addf(d, RDOC_H3, "`%s` (advisory, not judged): %s", im->name,
			  cmp_verdict_name(im->verdict));
	rdoc_addf(d, RDOC_P, "Why: %s.", im->why);
	if (im->decided_by)
		rdoc_addf(d, RDOC_P, "Decided by: %s.", im->decided_by);
	sbuf_addf(t, "Commit `%s` → `%s`", short_commit(im->base_commit, b1),
		  short_commit(im->new_commit, b2));
	if (im->new_ref)
		sbuf_addf(t, " (ref `%s`)", im->new_ref);
	sbuf_addf(t, "; %s.", pair_text(c, im, &p));
	para(d, t);
	if (im->seq)
		cmp_seq_doc(im->seq, d);
	method_line(t, c, im);
	para(d, t);
	if (!im->nrates) {
		rdoc_add(d, RDOC_P, "No rate has valid windows on both sides.");
	} else {
		struct rdoc_block *tb;

		md_evidence(d, im);
		cmp_pooled_md(c, im, d);
		sbuf_reset(&p);
		sbuf_addf(&p, "p%g (ms)", c->new_.slo_pct);
		tb = cells_table(d, c, "metric");
		for (j = 0; j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			if (!r->has_cells)
				continue;
			if (c->metrics & CMP_P99)
				md_cell(tb, r, p.buf, &r->p99, 3, im->paired, c->correction);
			if (c->metrics & CMP_CPU_PER_REQUEST)
				md_cell(tb, r, "CPU/request (µs)", &r->cpu, 1, im->paired,
					c->correction);
		}
		md_requests(d, c, im);
	}
	sbuf_adds(t, "Knees: base: ");
	knee_text(t, im->kbase);
	sbuf_adds(t, "; new: ");
	knee_text(t, im->knew);
	if (cmp_out_knee_shift(im, &dk))
		sbuf_addf(t, "; shift %+.0f req/s", dk);
	sbuf_adds(t, ".");
	para(d, t);
	sbuf_release(&p);
}

void compare_doc(const struct compare *c, struct rdoc *d)
{
	struct sbuf t = SBUF_INIT;
	size_t i;

	memset(d, 0, sizeof(*d));
	rdoc_addf(d, RDOC_H2, "harness compare: `%s` → `%s`", c->base.id, c->new_.id);
	compare_headline(c, &t);
	rdoc_add(d, RDOC_HEADLINE, t.buf);
	sbuf_reset(&t);
	md_preamble(d, c, &t);
	for (i = 0; i < c->nimpls; i++)
		md_impl(d, c, &c->impls[i], &t);
	rdoc_addf(d, RDOC_P, "base and new are the merged values; shift is the estimate of new - "
		  "base from the per-window (paired: per-block) values by the method named (HL: "
		  "Hodges-Lehmann, t: mean with a t interval, CS: mean with a confidence sequence), "
		  "in %% of base in shift %%, the figure the chart plots, with its interval; p is the "
		  "one-sided p-value of the shift's direction%s; MDE the minimum detectable effect.",
		  c->correction == CMP_CORRECT_HOLM ? ", then Holm-adjusted" : "");
	rdoc_addf(d, RDOC_P, "**Result: %s** (exit %d): %d judged, %d regressed, %d inconclusive.",
		  c->exit_code == 1 ? "regression" : c->exit_code == 3 ? "inconclusive"
								     : "no regression",
		  c->exit_code, c->judged, c->regressions, c->inconclusive);
	sbuf_release(&t);
}

void compare_md(const struct compare *c, struct sbuf *o)
{
	struct rdoc d;

	compare_doc(c, &d);
	rdoc_md(&d, RDOC_MD_TIGHT, o);
	rdoc_release(&d);
}
