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

static void knee_text(struct sbuf *o, const struct cmp_knee *k)
{
	if (!k->has) {
		sbuf_adds(o, "no accepted ladder window");
		return;
	}
	if (!k->fit.crossed)
		sbuf_addf(o, ">= %.0f req/s (never crossed)", k->fit.highest_rung_rps);
	else if (k->fit.at_first_rung)
		sbuf_addf(o, "<= %.0f req/s (crossed at the first rung)", k->fit.knee_rps);
	else
		sbuf_addf(o, "%.0f req/s", k->fit.knee_rps);
	if (k->fit.crossed && k->has_ci && isfinite(k->ci.lo))
		sbuf_addf(o, " [%.0f, %.0f]%s", k->ci.lo, k->ci.hi,
			  k->ci.inferential ? "" : " (non-inferential)");
}

static int knee_shift(const struct cmp_impl *im, double *d)
{
	if (!im->kbase.has || !im->knew.has || !im->kbase.fit.crossed || !im->knew.fit.crossed)
		return 0;
	*d = im->knew.fit.knee_rps - im->kbase.fit.knee_rps;
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
		sbuf_addf(o, "unpaired (Welch): %s and %s ran at different times, so the "
			  "interval also carries any drift between the runs", c->base.id, c->new_.id);
	return o->buf;
}

/* ------------------------------------------------------------ markdown */

static void md_cell(struct sbuf *o, const struct cmp_rate *r, const char *label,
		    const struct cmp_metric *m, int prec, const char *unit, int paired)
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
	sbuf_addf(o, " | %s%s%s |\n", m->verdict == CMP_REGRESSION ? "**" : "",
		  cmp_verdict_name(m->verdict), m->verdict == CMP_REGRESSION ? "**" : "");
}

void compare_md(const struct compare *c, struct sbuf *o)
{
	struct sbuf t = SBUF_INIT;
	char b1[13], b2[13];
	size_t i, j;
	double lvl = (1 - c->alpha) * 100;

	sbuf_addf(o, "## harness compare: `%s` → `%s`\n\n", c->base.id, c->new_.id);
	if (c->base.exploratory || c->new_.exploratory)
		sbuf_adds(o, "**EXPLORATORY**: a run was made from a dirty spec (--allow-dirty).\n\n");
	sbuf_addf(o, "Spec `%s`, stored hash `%.12s`%s. ", c->new_.spec_name, c->new_.spec_hash,
		  c->same_spec ? " (identical in both runs)" : "; **the runs' stored specs differ**");
	sbuf_addf(o, "Rule: margin %g%%, metrics", c->margin_pct);
	if (c->metrics & CMP_P99)
		sbuf_adds(o, " p99");
	if (c->metrics & CMP_CPU_PER_REQUEST)
		sbuf_adds(o, (c->metrics & CMP_P99) ? ", cpu_per_request" : " cpu_per_request");
	sbuf_addf(o, "; %g%% intervals; accepted windows only; p99 from merged histograms.\n\n",
		  lvl);

	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		double d;

		sbuf_addf(o, "### `%s`: **%s**\n\n", im->name, cmp_verdict_name(im->verdict));
		sbuf_addf(o, "Commit `%s` → `%s`", short_commit(im->base_commit, b1),
			  short_commit(im->new_commit, b2));
		if (im->new_ref)
			sbuf_addf(o, " (ref `%s`)", im->new_ref);
		sbuf_addf(o, "; %s.\n\n", pair_text(c, im, &t));
		if (!im->nrates) {
			sbuf_adds(o, "No rate has accepted windows on both sides.\n\n");
		} else {
			sbuf_addf(o, "| rate (req/s) | metric | base | new | Δ | Δ %% | %g%% CI of Δ | "
				  "windows | verdict |\n", lvl);
			sbuf_adds(o, "|---:|---|---:|---:|---:|---:|---|---:|---|\n");
			for (j = 0; j < im->nrates; j++) {
				const struct cmp_rate *r = &im->rates[j];
				if (c->metrics & CMP_P99)
					md_cell(o, r, "p99 (ms)", &r->p99, 3, "", im->paired);
				if (c->metrics & CMP_CPU_PER_REQUEST)
					md_cell(o, r, "CPU/request (µs)", &r->cpu, 1, "", im->paired);
			}
			sbuf_adds(o, "\n");
		}
		sbuf_adds(o, "Knee: base ");
		knee_text(o, &im->kbase);
		sbuf_adds(o, " → new ");
		knee_text(o, &im->knew);
		if (knee_shift(im, &d))
			sbuf_addf(o, "; shift %+.0f req/s", d);
		sbuf_adds(o, ".\n\n");
	}
	sbuf_addf(o, "Δ is new - base of the merged values; the interval is for the mean "
		  "per-window (paired: per-block) difference of the accepted windows.\n\n");
	sbuf_addf(o, "**Result: %s** (exit %d).\n",
		  c->regressions ? "regression" : "no regression", c->regressions ? 1 : 0);
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
	sbuf_addf(o, ",\"n_base\":%zu,\"n_new\":%zu,\"verdict\":", m->nbase, m->nnew);
	sbuf_add_json_str(o, cmp_verdict_name(m->verdict));
	sbuf_adds(o, "}");
}

