/*
 * compare_out: the compare result as Markdown (a pull-request comment:
 * a document, report_doc.h), JSON and JUnit XML.
 */
#include "report/compare.h"
#include "report/compare_pooled.h"
#include "report/compare_seq.h"
#include "report/headline.h"
#include "report/report_doc.h"
#include "base/jout.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

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

static const char *correction_name(int corr)
{
	return corr == CMP_CORRECT_HOLM ? "holm" : "none";
}

/* The p-value of the estimate's direction, raw -> adjusted, e.g.
 * "rise 0.0039 -> 0.016"; "-" when untested. */
static void p_text(struct sbuf *o, const struct cmp_metric *m, int corr)
{
	int up = !(m->ci.mean < 0);
	double p = up ? m->p_up : m->p_down, a = up ? m->padj_up : m->padj_down;

	if (isnan(p)) {
		sbuf_adds(o, "not tested");
		return;
	}
	sbuf_addf(o, "%s %.2g", up ? "rise" : "fall", p);
	if (corr == CMP_CORRECT_HOLM)
		sbuf_addf(o, " → %.2g", a);
}

static void mde_text(struct sbuf *o, const struct cmp_metric *m, int prec)
{
	if (isinf(m->mde))
		sbuf_adds(o, "none (n too small)");
	else if (!isfinite(m->mde))
		sbuf_adds(o, "-");
	else {
		sbuf_addf(o, "%.*f", prec, m->mde);
		if (isfinite(m->mde_pct))
			sbuf_addf(o, " (%.1f%%)", m->mde_pct);
	}
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

/* Both knees are points: the shift new - base. */
static int knee_shift(const struct cmp_impl *im, double *d)
{
	if (!im->kbase || !im->knew || im->kbase->kind != KNEE_POINT ||
	    im->knew->kind != KNEE_POINT)
		return 0;
	*d = im->knew->knee_rps - im->kbase->knee_rps;
	return 1;
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

/* ------------------------------------------------------------ markdown */

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
	p_text(&c, m, corr);
	rdoc_cell(t, &c);
	mde_text(&c, m, prec);
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
		  c->alpha * 100, correction_name(c->correction));
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
	if (im->seq) {
		cmp_seq_md(im->seq, t);
		rdoc_add(d, RDOC_MD, t->buf);
		sbuf_reset(t);
	}
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
	if (knee_shift(im, &dk))
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

/* ------------------------------------------------------------ json */

#define JZ(x) json_integer((json_int_t)(x))

static json_t *json_metric(const struct cmp_metric *m, int judged)
{
	json_t *o;

	if (!judged)   /* not in the spec's compare.metric */
		return json_null();
	o = json_object();
	json_object_set_new(o, "base", jout_num(m->base));
	json_object_set_new(o, "new", jout_num(m->new_));
	json_object_set_new(o, "diff", jout_num(m->new_ - m->base));
	json_object_set_new(o, "diff_pct", jout_num(m->rel_pct));
	json_object_set_new(o, "ci_mean", jout_num(m->ci.mean));
	json_object_set_new(o, "ci_lo", jout_num(m->ci.lo));
	json_object_set_new(o, "ci_hi", jout_num(m->ci.hi));
	json_object_set_new(o, "n_base", JZ(m->nbase));
	json_object_set_new(o, "n_new", JZ(m->nnew));
	json_object_set_new(o, "method", jout_str(stat_method_name(m->method)));
	json_object_set_new(o, "level", jout_num(m->level));
	json_object_set_new(o, "p_rise", jout_num(m->p_up));
	json_object_set_new(o, "p_fall", jout_num(m->p_down));
	json_object_set_new(o, "p_rise_adjusted", jout_num(m->padj_up));
	json_object_set_new(o, "p_fall_adjusted", jout_num(m->padj_down));
	json_object_set_new(o, "cells_tested", JZ(m->family));
	json_object_set_new(o, "mde", jout_num(m->mde));
	if (isinf(m->mde))
		json_object_set_new(o, "mde_note", json_string("none: n too small"));
	json_object_set_new(o, "mde_pct", jout_num(m->mde_pct));
	json_object_set_new(o, "margin", jout_num(m->margin));
	json_object_set_new(o, "margin_pct", jout_num(cmp_metric_margin_pct(m)));
	json_object_set_new(o, "verdict", jout_str(cmp_verdict_name(m->verdict)));
	return o;
}

static json_t *json_knee(const struct knee_result *k)
{
	json_t *o;

	if (!k || k->kind == KNEE_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "kind", jout_str(knee_kind_name(k->kind)));
	json_object_set_new(o, "crossed", json_boolean(k->crossed));
	json_object_set_new(o, "knee_rps", jout_num(k->knee_rps));
	json_object_set_new(o, "lo_rps", jout_num(k->kind == KNEE_BRACKET ? k->lo_rps : NAN));
	json_object_set_new(o, "hi_rps", jout_num(k->kind == KNEE_BRACKET ? k->hi_rps : NAN));
	json_object_set_new(o, "highest_rung_rps", jout_num(k->highest_rung_rps));
	json_object_set_new(o, "reason", jout_str(k->reason));
	json_object_set_new(o, "ci_lo", jout_num(k->has_ci ? k->ci_lo : NAN));
	json_object_set_new(o, "ci_hi", jout_num(k->has_ci ? k->ci_hi : NAN));
	json_object_set_new(o, "inferential", json_boolean(k->has_ci && k->inferential));
	return o;
}

static void json_run(json_t *o, const char *role, const struct cmp_run *r)
{
	char key[40];

	snprintf(key, sizeof(key), "%s_status", role);
	json_object_set_new(o, key, jout_str(r->status));
	snprintf(key, sizeof(key), "%s_failure", role);
	json_object_set_new(o, key, jout_str(r->failure));
	snprintf(key, sizeof(key), "%s_failure_kind", role);
	json_object_set_new(o, key, jout_str(r->failure_kind));
	snprintf(key, sizeof(key), "%s_failure_impl", role);
	json_object_set_new(o, key, jout_str(r->failure_impl));
}

static json_t *json_rate(const struct compare *c, const struct cmp_rate *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "rate", jout_num(r->rate));
	json_object_set_new(o, "base_valid", JZ(r->vbase));
	json_object_set_new(o, "base_failed", JZ(r->fbase));
	json_object_set_new(o, "new_valid", JZ(r->vnew));
	json_object_set_new(o, "new_failed", JZ(r->fnew));
	json_object_set_new(o, "valid_pairs", JZ(r->vpairs));
	json_object_set_new(o, "outcome_regression", json_boolean(r->outcome_regression));
	json_object_set_new(o, "latency",
			    json_metric(&r->p99, r->has_cells && (c->metrics & CMP_P99) != 0));
	json_object_set_new(o, "cpu_per_request",
			    json_metric(&r->cpu, r->has_cells &&
						  (c->metrics & CMP_CPU_PER_REQUEST) != 0));
	{
		json_t *a = json_array();
		size_t k;

		for (k = 0; k < r->nreq; k++) {
			json_t *x = json_object();

			json_object_set_new(x, "name", jout_str(c->new_.reqs[k]));
			json_object_set_new(x, "judged", json_boolean(c->new_.req_slo_ms[k] > 0));
			json_object_set_new(x, "latency", json_metric(&r->req[k], r->has_cells));
			json_array_append_new(a, x);
		}
		json_object_set_new(o, "requests", a);
	}
	return o;
}

