/*
 * compare_out: the compare result as Markdown (a pull-request comment),
 * JSON and JUnit XML.
 */
#include "compare.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
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

static void jnum(struct sbuf *o, double v)
{
	if (isfinite(v))
		sbuf_addf(o, "%.6g", v);
	else
		sbuf_adds(o, "null");
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
	if (c->correction == CMP_CORRECT_HOLM)
		sbuf_addf(o, "Holm over the %zu rate x metric cells tested (a cell regresses only "
			  "when its adjusted one-sided p is <= %g)", im->ncells, c->alpha);
	else
		sbuf_addf(o, "none (%zu cells tested, each at %g)", im->ncells, c->alpha);
	sbuf_addf(o, "; MDE: the shift found with %.0f%% power, one-sided at %g%s.\n\n",
		  CMP_MDE_POWER * 100, c->alpha, c->correction == CMP_CORRECT_HOLM ?
		  " / cells tested" : "");
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

static void md_evidence(struct sbuf *o, const struct cmp_impl *im)
{
	size_t j;

	sbuf_adds(o, "| rate (req/s) | base: valid (failed) | new: valid (failed) | valid pairs "
		  "| outcome |\n|---:|---:|---:|---:|---|\n");
	for (j = 0; j < im->nrates; j++) {
		const struct cmp_rate *r = &im->rates[j];
		sbuf_addf(o, "| %.0f | %zu (%zu) | %zu (%zu) | %zu | %s |\n", r->rate, r->vbase,
			  r->fbase, r->vnew, r->fnew, r->vpairs,
			  r->outcome_regression ? "**new fails where base held**"
			  : r->fnew ? "both fail" : r->fbase ? "base fails" : "both hold");
	}
	sbuf_adds(o, "\n");
}

static void md_cell(struct sbuf *o, const struct cmp_rate *r, const char *label,
		    const struct cmp_metric *m, int prec, const char *unit, int paired, int corr)
{
	sbuf_addf(o, "| %.0f | %s | ", r->rate, label);
	num(o, m->base, prec);
	sbuf_adds(o, " | ");
	num(o, m->new_, prec);
	sbuf_adds(o, " | ");
	snum(o, m->new_ - m->base, prec);
	sbuf_addf(o, "%s | ", unit);
	snum(o, m->rel_pct, 1);
	sbuf_adds(o, isfinite(m->rel_pct) ? "% | " : " | ");
	if (isfinite(m->ci.lo)) {
		sbuf_adds(o, "[");
		snum(o, m->ci.lo, prec);
		sbuf_adds(o, ", ");
		snum(o, m->ci.hi, prec);
		sbuf_addf(o, "]%s", unit);
	} else {
		sbuf_adds(o, "-");
	}
	if (paired)
		sbuf_addf(o, " | %zu pairs", m->nnew);
	else
		sbuf_addf(o, " | %zu / %zu", m->nbase, m->nnew);
	sbuf_addf(o, " | %s | ", method_short(m->method));
	p_text(o, m, corr);
	sbuf_adds(o, " | ");
	mde_text(o, m, prec);
	sbuf_addf(o, " | %s%s%s |\n", m->verdict == CMP_REGRESSION ? "**" : "",
		  cmp_verdict_name(m->verdict), m->verdict == CMP_REGRESSION ? "**" : "");
}

void compare_md(const struct compare *c, struct sbuf *o)
{
	struct sbuf t = SBUF_INIT;
	char b1[13], b2[13];
	size_t i, j;
	double lvl = (1 - 2 * c->alpha) * 100;

	sbuf_addf(o, "## harness compare: `%s` → `%s`\n\n", c->base.id, c->new_.id);
	run_status(o, "Base", &c->base);
	run_status(o, "; new", &c->new_);
	sbuf_adds(o, ".\n\n");
	if (c->same_run)
		sbuf_adds(o, "**BASE and NEW are the same run**: only its paired arms "
			  "(`<impl>@base`) are compared.\n\n");
	if (!c->judged)
		sbuf_adds(o, "**No implementation is judged**: none is paired with an `@base` "
			  "control; unpaired comparisons are advisory (`--impl NAME` or "
			  "`--judge-unpaired` judges them).\n\n");
	if (c->base.exploratory || c->new_.exploratory)
		sbuf_adds(o, "**EXPLORATORY**: a run was made from a dirty spec (--allow-dirty).\n\n");
	sbuf_addf(o, "Spec `%s`, stored hash `%.12s`%s. ", c->new_.spec_name, c->new_.spec_hash,
		  c->same_spec ? " (identical in both runs)" : "; **the runs' stored specs differ**");
	if (c->version_diffs)
		sbuf_addf(o, "**Versions differ between the runs** (the difference may be theirs): %s. ",
			  c->version_diffs);
	sbuf_addf(o, "Rule: margin %g%%, min_pairs %zu, metrics", c->margin_pct, c->min_pairs);
	if (c->metrics & CMP_P99)
		sbuf_addf(o, " p%g", c->new_.slo_pct);
	if (c->metrics & CMP_CPU_PER_REQUEST)
		sbuf_adds(o, (c->metrics & CMP_P99) ? ", cpu_per_request" : " cpu_per_request");
	sbuf_addf(o, "; shifts by %s paired, %s unpaired; intervals at %g%%%s, one-sided "
		  "tests at %g%%; correction %s across each implementation's rate x metric "
		  "cells; over accepted windows; merged values from merged histograms.\n\n",
		  stat_method_name(c->method_paired), stat_method_name(c->method_unpaired), lvl,
		  c->method_paired == STAT_CS ? " (the confidence sequence's at 1 - alpha)" : "",
		  c->alpha * 100, correction_name(c->correction));

	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		double d;

		if (im->judged)
			sbuf_addf(o, "### `%s`: **%s**\n\n", im->name, cmp_verdict_name(im->verdict));
		else
			sbuf_addf(o, "### `%s` (advisory, not judged): %s\n\n", im->name,
				  cmp_verdict_name(im->verdict));
		sbuf_adds(o, "Why: ");
		sbuf_adds(o, im->why);
		sbuf_adds(o, ".\n\n");
		sbuf_addf(o, "Commit `%s` → `%s`", short_commit(im->base_commit, b1),
			  short_commit(im->new_commit, b2));
		if (im->new_ref)
			sbuf_addf(o, " (ref `%s`)", im->new_ref);
		sbuf_addf(o, "; %s.\n\n", pair_text(c, im, &t));
		method_line(o, c, im);
		if (!im->nrates) {
			sbuf_adds(o, "No rate has valid windows on both sides.\n\n");
		} else {
			md_evidence(o, im);
			sbuf_reset(&t);
			sbuf_addf(&t, "p%g (ms)", c->new_.slo_pct);
			sbuf_addf(o, "| rate (req/s) | metric | base | new | Δ | Δ %% | interval "
				  "of the shift | n | method | p%s | MDE | verdict |\n",
				  c->correction == CMP_CORRECT_HOLM ? " → Holm" : "");
			sbuf_adds(o, "|---:|---|---:|---:|---:|---:|---|---:|---|---|---:|---|\n");
			for (j = 0; j < im->nrates; j++) {
				const struct cmp_rate *r = &im->rates[j];
				if (!r->has_cells)
					continue;
				if (c->metrics & CMP_P99)
					md_cell(o, r, t.buf, &r->p99, 3, "", im->paired,
						c->correction);
				if (c->metrics & CMP_CPU_PER_REQUEST)
					md_cell(o, r, "CPU/request (µs)", &r->cpu, 1, "", im->paired,
						c->correction);
			}
			sbuf_adds(o, "\n");
		}
		sbuf_adds(o, "Knees: base: ");
		knee_text(o, im->kbase);
		sbuf_adds(o, "; new: ");
		knee_text(o, im->knew);
		if (knee_shift(im, &d))
			sbuf_addf(o, "; shift %+.0f req/s", d);
		sbuf_adds(o, ".\n\n");
	}
	sbuf_addf(o, "Δ is new - base of the merged values; the interval is for the shift of the "
		  "per-window (paired: per-block) values by the method named (HL: Hodges-Lehmann, "
		  "t: mean with a t interval, CS: mean with a confidence sequence); p is the "
		  "one-sided p-value of the shift's direction%s; MDE the minimum detectable "
		  "effect.\n\n", c->correction == CMP_CORRECT_HOLM ? ", then Holm-adjusted" : "");
	sbuf_addf(o, "**Result: %s** (exit %d): %d judged, %d regressed, %d inconclusive.\n",
		  c->exit_code == 1 ? "regression" : c->exit_code == 3 ? "inconclusive"
								     : "no regression",
		  c->exit_code, c->judged, c->regressions, c->inconclusive);
	sbuf_release(&t);
}

