/*
 * report_chart_ratio: ratio, the report's ratios (report_ratio.c: the
 * pairs chosen with report --ratios, by default every implementation over
 * the first), one series per pair, at each ladder rate, for the SLO
 * percentile (solid) and CPU per request (dashed), with intervals as
 * whiskers (conservative quotients of each side's own interval). A ratio above 1 means more than
 * the base at that rate; a line at 1 marks parity. Marks carry
 * data-metric="pslo|cpu", whiskers data-whisker="pslo|cpu".
 */
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The interval of q's metric (0 = pslo, 1 = cpu; report_ratio.c); 0 when
 * none. */
static int ratio_interval(const struct report_ratio *q, int metric, double *lo, double *hi)
{
	*lo = metric ? q->cpu_lo : q->pslo_lo;
	*hi = metric ? q->cpu_hi : q->pslo_hi;
	return isfinite(*lo) && isfinite(*hi);
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
			if (!ratio_interval(q, m, &a, &b))
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

/* The ladder ratios of impl / base for metric m (0 = pslo, 1 = cpu): a
 * line (broken where a rate has none on the axis), points, whiskers. */
static void draw_series(const struct report *r, const struct plot *p, int impl, int base,
			int m, const char *col, struct sbuf *out)
{
	static const char *const mname[] = { "pslo", "cpu" };
	struct sbuf d = SBUF_INIT;
	double a, b;
	size_t i;
	int pen = 0;

	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];
		double v = ratio_value(q, m), x;

		if (q->impl != impl || q->base != base || strcmp(q->stage, "ladder") ||
		    !svg_in_axis(&p->x, q->rate))
			continue;
		if (!svg_in_axis(&p->y, v)) {
			pen = 0;
			continue;
		}
		x = svg_amap(&p->x, q->rate) + (m ? 3 : -3);
		sbuf_addf(&d, "%s%.1f %.1f", pen ? "L" : "M", x, svg_amap(&p->y, v));
		pen = 1;
		if (ratio_interval(q, m, &a, &b)) {
			double ya = svg_amap(&p->y, fmax(a, p->y.lo));
			double yb = svg_amap(&p->y, fmin(b, p->y.hi));

			sbuf_addf(out, "<path data-whisker=\"%s\" d=\"M%.1f %.1fV%.1f"
				  "M%.1f %.1fh6M%.1f %.1fh6\" stroke=\"%s\" "
				  "stroke-width=\"1.3\" fill=\"none\"/>\n", mname[m], x, ya,
				  yb, x - 3, ya, x - 3, yb, col);
		}
		sbuf_addf(out, "<circle data-metric=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			  "fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"><title>", mname[m],
			  x, svg_amap(&p->y, v), m ? "#fff" : col, col);
		sbuf_add_xml(out, r->impls[q->impl].name);
		sbuf_adds(out, " / ");
		sbuf_add_xml(out, r->impls[q->base].name);
		sbuf_addf(out, " at %.0f req/s, %s: %.2f", q->rate,
			  m ? "CPU per request" : r->slo_label, v);
		if (ratio_interval(q, m, &a, &b))
			sbuf_addf(out, " [%.2f, %.2f]", a, b);
		sbuf_adds(out, "</title></circle>\n");
	}
	if (d.len)
		sbuf_addf(out, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
			  d.buf, col, m ? " stroke-dasharray=\"6,3\"" : "");
	sbuf_release(&d);
}

void report_chart_ratio(const struct report *r, const char *title, struct sbuf *out)
{
	struct plot p = { .w = 760, .h = 360 };
	double y;
	size_t i, k, np = 0;
	int m, any, *pair;

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
	/* one series per pair, in the ratios' order; the numerator's colour
	 * unless it is the numerator of several pairs */
	pair = xcalloc(2 * r->nratios + 2, sizeof(*pair));
	for (i = 0; i < r->nratios; i++) {
		for (k = 0; k < np; k++)
			if (pair[2 * k] == r->ratios[i].impl && pair[2 * k + 1] == r->ratios[i].base)
				break;
		if (k == np) {
			pair[2 * np] = r->ratios[i].impl;
			pair[2 * np + 1] = r->ratios[i].base;
			np++;
		}
	}
	y = p.y.p1 + 8;
	for (k = 0; k < np; k++, y += 20) {
		size_t j, same = 0;
		const char *col;

		for (j = 0; j < np; j++)
			same += pair[2 * j] == pair[2 * k];
		col = svg_color(same > 1 ? (int)(r->nimpls + k) : pair[2 * k]);
		for (m = 0; m < 2; m++)
			draw_series(r, &p, pair[2 * k], pair[2 * k + 1], m, col, out);
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", p.x.p1 + 14, y + 4, col, p.x.p1 + 20, y + 9);
		sbuf_add_xml(out, r->impls[pair[2 * k]].name);
		sbuf_adds(out, " / ");
		sbuf_add_xml(out, r->impls[pair[2 * k + 1]].name);
		sbuf_adds(out, "</text>\n");
	}
	free(pair);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
		  "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", p.x.p1 + 14, y + 6,
		  p.x.p1 + 28, y + 6, p.x.p1 + 34, y + 10);
	sbuf_add_xml(out, r->slo_label);
	sbuf_addf(out, " ratio</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		  "stroke=\"#555\" stroke-width=\"2\" stroke-dasharray=\"6,3\"/><text x=\"%.1f\" "
		  "y=\"%.1f\">CPU ratio</text>\n", p.x.p1 + 14, y + 26, p.x.p1 + 28, y + 26,
		  p.x.p1 + 34, y + 30);
	sbuf_adds(out, "</svg>\n");
}
