/*
 * report_chart_spectrum: percentile_spectrum, latency vs percentile on a
 * 1/(1-p) axis (HdrHistogram's percentile plot: 0%, 90%, 99%, 99.9% equally
 * spaced), one line per implementation from the MERGED histogram of its
 * accepted ladder windows at one rung: the one `harness report
 * --spectrum-rate` chose, else the summary's reference rate
 * (report_rollup.c), else the lowest ladder rate. The line stops at the
 * percentile its request count can resolve (1/(1-p) <= requests). The SLO
 * is a horizontal line, its percentile a vertical one.
 */
#include "base/rate.h"
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define NPTS 160

static int has_ladder_rung(const struct report *r, double rate)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (!strcmp(r->rungs[i].stage, "ladder") && r->rungs[i].accepted &&
		    rate_same(r->rungs[i].rate, rate))
			return 1;
	return 0;
}

int report_spectrum_choose(struct report *r, double rate)
{
	struct sbuf have = SBUF_INIT;
	double last = -1;
	size_t j;

	if (isfinite(rate) && rate > 0 && has_ladder_rung(r, rate)) {
		r->spectrum_rps = rate;
		return 0;
	}
	for (;;) {      /* the ladder rates with accepted windows, ascending */
		double next = INFINITY;

		for (j = 0; j < r->nrungs; j++)
			if (!strcmp(r->rungs[j].stage, "ladder") && r->rungs[j].accepted &&
			    r->rungs[j].rate > last && r->rungs[j].rate < next)
				next = r->rungs[j].rate;
		if (!isfinite(next))
			break;
		if (have.len)
			sbuf_adds(&have, ", ");
		report_fmt_rate(&have, next);
		last = next;
	}
	error("report: --spectrum-rate %g: no accepted ladder window at that rate "
	      "(ladder rungs with accepted windows: %s)", rate, have.len ? have.buf : "none");
	sbuf_release(&have);
	return -1;
}

/* The rung drawn: the chosen one, the reference rate, else the lowest
 * ladder rate. */
double report_spectrum_rate(const struct report *r)
{
	double lo = INFINITY;
	size_t i;

	if (isfinite(r->spectrum_rps))
		return r->spectrum_rps;
	if (isfinite(r->ref_rps))
		return r->ref_rps;
	for (i = 0; i < r->nrungs; i++)
		if (!strcmp(r->rungs[i].stage, "ladder") && r->rungs[i].accepted &&
		    r->rungs[i].rate < lo)
			lo = r->rungs[i].rate;
	return lo;
}

/* Merge impl k's accepted ladder windows at rate into h (initialised). */
static void merged(const struct report *r, int k, double rate, struct hist *h)
{
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (w->impl_idx == k && w->accepted && w->has_hist && !strcmp(w->stage, "ladder") &&
		    rate_same(w->rate, rate))
			hist_merge(h, &w->lat);
	}
}

void report_chart_spectrum(const struct report *r, const char *title, struct sbuf *out)
{
	struct plot p = { .w = 760, .h = 380 };
	double rate = report_spectrum_rate(r), xmax = 10, lo = INFINITY, hi = 0;
	struct hist *h = xcalloc(r->nimpls ? r->nimpls : 1, sizeof(*h));
	struct sbuf head = SBUF_INIT;
	size_t k;
	int j;

	for (k = 0; k < r->nimpls; k++) {
		hist_init(&h[k]);
		if (isfinite(rate))
			merged(r, (int)k, rate, &h[k]);
		if (!h[k].total)
			continue;
		if ((double)h[k].total > xmax)
			xmax = (double)h[k].total;
		if (hist_percentile_ms(&h[k], 0) > 0 && hist_percentile_ms(&h[k], 0) < lo)
			lo = hist_percentile_ms(&h[k], 0);
		if (hist_percentile_ms(&h[k], 100) > hi)
			hi = hist_percentile_ms(&h[k], 100);
	}
	if (xmax > 1e6)
		xmax = 1e6;
	xmax = pow(10, ceil(log10(xmax)));
	if (isfinite(r->slo_ms) && r->slo_ms > hi)
		hi = r->slo_ms;
	memset(&p.x, 0, sizeof(p.x));
	p.x.log = 1;
	p.x.tick_kind = 1;
	p.x.lo = 1;
	p.x.hi = xmax;
	p.x.p0 = SVG_ML;
	p.x.p1 = p.w - SVG_MR;
	svg_value_axis(&p.y, isfinite(lo) ? lo : 0, hi, p.h);
	sbuf_adds(&head, title);
	if (isfinite(rate)) {
		sbuf_adds(&head, " at ");
		svg_num(&head, rate);
		sbuf_adds(&head, " req/s (ladder, merged accepted windows)");
	}
	svg_open(out, "percentile_spectrum", head.buf, p.w, p.h);
	svg_frame(out, &p, "percentile (1/(1-p) scale)",
		  p.y.log ? "latency (ms, log scale)" : "latency (ms)");
	if (!(hi > 0))
		svg_note(out, &p, "no accepted ladder window with a histogram");
	svg_slo_line(out, &p, r, "2");
	if (r->slo_pct > 0 && r->slo_pct < 100) {
		double x = svg_amap(&p.x, 1 / (1 - r->slo_pct / 100));

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-width=\"1\" stroke-dasharray=\"2,3\"/>\n", x, p.y.p1, x, p.y.p0,
			  SVG_SLO_COLOR);
	}
	for (k = 0; k < r->nimpls; k++) {
		int first = 1;

		if (!h[k].total)
			continue;
		sbuf_addf(out, "<polyline data-impl=\"%zu\" fill=\"none\" stroke=\"%s\" "
			  "stroke-width=\"2\" points=\"", k, svg_color((int)k));
		for (j = 0; j <= NPTS; j++) {
			double x = pow(xmax, (double)j / NPTS), pc = 100 * (1 - 1 / x);
			double v = hist_percentile_ms(&h[k], pc);

			if (x > (double)h[k].total || !svg_in_axis(&p.y, v))
				continue;
			sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ", svg_amap(&p.x, x),
				  svg_amap(&p.y, v));
			first = 0;
		}
		sbuf_adds(out, "\"><title>");
		sbuf_add_xml(out, r->impls[k].name);
		sbuf_addf(out, ": %llu requests; p50 ", (unsigned long long)h[k].total);
		report_fmt_sig(out, hist_percentile_ms(&h[k], 50));
		sbuf_adds(out, " ms, p99 ");
		report_fmt_sig(out, hist_percentile_ms(&h[k], 99));
		sbuf_adds(out, " ms, p99.9 ");
		report_fmt_sig(out, hist_percentile_ms(&h[k], 99.9));
		sbuf_adds(out, " ms, max ");
		report_fmt_sig(out, hist_percentile_ms(&h[k], 100));
		sbuf_adds(out, " ms</title></polyline>\n");
	}
	svg_legend_impls(out, r, &p);
	sbuf_adds(out, "</svg>\n");
	for (k = 0; k < r->nimpls; k++)
		hist_release(&h[k]);
	free(h);
	sbuf_release(&head);
}