static json_t *json_impl(const struct compare *c, const struct cmp_impl *im)
{
	json_t *o = json_object(), *rates = json_array();
	size_t j;
	double d;

	json_object_set_new(o, "name", jout_str(im->name));
	json_object_set_new(o, "verdict", jout_str(cmp_verdict_name(im->verdict)));
	json_object_set_new(o, "why", jout_str(im->why));
	json_object_set_new(o, "judged", json_boolean(im->judged));
	json_object_set_new(o, "paired", json_boolean(im->paired));
	json_object_set_new(o, "max_valid_pairs", JZ(im->max_vpairs));
	json_object_set_new(o, "method", jout_str(im->seq ? "sequential"
						   : stat_method_name(im->paired ? c->method_paired
										 : c->method_unpaired)));
	if (im->seq)
		json_object_set_new(o, "sequential", cmp_seq_json(im->seq));
	json_object_set_new(o, "correction", jout_str(correction_name(c->correction)));
	json_object_set_new(o, "cells_tested", JZ(im->ncells));
	json_object_set_new(o, "hypotheses_tested", JZ(im->family));
	json_object_set_new(o, "decided_by", jout_str(im->decided_by));
	json_object_set_new(o, "pooled", cmp_pooled_json(c, im));
	json_object_set_new(o, "base_commit", jout_str(im->base_commit));
	json_object_set_new(o, "new_commit", jout_str(im->new_commit));
	json_object_set_new(o, "new_ref", jout_str(im->new_ref));
	for (j = 0; j < im->nrates; j++)
		json_array_append_new(rates, json_rate(c, &im->rates[j]));
	json_object_set_new(o, "rates", rates);
	json_object_set_new(o, "knee_base", json_knee(im->kbase));
	json_object_set_new(o, "knee_new", json_knee(im->knew));
	json_object_set_new(o, "knee_shift_rps", jout_num(knee_shift(im, &d) ? d : NAN));
	return o;
}