/* ------------------------------------------------------------ json */

static void json_metric(struct sbuf *o, const char *name, const struct cmp_metric *m,
			int judged)
{
	if (!judged) {  /* not in the spec's compare.metric */
		sbuf_addf(o, "\"%s\":null", name);
		return;
	}
	sbuf_addf(o, "\"%s\":{\"base\":", name);
	jnum(o, m->base);
	sbuf_adds(o, ",\"new\":");
	jnum(o, m->new_);
	sbuf_adds(o, ",\"diff\":");
	jnum(o, m->new_ - m->base);
	sbuf_adds(o, ",\"diff_pct\":");
	jnum(o, m->rel_pct);
	sbuf_adds(o, ",\"ci_mean\":");
	jnum(o, m->ci.mean);
	sbuf_adds(o, ",\"ci_lo\":");
	jnum(o, m->ci.lo);
	sbuf_adds(o, ",\"ci_hi\":");
	jnum(o, m->ci.hi);
	sbuf_addf(o, ",\"n_base\":%zu,\"n_new\":%zu,\"method\":\"%s\",\"level\":%g",
		  m->nbase, m->nnew, stat_method_name(m->method), m->level);
	sbuf_adds(o, ",\"p_rise\":");
	jnum(o, m->p_up);
	sbuf_adds(o, ",\"p_fall\":");
	jnum(o, m->p_down);
	sbuf_adds(o, ",\"p_rise_adjusted\":");
	jnum(o, m->padj_up);
	sbuf_adds(o, ",\"p_fall_adjusted\":");
	jnum(o, m->padj_down);
	sbuf_addf(o, ",\"cells_tested\":%zu,\"mde\":", m->family);
	if (isinf(m->mde))
		sbuf_adds(o, "\"inf\"");
	else
		jnum(o, m->mde);
	sbuf_adds(o, ",\"mde_pct\":");
	jnum(o, m->mde_pct);
	sbuf_adds(o, ",\"verdict\":");
	sbuf_add_json_str(o, cmp_verdict_name(m->verdict));
	sbuf_adds(o, "}");
}

