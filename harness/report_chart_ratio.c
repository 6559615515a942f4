/*
 * report_chart_ratio: ratio, each implementation over the base (the
 * report's ratios: every implementation against the first one) at each
 * ladder rate, for the SLO percentile (solid) and CPU per request
 * (dashed), with intervals as whiskers. The intervals are conservative
 * quotients of each side's own interval: the percentile's from the merged
 * histograms' order-statistic intervals ([a.lo / b.hi, a.hi / b.lo]), the
 * CPU's from a t interval over each side's accepted windows' CPU per
 * request. A ratio above 1 means more than the base at that rate; a line
 * at 1 marks parity. Marks carry data-metric="pslo|cpu".
 */
#include "report.h"
#include "report_svg.h"

#include <math.h>
#include <string.h>

#include "util.h"

/* Mean and t interval (at r->level) of impl's accepted ladder windows'
 * CPU ms per request at rate; 0 when fewer than 2. */
static int cpu_interval(const struct report *r, int impl, double rate, double *lo, double *hi)
{
	double s = 0, ss = 0, m, sd, t;
	size_t i, n = 0;

	for (i = 0; i < r->nwindows; i++) {
		const struct report_window *w = &r->windows[i];

		if (w->impl_idx != impl || !w->accepted || strcmp(w->stage, "ladder") ||
		    fabs(w->rate - rate) > 1e-9 * rate || !isfinite(w->cpu_ms_per_req))
			continue;
		s += w->cpu_ms_per_req;
		ss += w->cpu_ms_per_req * w->cpu_ms_per_req;
		n++;
	}
	if (n < 2)
		return 0;
	m = s / (double)n;
	sd = sqrt(fmax(0, (ss - s * m) / (double)(n - 1)));
	t = stat_t_quantile(1 - (1 - r->level) / 2, (double)(n - 1));
	*lo = m - t * sd / sqrt((double)n);
	*hi = m + t * sd / sqrt((double)n);
	return 1;
}

/* The interval of q's metric (0 = pslo, 1 = cpu); 0 when none. */
static int ratio_interval(const struct report *r, const struct report_ratio *q, int metric,
			  double *lo, double *hi)
{
	const struct report_rung *a = report_ladder_rung(r, q->impl, q->rate);
	const struct report_rung *b = report_ladder_rung(r, q->base, q->rate);
	double alo, ahi, blo, bhi;

	if (!a || !b)
		return 0;
	if (metric == 0) {
		alo = a->pslo.lo_ms;
		ahi = a->pslo.hi_ms;
		blo = b->pslo.lo_ms;
		bhi = b->pslo.hi_ms;
	} else if (!cpu_interval(r, q->impl, q->rate, &alo, &ahi) ||
		   !cpu_interval(r, q->base, q->rate, &blo, &bhi)) {
		return 0;
	}
	if (!isfinite(alo) || !isfinite(ahi) || !(blo > 0) || !(bhi > 0) || alo < 0)
		return 0;
	*lo = alo / bhi;
	*hi = ahi / blo;
	return 1;
}

static double ratio_value(const struct report_ratio *q, int metric)
{
	return metric ? q->cpu : q->pslo;
}

/* The ratio axis (log): every ladder ratio, widened by the intervals up
 * to twice the values' range (a wide one is clipped, its whisker running
 * off the edge, rather than flattening every ratio against 1). Returns
 * whether any ratio exists. */
static int ratio_axis(const struct report *r, struct plot *p)
{
	double lo = 1, hi = 1, vlo, vhi, a, b;
	size_t i;
	int m, any = 0;

	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];
		double v;

		for (m = 0; m < 2 && !strcmp(q->stage, "ladder"); m++) {
			v = ratio_value(q, m);
			if (isfinite(v) && v > 0) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
				any = 1;
			}
		}
	}
	vlo = lo;
	vhi = hi;
	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];

		for (m = 0; m < 2 && !strcmp(q->stage, "ladder"); m++) {
			if (!ratio_interval(r, q, m, &a, &b))
				continue;
			if (a > 0)
				lo = fmin(lo, fmax(a, vlo / 2));
			hi = fmax(hi, fmin(b, vhi * 2));
		}
	}
	memset(&p->y, 0, sizeof(p->y));
	p->y.log = 1;
	p->y.lo = lo / 1.15;
	p->y.hi = hi * 1.15;
	p->y.p0 = p->h - SVG_MB;
	p->y.p1 = SVG_MT;
	return any;
}