/* One line of JSON, built with jansson (escaping; null for a missing
 * number). */
void compare_json(const struct compare *c, struct sbuf *out)
{
	json_t *o = json_object(), *rule = json_object(), *metrics = json_array();
	json_t *units = json_object(), *impls = json_array();
	struct sbuf t = SBUF_INIT;
	size_t i;
	char *text;

	compare_headline(c, &t);
	json_object_set_new(o, "headline", json_string(t.buf));
	sbuf_release(&t);
	json_object_set_new(o, "base", jout_str(c->base.id));
	json_object_set_new(o, "new", jout_str(c->new_.id));
	json_run(o, "base", &c->base);
	json_run(o, "new", &c->new_);
	json_object_set_new(o, "same_run", json_boolean(c->same_run));
	json_object_set_new(o, "spec_name", jout_str(c->new_.spec_name));
	json_object_set_new(o, "version_diffs", jout_str(c->version_diffs));
	json_object_set_new(o, "same_spec", json_boolean(c->same_spec));
	json_object_set_new(o, "exploratory",
			    json_boolean(c->base.exploratory || c->new_.exploratory));
	json_object_set_new(rule, "margin_pct", jout_num(c->margin_pct));
	json_object_set_new(rule, "margin_ms", jout_num(c->margin_ms));
	json_object_set_new(rule, "margin_cpu_us", jout_num(c->margin_cpu_us));
	json_object_set_new(rule, "alpha", jout_num(c->alpha));
	json_object_set_new(rule, "min_pairs", JZ(c->min_pairs));
	json_object_set_new(rule, "percentile", jout_num(c->new_.slo_pct));
	json_object_set_new(rule, "interval_level", jout_num(1 - 2 * c->alpha));
	json_object_set_new(rule, "method_paired", jout_str(stat_method_name(c->method_paired)));
	json_object_set_new(rule, "method_unpaired",
			    jout_str(stat_method_name(c->method_unpaired)));
	json_object_set_new(rule, "correction", jout_str(correction_name(c->correction)));
	json_object_set_new(rule, "mde_power", jout_num(CMP_MDE_POWER));
	if (c->metrics & CMP_P99)
		json_array_append_new(metrics, json_string("p99"));
	if (c->metrics & CMP_CPU_PER_REQUEST)
		json_array_append_new(metrics, json_string("cpu_per_request"));
	json_object_set_new(rule, "metrics", metrics);
	json_object_set_new(o, "rule", rule);
	json_object_set_new(units, "latency", json_string("ms"));
	json_object_set_new(units, "cpu_per_request", json_string("us"));
	json_object_set_new(units, "rate", json_string("req/s"));
	json_object_set_new(o, "units", units);
	for (i = 0; i < c->nimpls; i++)
		json_array_append_new(impls, json_impl(c, &c->impls[i]));
	json_object_set_new(o, "impls", impls);
	json_object_set_new(o, "judged", json_integer(c->judged));
	json_object_set_new(o, "regressions", json_integer(c->regressions));
	json_object_set_new(o, "inconclusive", json_integer(c->inconclusive));
	json_object_set_new(o, "result", json_string(c->exit_code == 1 ? "regression"
						    : c->exit_code == 3 ? "inconclusive"
									: "no regression"));
	json_object_set_new(o, "exit", json_integer(c->exit_code));
	text = jout_dumps_line(o);
	sbuf_adds(out, text);
	free(text);
}

