/*
 * compare_junit: the compare result as JUnit XML, a testcase per
 * implementation's verdict and per judged cell (pooled metric, rate x
 * metric, request), for CI's test reports: a document (report_doc.h)
 * written by rdoc_junit(), its suite's properties and testcases as
 * tables. The caller owns out.
 */
#include "report/compare.h"
#include "report/compare_out.h"
#include "report/compare_pooled.h"
#include "report/headline.h"
#include "report/report_doc.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

/* A testcase row: kind "failure" (regression), "error" (inconclusive),
 * "skipped" (advisory, or a cell without an answer) or NULL (passed);
 * the message "LABEL: DETAIL". */
static void junit_case(struct rdoc_block *t, const char *cls, const char *name, const char *kind,
		       const char *label, const char *detail)
{
	rdoc_push_cell(t, cls);
	rdoc_push_cell(t, name);
	rdoc_push_cell(t, kind ? kind : "passed");
	rdoc_push_cell(t, label);
	rdoc_cellf(t, "%s: %s", label, detail);
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

/* The cells of a judged implementation: per rate, the mix's latency and
 * CPU per request, then each request's own latency (compare.h): a request
 * with its own slo_ms is judged like the mix's cells; the others are
 * advisory ("skipped", whatever their verdict, as in the markdown). */
static void junit_cells(const struct compare *c, const struct cmp_impl *im, const char *cls,
			struct rdoc_block *t)
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
		junit_case(t, cls, name.buf, cell_kind(pm->verdict),
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
			junit_case(t, cls, name.buf, cell_kind(r->p99.verdict),
				   cmp_verdict_name(r->p99.verdict), d.buf);
		}
		if (c->metrics & CMP_CPU_PER_REQUEST) {
			sbuf_reset(&name);
			sbuf_addf(&name, "cpu_per_request at %g req/s", r->rate);
			cell_detail(&d, "CPU/request", &r->cpu, " µs", im->paired, c->correction);
			junit_case(t, cls, name.buf, cell_kind(r->cpu.verdict),
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
			junit_case(t, cls, name.buf, judged ? cell_kind(m->verdict) : "skipped",
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
	const char *props[] = { "base.run", c->base.id, "base.status", c->base.status,
				"base.failure", c->base.failure, "new.run", c->new_.id,
				"new.status", c->new_.status, "new.failure", c->new_.failure };
	struct rdoc_block *t;
	struct rdoc d;
	size_t i;

	memset(&d, 0, sizeof(d));
	rdoc_add(&d, RDOC_TITLE, "harness compare");
	rdoc_addf(&d, RDOC_H2, "%s -> %s", c->base.id, c->new_.id);
	t = rdoc_table(&d, "properties", 2, "property", "value");
	for (i = 0; i < sizeof(props) / sizeof(*props); i++)
		rdoc_push_cell(t, props[i]);
	rdoc_push_cell(t, "exit");
	rdoc_cellf(t, "%d", c->exit_code);
	rdoc_push_cell(t, "headline");
	compare_headline(c, &hdr);
	rdoc_cell(t, &hdr);
	t = rdoc_table(&d, "testcases", 5, "class", "name", "outcome", "type", "message");
	if (!c->judged)  /* nothing judged: itself an error (exit 3) */
		junit_case(t, "harness.compare", "judged implementations", "error", "inconclusive",
			   "no implementation is paired with an @base control; unpaired "
			   "comparisons are advisory (--impl NAME or --judge-unpaired)");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];

		sbuf_reset(&cls);
		sbuf_addf(&cls, "harness.compare.%s", im->name);
		sbuf_reset(&name);
		sbuf_addf(&name, "%s%s", im->judged ? "" : "advisory: ",
			  cmp_verdict_name(im->verdict));
		sbuf_reset(&hdr);
		sbuf_addf(&hdr, "%s (decided by: %s)", im->why,
			  im->decided_by ? im->decided_by : "-");
		junit_case(t, cls.buf, "verdict", impl_kind(im), name.buf, hdr.buf);
		junit_cells(c, im, cls.buf, t);
	}
	rdoc_junit(&d, o);
	rdoc_release(&d);
	sbuf_release(&cls);
	sbuf_release(&name);
	sbuf_release(&hdr);
}
