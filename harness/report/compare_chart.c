/*
 * compare_chart: the per-rung deltas of `harness compare` as one SVG
 * (data-chart="compare_deltas"), for the HTML page and, through
 * rsvg-convert, the PNG of a pull-request comment. On top, each
 * implementation's verdict in words (so the picture alone carries the
 * answer); below, one panel per compared metric: at each rate, NEW's
 * Hodges-Lehmann shift against BASE in percent of BASE's merged value,
 * with its interval as a whisker, the +-margin band shaded, each point
 * filled by its cell's verdict (red regression, green improvement, grey
 * no change, hollow inconclusive) and carrying data-verdict. The band is
 * each cell's effective margin (cmp_metric_margin_pct: the larger of
 * margin_pct and the metric's absolute floor, the margin its verdict
 * used), so it steps from rate to rate where the floor rules.
 */
#include "report/compare.h"
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

#define W 760.0
#define PANEL_H 250.0

static const char *verdict_fill(enum cmp_verdict v)
{
	switch (v) {
	case CMP_REGRESSION: return "#d62728";
	case CMP_IMPROVEMENT: return "#2ca02c";
	case CMP_NO_CHANGE: return "#9a9a9a";
	default: return "#fff";
	}
}

static const struct cmp_metric *metric_of(const struct cmp_rate *r, int m)
{
	return m ? &r->cpu : &r->p99;
}

/* The shift and its interval in percent of the base; 0 when unknown. */
static int rel(const struct cmp_metric *m, double *d, double *lo, double *hi)
{
	if (!(m->base > 0) || !isfinite(m->ci.mean))
		return 0;
	*d = 100 * m->ci.mean / m->base;
	*lo = isfinite(m->ci.lo) ? 100 * m->ci.lo / m->base : NAN;
	*hi = isfinite(m->ci.hi) ? 100 * m->ci.hi / m->base : NAN;
	return 1;
}

/* The cell's rate with a shift to plot: j's neighbours in the band. */
static int plotted(const struct cmp_rate *r, int m)
{
	double d, lo, hi;

	return r->has_cells && rel(metric_of(r, m), &d, &lo, &hi);
}

/*
 * Implementation i's margin band: at each plotted rate a rect of +- its
 * cell's effective margin, from halfway to the previous plotted rate to
 * halfway to the next (the plot's edges at the ends), carrying
 * data-margin-pct and data-rate.
 */
static void band(const struct compare *c, size_t i, int m, const struct plot *p,
		 struct sbuf *out)
{
	const struct cmp_impl *im = &c->impls[i];
	double prev = NAN, xl, xr, x, mp, y0, y1;
	size_t j, k;

	for (j = 0; j < im->nrates; j++) {
		const struct cmp_rate *r = &im->rates[j];

		mp = cmp_metric_margin_pct(metric_of(r, m));
		if (!plotted(r, m) || !isfinite(mp) || !svg_in_axis(&p->x, r->rate))
			continue;
		x = svg_amap(&p->x, r->rate);
		xl = isfinite(prev) ? (prev + x) / 2 : p->x.p0;
		xr = p->x.p1;
		for (k = j + 1; k < im->nrates; k++)
			if (plotted(&im->rates[k], m) && svg_in_axis(&p->x, im->rates[k].rate)) {
				xr = (x + svg_amap(&p->x, im->rates[k].rate)) / 2;
				break;
			}
		prev = x;
		y0 = svg_amap(&p->y, mp);
		y1 = svg_amap(&p->y, -mp);
		sbuf_addf(out, "<rect data-margin-pct=\"%.4g\" data-rate=\"%.0f\" x=\"%.1f\" "
			  "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2ca02c\" "
			  "fill-opacity=\"0.08\"><title>", mp, r->rate, xl, y0, xr - xl, y1 - y0);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, " at %.0f req/s: within the margin, +-%.1f%% (+-", r->rate, mp);
		report_fmt_sig(out, metric_of(r, m)->margin);
		sbuf_addf(out, "%s)</title></rect>\n", m ? " µs" : " ms");
	}
}