/* ------------------------------------------------------------ junit */

/* kind: "failure" (regression), "error" (inconclusive), "skipped"
 * (advisory, or a cell without an answer) or NULL (passed). */
static void junit_case(struct sbuf *o, const char *cls, const char *name, const char *kind,
		       const char *label, const char *detail)
{
	sbuf_adds(o, "    <testcase classname=\"");
	sbuf_add_xml(o, cls);
	sbuf_adds(o, "\" name=\"");
	sbuf_add_xml(o, name);
	sbuf_adds(o, "\">\n      ");
	if (kind) {
		sbuf_addf(o, "<%s", kind);
		if (strcmp(kind, "skipped"))
			sbuf_addf(o, " type=\"%s\"", label);
		sbuf_adds(o, " message=\"");
		sbuf_add_xml(o, label);
		sbuf_adds(o, ": ");
		sbuf_add_xml(o, detail);
		sbuf_adds(o, "\"/>\n    </testcase>\n");
	} else {
		sbuf_adds(o, "<system-out>");
		sbuf_add_xml(o, label);
		sbuf_adds(o, ": ");
		sbuf_add_xml(o, detail);
		sbuf_adds(o, "</system-out>\n    </testcase>\n");
	}
}

/* The testcase kind of an implementation's verdict. */
static const char *impl_kind(const struct cmp_impl *im)
{
	if (!im->judged)
		return "skipped";
	if (im->verdict == CMP_REGRESSION)
		return "failure";
	if (im->verdict == CMP_INCONCLUSIVE)
		return "error";
	return NULL;
}

/* A cell of a judged implementation: only a regression fails it; the
 * implementation's own testcase carries an inconclusive answer. */
static const char *cell_kind(enum cmp_verdict v)
{
	if (v == CMP_REGRESSION)
		return "failure";
	if (v == CMP_INCONCLUSIVE || v == CMP_NA)
		return "skipped";
	return NULL;
}

static void tally(const char *kind, size_t *fails, size_t *errors, size_t *skips)
{
	if (!kind)
		return;
	*fails += !strcmp(kind, "failure");
	*errors += !strcmp(kind, "error");
	*skips += !strcmp(kind, "skipped");
}

