/*
 * compare_junit: the compare result as JUnit XML, a testcase per
 * implementation's verdict and per judged cell (pooled metric, rate x
 * metric, request), for CI's test reports. The caller owns out.
 */
#include "report/compare.h"
#include "report/compare_out.h"
#include "report/compare_pooled.h"
#include "report/headline.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

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
		  stat_method_text(m->method, paired), cmp_out_correction(corr), m->family);
	cmp_out_p(d, m, corr);
	sbuf_adds(d, "; MDE ");
	if (isfinite(m->mde)) {
		sbuf_addf(d, "%.4g%s", m->mde, unit);
		if (isfinite(m->mde_pct))
			sbuf_addf(d, " (%.1f%%)", m->mde_pct);
	} else {
		cmp_out_mde(d, m, 4);
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