static void panel(const struct compare *c, int m, double top, struct sbuf *out)
{
	struct plot p;
	struct sbuf label = SBUF_INIT;
	double rlo = INFINITY, rhi = 0, ylo = -c->margin_pct * 1.5, yhi = c->margin_pct * 1.5;
	double d, lo, hi, mp;
	size_t i, j;

	for (i = 0; i < c->nimpls; i++)
		for (j = 0; j < c->impls[i].nrates; j++) {
			const struct cmp_rate *r = &c->impls[i].rates[j];

			if (!r->has_cells || !rel(metric_of(r, m), &d, &lo, &hi))
				continue;
			rlo = fmin(rlo, r->rate);
			rhi = fmax(rhi, r->rate);
			ylo = fmin(ylo, isfinite(lo) ? lo : d);
			yhi = fmax(yhi, isfinite(hi) ? hi : d);
			mp = cmp_metric_margin_pct(metric_of(r, m));
			if (isfinite(mp)) {
				ylo = fmin(ylo, -mp * 1.2);
				yhi = fmax(yhi, mp * 1.2);
			}
		}
	if (!isfinite(rlo)) {
		rlo = 1;
		rhi = 10;
	}
	memset(&p, 0, sizeof(p));
	p.w = W;
	p.h = top + PANEL_H;
	p.x.log = rhi / rlo > 3;
	p.x.lo = p.x.log ? rlo / 1.2 : fmax(0, rlo - (rhi > rlo ? (rhi - rlo) * 0.1 : rlo * 0.5));
	p.x.hi = p.x.log ? rhi * 1.2 : rhi + (rhi > rlo ? (rhi - rlo) * 0.1 : rlo * 0.5);
	p.x.p0 = SVG_ML;
	p.x.p1 = W - SVG_MR;
	p.y.lo = ylo - (yhi - ylo) * 0.08;
	p.y.hi = yhi + (yhi - ylo) * 0.08;
	p.y.p0 = top + PANEL_H - SVG_MB;
	p.y.p1 = top + 24;
	if (m)
		sbuf_adds(&label, "CPU per request: new vs base (%)");
	else
		sbuf_addf(&label, "p%g: new vs base (%%)", c->new_.slo_pct);
	sbuf_addf(out, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">", top + 14);
	sbuf_add_xml(out, label.buf);
	sbuf_adds(out, "</text>\n");
	svg_frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
		  "shift (% of base)");
	for (i = 0; i < c->nimpls; i++)
		band(c, i, m, &p, out);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n",
		  p.x.p0, svg_amap(&p.y, 0), p.x.p1, svg_amap(&p.y, 0));
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];
		const char *col = svg_color((int)i);
		struct sbuf line = SBUF_INIT;

		for (j = 0; j < im->nrates; j++) {
			const struct cmp_rate *r = &im->rates[j];
			const struct cmp_metric *mt = metric_of(r, m);
			double x, y;

			if (!r->has_cells || !rel(mt, &d, &lo, &hi) || !svg_in_axis(&p.x, r->rate))
				continue;
			x = svg_amap(&p.x, r->rate) + ((double)i - ((double)c->nimpls - 1) / 2) * 6;
			y = svg_amap(&p.y, d);
			sbuf_addf(&line, "%s%.1f %.1f", line.len ? "L" : "M", x, y);
			if (isfinite(lo) && isfinite(hi))
				sbuf_addf(out, "<path data-whisker=\"%zu\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8"
					  "M%.1f %.1fh8\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\"/>\n",
					  i, x, svg_amap(&p.y, lo), svg_amap(&p.y, hi), x - 4,
					  svg_amap(&p.y, lo), x - 4, svg_amap(&p.y, hi), col);
			sbuf_addf(out, "<circle data-verdict=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
				  "fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>",
				  cmp_verdict_name(mt->verdict), x, y, verdict_fill(mt->verdict), col);
			sbuf_add_xml(out, im->name);
			sbuf_addf(out, " at %.0f req/s: %+.1f%% ", r->rate, d);
			if (isfinite(lo) && isfinite(hi))
				sbuf_addf(out, "[%+.1f%%, %+.1f%%] (base ", lo, hi);
			else
				sbuf_adds(out, "(no interval: n too small; base ");
			report_fmt_sig(out, mt->base);
			sbuf_adds(out, ", new ");
			report_fmt_sig(out, mt->new_);
			sbuf_addf(out, "%s): %s</title></circle>\n", m ? " µs" : " ms",
				  cmp_verdict_name(mt->verdict));
		}
		if (line.len)
			sbuf_addf(out, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
				  "stroke-opacity=\"0.6\"/>\n", line.buf, col);
		sbuf_release(&line);
	}
	/* legend: the verdict fills */
	{
		static const enum cmp_verdict v[] = { CMP_REGRESSION, CMP_IMPROVEMENT, CMP_NO_CHANGE,
						      CMP_INCONCLUSIVE };
		double lx = p.x.p1 + 14, ly = p.y.p1 + 8;

		for (j = 0; j < ARRAY_SIZE(v); j++, ly += 20)
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
				  "stroke=\"#555\" stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%.1f\">"
				  "%s</text>\n", lx + 6, ly, verdict_fill(v[j]), lx + 18, ly + 4,
				  cmp_verdict_name(v[j]));
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"#2ca02c\" "
			  "fill-opacity=\"0.15\"/><text x=\"%.1f\" y=\"%.1f\">margin +-%g%%</text>\n"
			  "<text x=\"%.1f\" y=\"%.1f\">(floor %g %s)</text>\n",
			  lx, ly - 5, lx + 18, ly + 4, c->margin_pct, lx + 18, ly + 18,
			  m ? c->margin_cpu_us : c->margin_ms, m ? "µs" : "ms");
	}
	sbuf_release(&label);
}