static void json_knee(struct sbuf *o, const char *name, const struct knee_result *k)
{
	sbuf_addf(o, "\"%s\":", name);
	if (!k || k->kind == KNEE_NONE) {
		sbuf_adds(o, "null");
		return;
	}
	sbuf_addf(o, "{\"kind\":\"%s\",\"crossed\":%s,\"knee_rps\":", knee_kind_name(k->kind),
		  k->crossed ? "true" : "false");
	jnum(o, k->knee_rps);
	sbuf_adds(o, ",\"lo_rps\":");
	jnum(o, k->kind == KNEE_BRACKET ? k->lo_rps : NAN);
	sbuf_adds(o, ",\"hi_rps\":");
	jnum(o, k->kind == KNEE_BRACKET ? k->hi_rps : NAN);
	sbuf_adds(o, ",\"highest_rung_rps\":");
	jnum(o, k->highest_rung_rps);
	sbuf_adds(o, ",\"reason\":");
	sbuf_add_json_str(o, k->reason);
	sbuf_adds(o, ",\"ci_lo\":");
	jnum(o, k->has_ci ? k->ci_lo : NAN);
	sbuf_adds(o, ",\"ci_hi\":");
	jnum(o, k->has_ci ? k->ci_hi : NAN);
	sbuf_addf(o, ",\"inferential\":%s}", k->has_ci && k->inferential ? "true" : "false");
}

static void json_str_or_null(struct sbuf *o, const char *s)
{
	if (s)
		sbuf_add_json_str(o, s);
	else
		sbuf_adds(o, "null");
}

static void json_run(struct sbuf *o, const char *role, const struct cmp_run *r)
{
	sbuf_addf(o, ",\"%s_status\":", role);
	sbuf_add_json_str(o, r->status);
	sbuf_addf(o, ",\"%s_failure\":", role);
	json_str_or_null(o, r->failure);
	sbuf_addf(o, ",\"%s_failure_kind\":", role);
	json_str_or_null(o, r->failure_kind);
	sbuf_addf(o, ",\"%s_failure_impl\":", role);
	json_str_or_null(o, r->failure_impl);
}