static void json_knee(struct sbuf *o, const char *name, const struct cmp_knee *k)
{
	sbuf_addf(o, "\"%s\":", name);
	if (!k->has) {
		sbuf_adds(o, "null");
		return;
	}
	sbuf_addf(o, "{\"crossed\":%s,\"knee_rps\":", k->fit.crossed ? "true" : "false");
	jnum(o, k->fit.knee_rps);
	sbuf_adds(o, ",\"highest_rung_rps\":");
	jnum(o, k->fit.highest_rung_rps);
	sbuf_adds(o, ",\"ci_lo\":");
	jnum(o, k->has_ci ? k->ci.lo : NAN);
	sbuf_adds(o, ",\"ci_hi\":");
	jnum(o, k->has_ci ? k->ci.hi : NAN);
	sbuf_addf(o, ",\"inferential\":%s}", k->has_ci && k->ci.inferential ? "true" : "false");
}

static void json_str_or_null(struct sbuf *o, const char *s)
{
	if (s)
		sbuf_add_json_str(o, s);
	else
		sbuf_adds(o, "null");
}

void compare_json(const struct compare *c, struct sbuf *o)
{
	size_t i, j;
	double d;

	sbuf_adds(o, "{\"base\":");
	sbuf_add_json_str(o, c->base.id);
	sbuf_adds(o, ",\"new\":");
	sbuf_add_json_str(o, c->new_.id);
	sbuf_adds(o, ",\"spec_name\":");
	sbuf_add_json_str(o, c->new_.spec_name);
	sbuf_addf(o, ",\"same_spec\":%s,\"exploratory\":%s", c->same_spec ? "true" : "false",
		  c->base.exploratory || c->new_.exploratory ? "true" : "false");
	sbuf_addf(o, ",\"rule\":{\"margin_pct\":%g,\"alpha\":%g,\"metrics\":[", c->margin_pct,
		  c->alpha);
	if (c->metrics & CMP_P99)
		sbuf_adds(o, "\"p99\"");
	if (c->metrics & CMP_CPU_PER_REQUEST)
		sbuf_adds(o, (c->metrics & CMP_P99) ? ",\"cpu_per_request\"" : "\"cpu_per_request\"");
	sbuf_adds(o, "]},\"units\":{\"p99\":\"ms\",\"cpu_per_request\":\"us\",\"rate\":\"req/s\"},"
		  "\"impls\":[");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		sbuf_adds(o, i ? ",{\"name\":" : "{\"name\":");
		sbuf_add_json_str(o, im->name);
		sbuf_adds(o, ",\"verdict\":");
		sbuf_add_json_str(o, cmp_verdict_name(im->verdict));
		sbuf_adds(o, ",\"why\":");
		sbuf_add_json_str(o, im->why);
		sbuf_addf(o, ",\"paired\":%s,\"base_commit\":", im->paired ? "true" : "false");
		json_str_or_null(o, im->base_commit);
		sbuf_adds(o, ",\"new_commit\":");
		json_str_or_null(o, im->new_commit);
		sbuf_adds(o, ",\"new_ref\":");
		json_str_or_null(o, im->new_ref);
		sbuf_adds(o, ",\"rates\":[");
		for (j = 0; j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			sbuf_addf(o, "%s{\"rate\":%g,", j ? "," : "", r->rate);
			json_metric(o, "p99", &r->p99, (c->metrics & CMP_P99) != 0);
			sbuf_adds(o, ",");
			json_metric(o, "cpu_per_request", &r->cpu,
				    (c->metrics & CMP_CPU_PER_REQUEST) != 0);
			sbuf_adds(o, "}");
		}
		sbuf_adds(o, "],");
		json_knee(o, "knee_base", &im->kbase);
		sbuf_adds(o, ",");
		json_knee(o, "knee_new", &im->knew);
		sbuf_adds(o, ",\"knee_shift_rps\":");
		jnum(o, knee_shift(im, &d) ? d : NAN);
		sbuf_adds(o, "}");
	}
	sbuf_addf(o, "],\"regressions\":%d,\"exit\":%d}\n", c->regressions,
		  c->regressions ? 1 : 0);
}