void compare_chart(const struct compare *c, struct sbuf *out)
{
	double top = 36 + 20 * (double)c->nimpls + 8, h = top;
	int m, nm = 0;
	size_t i;

	for (m = 0; m < 2; m++)
		nm += (c->metrics & (m ? CMP_CPU_PER_REQUEST : CMP_P99)) != 0;
	h += PANEL_H * (nm ? nm : 1);
	sbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		  "data-chart=\"compare_deltas\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		  "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n"
		  "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n"
		  "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", W, h, W, h, W, h);
	sbuf_add_xml(out, c->base.id);
	sbuf_adds(out, " \xe2\x86\x92 ");
	sbuf_add_xml(out, c->new_.id);
	sbuf_addf(out, ": %s</text>\n", c->exit_code == 1 ? "REGRESSION" :
		  c->exit_code == 3 ? "inconclusive" : "no regression");
	for (i = 0; i < c->nimpls; i++) {
		const struct cmp_impl *im = &c->impls[i];

		sbuf_addf(out, "<g class=\"impl-verdict\" data-verdict=\"%s\"><rect x=\"8\" y=\"%.1f\" "
			  "width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"28\" y=\"%.1f\">",
			  cmp_verdict_name(im->verdict), 36 + 20 * (double)i + 2, svg_color((int)i),
			  36 + 20 * (double)i + 8);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, ": <tspan font-weight=\"bold\" fill=\"%s\">%s</tspan>%s",
			  im->verdict == CMP_REGRESSION ? "#a40000" : "#222",
			  cmp_verdict_name(im->verdict), im->judged ? "" : " (advisory)");
		if (im->decided_by)
			sbuf_addf(out, " (decided by: %s)", im->decided_by);
		sbuf_adds(out, "</text></g>\n");
	}
	for (m = 0; m < 2; m++) {
		if (!(c->metrics & (m ? CMP_CPU_PER_REQUEST : CMP_P99)))
			continue;
		panel(c, m, top, out);
		top += PANEL_H;
	}
	sbuf_adds(out, "</svg>\n");
}