static void json_rate(struct sbuf *o, const struct compare *c, const struct cmp_rate *r)
{
	sbuf_addf(o, "{\"rate\":%g,\"base_valid\":%zu,\"base_failed\":%zu,\"new_valid\":%zu,"
		  "\"new_failed\":%zu,\"valid_pairs\":%zu,\"outcome_regression\":%s,", r->rate,
		  r->vbase, r->fbase, r->vnew, r->fnew, r->vpairs,
		  r->outcome_regression ? "true" : "false");
	json_metric(o, "latency", &r->p99, r->has_cells && (c->metrics & CMP_P99) != 0);
	sbuf_adds(o, ",");
	json_metric(o, "cpu_per_request", &r->cpu,
		    r->has_cells && (c->metrics & CMP_CPU_PER_REQUEST) != 0);
	sbuf_adds(o, "}");
}

void compare_json(const struct compare *c, struct sbuf *o)
{
	size_t i, j;
	double d;

	sbuf_adds(o, "{\"base\":");
	sbuf_add_json_str(o, c->base.id);
	sbuf_adds(o, ",\"new\":");
	sbuf_add_json_str(o, c->new_.id);
	json_run(o, "base", &c->base);
	json_run(o, "new", &c->new_);
	sbuf_addf(o, ",\"same_run\":%s", c->same_run ? "true" : "false");
	sbuf_adds(o, ",\"spec_name\":");
	sbuf_add_json_str(o, c->new_.spec_name);
	sbuf_adds(o, ",\"version_diffs\":");
	json_str_or_null(o, c->version_diffs);
	sbuf_addf(o, ",\"same_spec\":%s,\"exploratory\":%s", c->same_spec ? "true" : "false",
		  c->base.exploratory || c->new_.exploratory ? "true" : "false");
	sbuf_addf(o, ",\"rule\":{\"margin_pct\":%g,\"alpha\":%g,\"min_pairs\":%zu,"
		  "\"percentile\":%g,\"interval_level\":%g,\"method_paired\":\"%s\","
		  "\"method_unpaired\":\"%s\",\"correction\":\"%s\",\"mde_power\":%g,"
		  "\"metrics\":[", c->margin_pct, c->alpha, c->min_pairs, c->new_.slo_pct,
		  1 - 2 * c->alpha, stat_method_name(c->method_paired),
		  stat_method_name(c->method_unpaired), correction_name(c->correction),
		  CMP_MDE_POWER);
	if (c->metrics & CMP_P99)
		sbuf_adds(o, "\"p99\"");
	if (c->metrics & CMP_CPU_PER_REQUEST)
		sbuf_adds(o, (c->metrics & CMP_P99) ? ",\"cpu_per_request\"" : "\"cpu_per_request\"");
	sbuf_adds(o, "]},\"units\":{\"latency\":\"ms\",\"cpu_per_request\":\"us\",\"rate\":\"req/s\"},"
		  "\"impls\":[");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		sbuf_adds(o, i ? ",{\"name\":" : "{\"name\":");
		sbuf_add_json_str(o, im->name);
		sbuf_adds(o, ",\"verdict\":");
		sbuf_add_json_str(o, cmp_verdict_name(im->verdict));
		sbuf_adds(o, ",\"why\":");
		sbuf_add_json_str(o, im->why);
		sbuf_addf(o, ",\"judged\":%s,\"paired\":%s,\"max_valid_pairs\":%zu,"
			  "\"method\":\"%s\",\"correction\":\"%s\",\"cells_tested\":%zu,"
			  "\"base_commit\":", im->judged ? "true" : "false",
			  im->paired ? "true" : "false", im->max_vpairs,
			  stat_method_name(im->paired ? c->method_paired : c->method_unpaired),
			  correction_name(c->correction), im->ncells);
		json_str_or_null(o, im->base_commit);
		sbuf_adds(o, ",\"new_commit\":");
		json_str_or_null(o, im->new_commit);
		sbuf_adds(o, ",\"new_ref\":");
		json_str_or_null(o, im->new_ref);
		sbuf_adds(o, ",\"rates\":[");
		for (j = 0; j < im->nrates; j++) {
			if (j)
				sbuf_adds(o, ",");
			json_rate(o, c, &im->rates[j]);
		}
		sbuf_adds(o, "],");
		json_knee(o, "knee_base", im->kbase);
		sbuf_adds(o, ",");
		json_knee(o, "knee_new", im->knew);
		sbuf_adds(o, ",\"knee_shift_rps\":");
		jnum(o, knee_shift(im, &d) ? d : NAN);
		sbuf_adds(o, "}");
	}
	sbuf_addf(o, "],\"judged\":%d,\"regressions\":%d,\"inconclusive\":%d,\"result\":",
		  c->judged, c->regressions, c->inconclusive);
	sbuf_add_json_str(o, c->exit_code == 1 ? "regression" : c->exit_code == 3 ? "inconclusive"
										  : "no regression");
	sbuf_addf(o, ",\"exit\":%d}\n", c->exit_code);
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
	sbuf_addf(d, "%s base %.4g%s, new %.4g%s (%+.1f%%), shift %.4g, %g%% interval [%.4g, %.4g]",
		  metric, m->base, unit, m->new_, unit, m->rel_pct, m->ci.mean, m->level * 100,
		  m->ci.lo, m->ci.hi);
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

