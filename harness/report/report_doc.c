/*
 * report_doc: what the report says, section by section, as blocks that
 * report_md.c and report_html.c render. Numbers come from struct report
 * (report_rollup.c); these files only word and arrange them: this one the
 * order and the summary (the verdict first), report_doc_tables.c the
 * tables, report_doc_requests.c the per-request section,
 * report_doc_prov.c the provenance, report_doc_kit.c the builder.
 */
#include "report/report_doc.h"
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/headline.h"
#include "report/report_study.h"
#include "report/report.h"
#include "base/util.h"

/* The first failing lines of runs.preflight (after its summary line),
 * each shown as it was printed: what was sent, to whom, what differed. */
static void preflight_failures(const char *text, struct sbuf *c)
{
	const char *p = strchr(text, '\n'), *e;
	int n;

	for (n = 0, p = p ? p + 1 : ""; *p && n < 5; n++, p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		sbuf_addf(c, "%s%.*s", n ? "; " : " Failing: ", (int)(e - p), p);
	}
	if (*p)
		sbuf_adds(c, "; ... (runs.preflight has every line)");
	if (n)
		sbuf_adds(c, ".");
}

static void quality(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;

	sbuf_adds(&c, "Run quality: ");
	run_quality_format(&r->quality, &c);
	sbuf_adds(&c, " (accepted and failed windows are valid measurements; rejected ones are "
		      "void; load: the host's 1-minute load average at the run's start and end).");
	rdoc_add(d, RDOC_P, c.buf);
	if (r->preflight_cases >= 0 && r->preflight) {
		sbuf_reset(&c);
		sbuf_addf(&c, "Pre-flight (every request to every implementation before the first "
			      "window, checked against its expect): %.*s.",
			  (int)strcspn(r->preflight, "\n"), r->preflight);
		preflight_failures(r->preflight, &c);
		rdoc_add(d, RDOC_P, c.buf);
	}
	sbuf_release(&c);
}

/* The summary's interval: "95% [2430, 2610], inferential" (the Knees
 * table says how many resamples crossed and why a label is what it is). */
static void short_ci(struct sbuf *c, const struct report *r, const struct report_impl *im)
{
	if (!im->has_knee_ci || !isfinite(im->knee_ci.lo)) {
		sbuf_adds(c, "-");
		return;
	}
	if (!im->knee_ci.ncrossed) {
		sbuf_adds(c, "none (no resample crossed)");
		return;
	}
	sbuf_addf(c, "%.0f%% [", r->level * 100);
	report_fmt_rate(c, im->knee_ci.lo);
	sbuf_adds(c, ", ");
	report_fmt_rate(c, im->knee_ci.hi);
	sbuf_addf(c, "], %s", im->knee_ci.inferential ? "inferential" :
		  "non-inferential (see Knees)");
}

/* What a reader needs first: each implementation's verdict (its knee as a
 * point, a bracket or a floor, with its interval and label), its cost and
 * memory at one reference rate, and how much of the run measured. */
static void summary(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT, h1 = SBUF_INIT, h2 = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;
	int best;

	rdoc_add(d, RDOC_H2, "Summary");
	if (r->spec_ok)
		sbuf_addf(&c, "SLO: %s <= %g ms, error rate <= %g. ", r->slo_label, r->slo_ms,
			  r->error_rate_max);
	sbuf_adds(&c, "The knee is the highest offered rate at which an implementation holds the "
		      "SLO: a point between two rungs; a bracket (lo, hi] when failed windows (errors, "
		      "under-delivery, death) made the crossing; \">= X\" when it held at every valid "
		      "rung up to X (its wall was not reached). ");
	if (isfinite(r->ref_rps)) {
		sbuf_adds(&c, "Cost and memory at ");
		report_fmt_rate(&c, r->ref_rps);
		sbuf_adds(&c, " req/s, the highest ladder rate every implementation was measured at "
			      "within its knee.");
	} else {
		sbuf_adds(&c, "No ladder rate has accepted windows of every implementation: cost and "
			      "memory are in the Rungs table only.");
	}
	rdoc_add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	if (isfinite(r->ref_rps)) {
		sbuf_adds(&h1, "CPU µs/request at ");
		report_fmt_rate(&h1, r->ref_rps);
		sbuf_adds(&h1, " req/s");
		sbuf_adds(&h2, "anon p99 (MiB) at ");
		report_fmt_rate(&h2, r->ref_rps);
		sbuf_adds(&h2, " req/s");
	} else {
		sbuf_adds(&h1, "CPU µs/request");
		sbuf_adds(&h2, "anon p99 (MiB)");
	}
	best = headline_best(r);
	t = rdoc_table(d, "summary", 6, "implementation", "knee", "interval", h1.buf, h2.buf, "windows");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];
		const struct report_rung *g = isfinite(r->ref_rps) ?
			report_ladder_rung(r, (int)i, r->ref_rps) : NULL;

		rdoc_cellf(t, "%s", im->name);
		if ((int)i == best)
			sbuf_adds(&c, RDOC_BEST);
		report_fmt_knee(&c, im);
		rdoc_cell(t, &c);
		short_ci(&c, r, im);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, g ? REPORT_CPU_US(g->cpu_ms_per_req) : NAN);
		rdoc_cell(t, &c);
		report_fmt_mib(&c, g ? g->anon_p99 : NAN);
		rdoc_cell(t, &c);
		rdoc_counts(&c, im->total, im->accepted, im->failed);
		rdoc_cell(t, &c);
	}
	sbuf_release(&h1);
	sbuf_release(&h2);
	sbuf_release(&c);
	quality(r, d);
	rdoc_receipts_paragraph(r, d);
}

static void chart(struct rdoc *d, size_t i)
{
	rdoc_add(d, RDOC_CHART, report_chart_title(i))->chart = i;
}

void report_doc_build(const struct report *r, struct rdoc *d)
{
	const char *stamp = report_stamp(r);
	struct sbuf c = SBUF_INIT;
	size_t i;

	memset(d, 0, sizeof(*d));
	rdoc_addf(d, RDOC_TITLE, "%s: run %s", rdoc_or_dash(r->spec_name), rdoc_or_dash(r->run_id));
	report_headline(r, &c);
	rdoc_add(d, RDOC_HEADLINE, c.buf);
	sbuf_release(&c);
	if (*stamp)
		rdoc_add(d, RDOC_STAMP, stamp);
	if (!r->spec_ok)
		rdoc_add(d, RDOC_STAMP, "The stored spec could not be parsed by this harness: the SLO is "
		    "unknown, so knees and the latency promise are omitted; intervals use 95% and "
		    "verdicts a 5% margin (the defaults).");
	/* Summary first, then charts, then tables, then provenance. */
	summary(r, d);
	rdoc_add(d, RDOC_H2, "Charts");
	for (i = 0; i < report_nchart(); i++)
		chart(d, i);
	rdoc_knees(r, d);
	rdoc_promise(r, d);
	rdoc_rungs(r, d);
	rdoc_memory(r, d);
	rdoc_signals(r, d);
	rdoc_requests(r, d);
	rdoc_ratios(r, d);
	rdoc_verdicts(r, d);
	rdoc_rejections(r, d);
	rdoc_cells_table(r, d);
	rdoc_receipts(r, d);
	rdoc_dependencies(r, d);
	rdoc_saturation(r, d);
	rdoc_footprint(r, d);
	rdoc_depstudy(r, d);
	rdoc_provenance(r, d);
	if (*stamp)
		rdoc_add(d, RDOC_STAMP, stamp);
}