/* ------------------------------------------------------------ junit */

static void junit_case(struct sbuf *o, const char *cls, const char *name,
		       enum cmp_verdict v, const char *detail)
{
	sbuf_adds(o, "    <testcase classname=\"");
	sbuf_add_xml(o, cls);
	sbuf_adds(o, "\" name=\"");
	sbuf_add_xml(o, name);
	sbuf_adds(o, "\"");
	if (v == CMP_REGRESSION) {
		sbuf_adds(o, ">\n      <failure type=\"regression\" message=\"");
		sbuf_add_xml(o, detail);
		sbuf_adds(o, "\"/>\n    </testcase>\n");
	} else if (v == CMP_INCONCLUSIVE || v == CMP_NA) {
		sbuf_adds(o, ">\n      <skipped message=\"");
		sbuf_add_xml(o, cmp_verdict_name(v));
		sbuf_adds(o, ": ");
		sbuf_add_xml(o, detail);
		sbuf_adds(o, "\"/>\n    </testcase>\n");
	} else {
		sbuf_adds(o, ">\n      <system-out>");
		sbuf_add_xml(o, cmp_verdict_name(v));
		sbuf_adds(o, ": ");
		sbuf_add_xml(o, detail);
		sbuf_adds(o, "</system-out>\n    </testcase>\n");
	}
}

static void cell_detail(struct sbuf *d, const char *metric, const struct cmp_metric *m,
			const char *unit, double level)
{
	sbuf_reset(d);
	sbuf_addf(d, "%s base %.4g%s, new %.4g%s (%+.1f%%), %g%% CI of the difference [%.4g, %.4g]",
		  metric, m->base, unit, m->new_, unit, m->rel_pct, level * 100, m->ci.lo, m->ci.hi);
}

void compare_junit(const struct compare *c, struct sbuf *o)
{
	struct sbuf cls = SBUF_INIT, name = SBUF_INIT, d = SBUF_INIT;
	size_t i, j, tests = 0, fails = 0, skips = 0;

	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		tests++;
		fails += im->verdict == CMP_REGRESSION;
		skips += im->verdict == CMP_INCONCLUSIVE;
		for (j = 0; j < im->nrates; j++) {
			const struct cmp_metric *ms[2] = { &im->rates[j].p99, &im->rates[j].cpu };
			int k;
			for (k = 0; k < 2; k++) {
				if (!(c->metrics & (k ? CMP_CPU_PER_REQUEST : CMP_P99)))
					continue;
				tests++;
				fails += ms[k]->verdict == CMP_REGRESSION;
				skips += ms[k]->verdict == CMP_INCONCLUSIVE || ms[k]->verdict == CMP_NA;
			}
		}
	}
	sbuf_adds(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sbuf_addf(o, "<testsuites name=\"harness compare\" tests=\"%zu\" failures=\"%zu\" "
		  "skipped=\"%zu\">\n", tests, fails, skips);
	sbuf_adds(o, "  <testsuite name=\"");
	sbuf_add_xml(o, c->base.id);
	sbuf_adds(o, " -> ");
	sbuf_add_xml(o, c->new_.id);
	sbuf_addf(o, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n", tests,
		  fails, skips);
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		sbuf_reset(&cls);
		sbuf_addf(&cls, "harness.compare.%s", im->name);
		junit_case(o, cls.buf, "verdict", im->verdict, im->why);
		for (j = 0; j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			if (c->metrics & CMP_P99) {
				sbuf_reset(&name);
				sbuf_addf(&name, "p99 at %g req/s", r->rate);
				cell_detail(&d, "p99", &r->p99, " ms", 1 - c->alpha);
				junit_case(o, cls.buf, name.buf, r->p99.verdict, d.buf);
			}
			if (c->metrics & CMP_CPU_PER_REQUEST) {
				sbuf_reset(&name);
				sbuf_addf(&name, "cpu_per_request at %g req/s", r->rate);
				cell_detail(&d, "CPU/request", &r->cpu, " us", 1 - c->alpha);
				junit_case(o, cls.buf, name.buf, r->cpu.verdict, d.buf);
			}
		}
	}
	sbuf_adds(o, "  </testsuite>\n</testsuites>\n");
	sbuf_release(&cls);
	sbuf_release(&name);
	sbuf_release(&d);
}