void compare_junit(const struct compare *c, struct sbuf *o)
{
	struct sbuf cls = SBUF_INIT, name = SBUF_INIT, d = SBUF_INIT, hdr = SBUF_INIT;
	size_t i, j, tests = 0, fails = 0, errors = 0, skips = 0;

	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		tests++;
		tally(impl_kind(im), &fails, &errors, &skips);
		for (j = 0; im->judged && j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			if (!r->has_cells)
				continue;
			if (c->metrics & CMP_P99) {
				tests++;
				tally(cell_kind(r->p99.verdict), &fails, &errors, &skips);
			}
			if (c->metrics & CMP_CPU_PER_REQUEST) {
				tests++;
				tally(cell_kind(r->cpu.verdict), &fails, &errors, &skips);
			}
		}
	}
	if (!c->judged) {  /* nothing judged: itself an error (exit 3) */
		tests++;
		errors++;
	}
	sbuf_adds(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sbuf_addf(o, "<testsuites name=\"harness compare\" tests=\"%zu\" failures=\"%zu\" "
		  "errors=\"%zu\" skipped=\"%zu\">\n", tests, fails, errors, skips);
	sbuf_adds(o, "  <testsuite name=\"");
	sbuf_add_xml(o, c->base.id);
	sbuf_adds(o, " -> ");
	sbuf_add_xml(o, c->new_.id);
	sbuf_addf(o, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", tests,
		  fails, errors, skips);
	sbuf_adds(o, "    <properties>\n");
	junit_property(o, "base.run", c->base.id);
	junit_property(o, "base.status", c->base.status);
	junit_property(o, "base.failure", c->base.failure);
	junit_property(o, "new.run", c->new_.id);
	junit_property(o, "new.status", c->new_.status);
	junit_property(o, "new.failure", c->new_.failure);
	sbuf_addf(&hdr, "%d", c->exit_code);
	junit_property(o, "exit", hdr.buf);
	sbuf_adds(o, "    </properties>\n");
	if (!c->judged)
		junit_case(o, "harness.compare", "judged implementations", "error", "inconclusive",
			   "no implementation is paired with an @base control; unpaired "
			   "comparisons are advisory (--impl NAME or --judge-unpaired)");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		sbuf_reset(&cls);
		sbuf_addf(&cls, "harness.compare.%s", im->name);
		sbuf_reset(&name);
		sbuf_addf(&name, "%s%s", im->judged ? "" : "advisory: ",
			  cmp_verdict_name(im->verdict));
		junit_case(o, cls.buf, "verdict", impl_kind(im), name.buf, im->why);
		for (j = 0; im->judged && j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			if (!r->has_cells)
				continue;
			if (c->metrics & CMP_P99) {
				sbuf_reset(&name);
				sbuf_addf(&name, "p%g at %g req/s", c->new_.slo_pct, r->rate);
				cell_detail(&d, "latency", &r->p99, " ms", im->paired, c->correction);
				junit_case(o, cls.buf, name.buf, cell_kind(r->p99.verdict),
					   cmp_verdict_name(r->p99.verdict), d.buf);
			}
			if (c->metrics & CMP_CPU_PER_REQUEST) {
				sbuf_reset(&name);
				sbuf_addf(&name, "cpu_per_request at %g req/s", r->rate);
				cell_detail(&d, "CPU/request", &r->cpu, " us", im->paired,
					    c->correction);
				junit_case(o, cls.buf, name.buf, cell_kind(r->cpu.verdict),
					   cmp_verdict_name(r->cpu.verdict), d.buf);
			}
		}
	}
	sbuf_adds(o, "  </testsuite>\n</testsuites>\n");
	sbuf_release(&cls);
	sbuf_release(&name);
	sbuf_release(&d);
	sbuf_release(&hdr);
}