void report_chart_ratio(const struct report *r, const char *title, struct sbuf *out)
{
	static const char *const mname[] = { "pslo", "cpu" };
	struct plot p = { .w = 760, .h = 360 };
	double a, b, y;
	size_t i, k;
	int m, any;

	svg_rate_axis(r, &p.x, p.w);
	any = ratio_axis(r, &p);
	svg_open(out, "ratio", title, p.w, p.h);
	svg_frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
		  "ratio to the base (log scale)");
	if (!any)
		svg_note(out, &p, r->nimpls < 2 ? "one implementation: no ratio" :
			 "no ladder rate with accepted windows of both");
	y = svg_amap(&p.y, 1);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
		  "stroke-width=\"1\"/>\n", p.x.p0, y, p.x.p1, y);
	for (k = 1; k < r->nimpls; k++) {
		for (m = 0; m < 2; m++) {
			struct sbuf d = SBUF_INIT;
			int pen = 0;

			for (i = 0; i < r->nratios; i++) {
				const struct report_ratio *q = &r->ratios[i];
				double v = ratio_value(q, m), x;

				if (q->impl != (int)k || strcmp(q->stage, "ladder") ||
				    !svg_in_axis(&p.x, q->rate))
					continue;
				if (!svg_in_axis(&p.y, v)) {
					pen = 0;
					continue;
				}
				x = svg_amap(&p.x, q->rate) + (m ? 3 : -3);
				sbuf_addf(&d, "%s%.1f %.1f", pen ? "L" : "M", x, svg_amap(&p.y, v));
				pen = 1;
				if (ratio_interval(r, q, m, &a, &b)) {
					double ya = svg_amap(&p.y, fmax(a, p.y.lo));
					double yb = svg_amap(&p.y, fmin(b, p.y.hi));

					sbuf_addf(out, "<path data-whisker=\"%s\" d=\"M%.1f %.1fV%.1f"
						  "M%.1f %.1fh6M%.1f %.1fh6\" stroke=\"%s\" "
						  "stroke-width=\"1.3\" fill=\"none\"/>\n", mname[m], x, ya,
						  yb, x - 3, ya, x - 3, yb, svg_color((int)k));
				}
				sbuf_addf(out, "<circle data-metric=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
					  "fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"><title>", mname[m],
					  x, svg_amap(&p.y, v), m ? "#fff" : svg_color((int)k),
					  svg_color((int)k));
				sbuf_add_xml(out, r->impls[q->impl].name);
				sbuf_adds(out, " / ");
				sbuf_add_xml(out, r->impls[q->base].name);
				sbuf_addf(out, " at %.0f req/s, %s: %.2f", q->rate,
					  m ? "CPU per request" : r->slo_label, v);
				if (ratio_interval(r, q, m, &a, &b))
					sbuf_addf(out, " [%.2f, %.2f]", a, b);
				sbuf_adds(out, "</title></circle>\n");
			}
			if (d.len)
				sbuf_addf(out, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
					  d.buf, svg_color((int)k), m ? " stroke-dasharray=\"6,3\"" : "");
			sbuf_release(&d);
		}
	}
	y = svg_legend_impls(out, r, &p);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
		  "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", p.x.p1 + 14, y + 6,
		  p.x.p1 + 28, y + 6, p.x.p1 + 34, y + 10);
	sbuf_add_xml(out, r->slo_label);
	sbuf_addf(out, " ratio</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		  "stroke=\"#555\" stroke-width=\"2\" stroke-dasharray=\"6,3\"/><text x=\"%.1f\" "
		  "y=\"%.1f\">CPU ratio</text>\n", p.x.p1 + 14, y + 26, p.x.p1 + 28, y + 26,
		  p.x.p1 + 34, y + 30);
	if (r->nimpls)
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">base: ", p.x.p1 + 14, y + 50);
	if (r->nimpls) {
		sbuf_add_xml(out, r->impls[0].name);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_adds(out, "</svg>\n");
}