static void cell_detail(struct sbuf *d, const char *metric, const struct cmp_metric *m,
			const char *unit, int paired, int corr)
{
	sbuf_reset(d);
	sbuf_addf(d, "%s base %.4g%s, new %.4g%s (%+.1f%%), shift ", metric, m->base, unit, m->new_,
		  unit, m->rel_pct);
	if (isfinite(m->ci.mean) && isfinite(m->ci.lo) && isfinite(m->ci.hi))
		sbuf_addf(d, "%.4g, %g%% interval [%.4g, %.4g]", m->ci.mean, m->level * 100, m->ci.lo,
			  m->ci.hi);
	else if (isfinite(m->ci.mean))
		sbuf_addf(d, "%.4g, no interval: n too small", m->ci.mean);
	else
		sbuf_adds(d, "not tested: n too small");
	if (paired)
		sbuf_addf(d, "; n %zu pairs", m->nnew);
	else
		sbuf_addf(d, "; n %zu base / %zu new", m->nbase, m->nnew);
	sbuf_addf(d, "; method %s; correction %s over %zu cells: p ",
		  stat_method_text(m->method, paired), correction_name(corr), m->family);
	p_text(d, m, corr);
	sbuf_adds(d, "; MDE ");
	if (isfinite(m->mde)) {
		sbuf_addf(d, "%.4g%s", m->mde, unit);
		if (isfinite(m->mde_pct))
			sbuf_addf(d, " (%.1f%%)", m->mde_pct);
	} else {
		mde_text(d, m, 4);
	}
}

static void junit_property(struct sbuf *o, const char *name, const char *value)
{
	sbuf_adds(o, "      <property name=\"");
	sbuf_add_xml(o, name);
	sbuf_adds(o, "\" value=\"");
	sbuf_add_xml(o, value ? value : "");
	sbuf_adds(o, "\"/>\n");
}

struct junit_count {
	size_t tests, fails, errors, skips;
};

/* One cell's testcase into o (NULL: counted only). */
static void junit_cell(struct sbuf *o, struct junit_count *n, const char *cls,
		       const char *name, const char *kind, const char *label, const char *detail)
{
	n->tests++;
	tally(kind, &n->fails, &n->errors, &n->skips);
	if (o)
		junit_case(o, cls, name, kind, label, detail);
}

/* The cells of a judged implementation: per rate, the mix's latency and
 * CPU per request, then each request's own latency (compare.h): a request
 * with its own slo_ms is judged like the mix's cells; the others are
 * advisory ("skipped", whatever their verdict, as in the markdown). */
static void junit_cells(const struct compare *c, const struct cmp_impl *im, const char *cls,
			struct sbuf *o, struct junit_count *n)
{
	struct sbuf name = SBUF_INIT, d = SBUF_INIT, lab = SBUF_INIT, met = SBUF_INIT;
	size_t j, k;

	for (j = 0; im->judged && j < im->npooled; j++) {
		const struct cmp_pooled *pm = &im->pooled[j];
		char nm[160];

		if (pm->verdict == CMP_NA)
			continue;
		sbuf_reset(&name);
		sbuf_addf(&name, "%s pooled over all rates", cmp_pooled_name(c, pm, nm, sizeof(nm)));
		cmp_pooled_detail(c, pm, &d);
		junit_cell(o, n, cls, name.buf, cell_kind(pm->verdict),
			   cmp_verdict_name(pm->verdict), d.buf);
	}
	for (j = 0; im->judged && j < im->nrates; j++) {
		const struct cmp_rate *r = &im->rates[j];

		if (!r->has_cells)
			continue;
		if (c->metrics & CMP_P99) {
			sbuf_reset(&name);
			sbuf_addf(&name, "p%g at %g req/s", c->new_.slo_pct, r->rate);
			cell_detail(&d, "latency", &r->p99, " ms", im->paired, c->correction);
			junit_cell(o, n, cls, name.buf, cell_kind(r->p99.verdict),
				   cmp_verdict_name(r->p99.verdict), d.buf);
		}
		if (c->metrics & CMP_CPU_PER_REQUEST) {
			sbuf_reset(&name);
			sbuf_addf(&name, "cpu_per_request at %g req/s", r->rate);
			cell_detail(&d, "CPU/request", &r->cpu, " µs", im->paired, c->correction);
			junit_cell(o, n, cls, name.buf, cell_kind(r->cpu.verdict),
				   cmp_verdict_name(r->cpu.verdict), d.buf);
		}
		for (k = 0; k < r->nreq; k++) {
			const struct cmp_metric *m = &r->req[k];
			int judged = c->new_.req_slo_ms[k] > 0;

			if (m->verdict == CMP_NA)
				continue;
			sbuf_reset(&name);
			sbuf_addf(&name, "request %s p%g at %g req/s", c->new_.reqs[k],
				  c->new_.slo_pct, r->rate);
			sbuf_reset(&met);
			sbuf_addf(&met, "request %s latency", c->new_.reqs[k]);
			sbuf_reset(&lab);
			sbuf_addf(&lab, "%s%s", judged ? "" : "advisory: ", cmp_verdict_name(m->verdict));
			cell_detail(&d, met.buf, m, " ms", im->paired,
				    judged ? c->correction : CMP_CORRECT_NONE);
			junit_cell(o, n, cls, name.buf, judged ? cell_kind(m->verdict) : "skipped",
				   lab.buf, d.buf);
		}
	}
	sbuf_release(&name);
	sbuf_release(&d);
	sbuf_release(&lab);
	sbuf_release(&met);
}

void compare_junit(const struct compare *c, struct sbuf *o)
{
	struct sbuf cls = SBUF_INIT, name = SBUF_INIT, hdr = SBUF_INIT;
	struct junit_count n = { 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];

		n.tests++;
		tally(impl_kind(im), &n.fails, &n.errors, &n.skips);
		junit_cells(c, im, NULL, NULL, &n);
	}
	if (!c->judged) {  /* nothing judged: itself an error (exit 3) */
		n.tests++;
		n.errors++;
	}
	sbuf_adds(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sbuf_addf(o, "<testsuites name=\"harness compare\" tests=\"%zu\" failures=\"%zu\" "
		  "errors=\"%zu\" skipped=\"%zu\">\n", n.tests, n.fails, n.errors, n.skips);
	sbuf_adds(o, "  <testsuite name=\"");
	sbuf_add_xml(o, c->base.id);
	sbuf_adds(o, " -> ");
	sbuf_add_xml(o, c->new_.id);
	sbuf_addf(o, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
		  n.tests, n.fails, n.errors, n.skips);
	sbuf_adds(o, "    <properties>\n");
	junit_property(o, "base.run", c->base.id);
	junit_property(o, "base.status", c->base.status);
	junit_property(o, "base.failure", c->base.failure);
	junit_property(o, "new.run", c->new_.id);
	junit_property(o, "new.status", c->new_.status);
	junit_property(o, "new.failure", c->new_.failure);
	sbuf_addf(&hdr, "%d", c->exit_code);
	junit_property(o, "exit", hdr.buf);
	sbuf_reset(&hdr);
	compare_headline(c, &hdr);
	junit_property(o, "headline", hdr.buf);
	sbuf_adds(o, "    </properties>\n");
	if (!c->judged)
		junit_case(o, "harness.compare", "judged implementations", "error", "inconclusive",
			   "no implementation is paired with an @base control; unpaired "
			   "comparisons are advisory (--impl NAME or --judge-unpaired)");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		struct junit_count dummy = { 0, 0, 0, 0 };

		sbuf_reset(&cls);
		sbuf_addf(&cls, "harness.compare.%s", im->name);
		sbuf_reset(&name);
		sbuf_addf(&name, "%s%s", im->judged ? "" : "advisory: ",
			  cmp_verdict_name(im->verdict));
		sbuf_reset(&hdr);
		sbuf_addf(&hdr, "%s (decided by: %s)", im->why,
			  im->decided_by ? im->decided_by : "-");
		junit_case(o, cls.buf, "verdict", impl_kind(im), name.buf, hdr.buf);
		junit_cells(c, im, cls.buf, o, &dummy);
	}
	sbuf_adds(o, "  </testsuite>\n</testsuites>\n");
	sbuf_release(&cls);
	sbuf_release(&name);
	sbuf_release(&hdr);
}
