/*
 * report_svg: the chart kit (report_svg.h) the charts share. Each chart is
 * its own file, report_chart_*.c, listed in report_charts.c; this one
 * holds what they have in common and calls none of them.
 */
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ------------------------------------------------------------ numbers */

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
};

const char *svg_color(int i)
{
	return palette[(size_t)(i < 0 ? 0 : i) % ARRAY_SIZE(palette)];
}

/* v with at most `dec` decimals, trailing zeros dropped. */
static void fixed(struct sbuf *out, double v, int dec)
{
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.*f", dec, v);
	n = strlen(buf);
	if (strchr(buf, '.')) {
		while (n && buf[n - 1] == '0')
			buf[--n] = 0;
		if (n && buf[n - 1] == '.')
			buf[--n] = 0;
	}
	sbuf_adds(out, strcmp(buf, "-0") ? buf : "0");
}

void svg_num(struct sbuf *out, double v)
{
	double a = fabs(v);

	if (a >= 1e6) {
		fixed(out, v / 1e6, 3);
		sbuf_adds(out, "M");
	} else if (a >= 1000) {
		fixed(out, v / 1000, 3);
		sbuf_adds(out, "k");
	} else {
		fixed(out, v, 9);
	}
}

/* ------------------------------------------------------------ axes */

double svg_amap(const struct axis *a, double v)
{
	double f;

	if (a->log)
		f = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	return a->p0 + f * (a->p1 - a->p0);
}

int svg_in_axis(const struct axis *a, double v)
{
	return isfinite(v) && v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9) &&
	       (!a->log || v > 0);
}

size_t svg_ticks(const struct axis *a, double *t)
{
	size_t n = 0, k;

	if (a->tick_kind == 2)
		return 0;
	if (a->log) {
		/* 1, 2 and 5 per decade first, then 3, 4, 6 .. 9 where they keep
		 * 45 px from every tick already placed (a short axis still gets
		 * its ends labelled; a long one stays 1-2-5); sorted after. */
		static const double order[] = { 1, 2, 5, 3, 4, 6, 7, 8, 9 };
		size_t nm = a->tick_kind == 1 ? 1 : ARRAY_SIZE(order), j, q;
		double d;

		for (k = 0; k < nm; k++)
			for (d = pow(10, floor(log10(a->lo))); d <= a->hi && n < 16; d *= 10) {
				double v = d * order[k], x = svg_amap(a, v);
				int far = 1;

				if (!svg_in_axis(a, v))
					continue;
				for (j = 0; j < n && far; j++)
					far = k < 3 || fabs(svg_amap(a, t[j]) - x) >= 45;
				if (far)
					t[n++] = v;
			}
		for (j = 1; j < n; j++)
			for (q = j; q > 0 && t[q - 1] > t[q]; q--) {
				d = t[q];
				t[q] = t[q - 1];
				t[q - 1] = d;
			}
	} else {
		double raw = (a->hi - a->lo) / 5, mag, step, v;

		if (!(raw > 0))
			raw = 1;
		mag = pow(10, floor(log10(raw)));
		step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag :
			10 * mag;
		for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < 16; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : round(v / step) * step;
	}
	return n;
}

/* "0%", "90%", "99%", "99.9%" for 1/(1-p) = 1, 10, 100, 1000 */
static void pct_label(struct sbuf *out, double x)
{
	fixed(out, 100 * (1 - 1 / x), 6);
	sbuf_adds(out, "%");
}

static void tick_label(struct sbuf *out, const struct axis *a, double v)
{
	if (a->tick_kind == 1)
		pct_label(out, v);
	else
		svg_num(out, v);
}

void svg_rate_axis(const struct report *r, struct axis *a, double w)
{
	double lo = INFINITY, hi = 0;
	size_t i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < r->nrungs; i++) {
		double v = r->rungs[i].rate;

		if (v > 0 && v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	if (!(hi > 0)) {
		lo = 1;
		hi = 10;
	}
	a->log = hi / lo > 3;
	if (a->log) {
		a->lo = lo / 1.15;
		a->hi = hi * 1.15;
	} else {
		double pad = hi > lo ? (hi - lo) * 0.08 : lo * 0.5;

		a->lo = lo - pad > 0 ? lo - pad : 0;
		a->hi = hi + pad;
	}
	a->p0 = SVG_ML;
	a->p1 = w - SVG_MR;
}

void svg_value_axis(struct axis *a, double lo, double hi, double h)
{
	memset(a, 0, sizeof(*a));
	if (!(hi > 0))
		hi = 1;
	a->log = lo > 0 && hi / lo > 50;
	if (a->log) {
		a->lo = lo / 1.3;
		a->hi = hi * 1.3;
	} else {
		a->lo = 0;
		a->hi = hi * 1.1;
	}
	a->p0 = h - SVG_MB;
	a->p1 = SVG_MT;
}

void svg_linear_axis(struct axis *a, double hi, double h)
{
	svg_value_axis(a, 0, hi, h);
}

/* ------------------------------------------------------------ frame */

void svg_open(struct sbuf *out, const char *name, const char *title, double w, double h)
{
	sbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"%s\" "
		  "id=\"svg-%s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		  "preserveAspectRatio=\"xMinYMin meet\" role=\"img\" font-family=\"sans-serif\" "
		  "font-size=\"12\">\n", name, name, w, h, w, h);
	sbuf_addf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", w, h);
	sbuf_adds(out, "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">");
	sbuf_add_xml(out, title);
	sbuf_adds(out, "</text>\n");
}

void svg_frame(struct sbuf *out, const struct plot *p, const char *xlabel, const char *ylabel)
{
	double t[16];
	size_t n, i;

	sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
		  "stroke=\"#999\"/>\n", p->x.p0, p->y.p1, p->x.p1 - p->x.p0, p->y.p0 - p->y.p1);
	n = svg_ticks(&p->x, t);
	for (i = 0; i < n; i++) {
		double x = svg_amap(&p->x, t[i]);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\">",
			  x, p->y.p1, x, p->y.p0, x, p->y.p0 + 16);
		tick_label(out, &p->x, t[i]);
		sbuf_adds(out, "</text>\n");
	}
	n = svg_ticks(&p->y, t);
	for (i = 0; i < n; i++) {
		double y = svg_amap(&p->y, t[i]);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#444\">",
			  p->x.p0, y, p->x.p1, y, p->x.p0 - 6, y + 4);
		tick_label(out, &p->y, t[i]);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (p->x.p0 + p->x.p1) / 2,
		  p->y.p0 + 36);
	sbuf_add_xml(out, xlabel);
	sbuf_addf(out, "</text>\n<text transform=\"translate(16,%.1f) rotate(-90)\" "
		  "text-anchor=\"middle\">", (p->y.p0 + p->y.p1) / 2);
	sbuf_add_xml(out, ylabel);
	sbuf_adds(out, "</text>\n");
}

void svg_note(struct sbuf *out, const struct plot *p, const char *text)
{
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">",
		  (p->x.p0 + p->x.p1) / 2, (p->y.p0 + p->y.p1) / 2);
	sbuf_add_xml(out, text);
	sbuf_adds(out, "</text>\n");
}

void svg_slo_line(struct sbuf *out, const struct plot *p, const struct report *r,
		  const char *width)
{
	double y;

	if (!svg_in_axis(&p->y, r->slo_ms))
		return;
	y = svg_amap(&p->y, r->slo_ms);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		  "stroke-width=\"%s\" stroke-dasharray=\"6,4\"><title>SLO %s %g ms</title></line>\n",
		  p->x.p0, y, p->x.p1, y, SVG_SLO_COLOR, width, r->slo_label, r->slo_ms);
}

/* ------------------------------------------------------------ marks */

const char *const svg_wstatus_names[] = { "accepted", "failed", "rejected" };

enum wstatus svg_wstatus(const struct view_window *w)
{
	if (w->accepted)
		return WS_ACCEPTED;
	return !strcmp(w->status, "failed") ? WS_FAILED : WS_REJECTED;
}

void svg_open_mark(struct sbuf *out, const char *cls, enum wstatus st, double x, double y,
		   const char *col)
{
	switch (st) {
	case WS_ACCEPTED:
		sbuf_addf(out, "<circle class=\"%s\" data-status=\"accepted\" cx=\"%.1f\" cy=\"%.1f\" "
			  "r=\"3\" fill=\"%s\" fill-opacity=\"0.55\">", cls, x, y, col);
		break;
	case WS_FAILED:
		/* an X of two 2.4 px wide bars, 9 px across */
		sbuf_addf(out, "<path class=\"%s\" data-status=\"failed\" d=\"M%.1f %.1fl1.7 -1.7l2.8 2.8"
			  "l2.8 -2.8l1.7 1.7l-2.8 2.8l2.8 2.8l-1.7 1.7l-2.8 -2.8l-2.8 2.8l-1.7 -1.7l2.8 -2.8z\" "
			  "fill=\"%s\" stroke=\"#7a0000\" stroke-width=\"0.6\">", cls, x - 4.5, y - 2.8,
			  SVG_FAILED_COLOR);
		break;
	case WS_REJECTED:
		sbuf_addf(out, "<circle class=\"%s\" data-status=\"rejected\" cx=\"%.1f\" cy=\"%.1f\" "
			  "r=\"3.5\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\">", cls, x, y,
			  SVG_REJECTED_COLOR);
		break;
	}
}

void svg_close_mark(struct sbuf *out, enum wstatus st)
{
	sbuf_adds(out, st == WS_FAILED ? "</path>\n" : "</circle>\n");
}

double svg_legend_marks(struct sbuf *out, double x, double y)
{
	static const char *const what[] = {
		"accepted window",
		"failed (over SLO)",
		"rejected (void)",
	};
	int k;

	for (k = 0; k < 3; k++, y += 20) {
		svg_open_mark(out, "legend", (enum wstatus)k, x + 7, y + 6, "#777");
		sbuf_addf(out, "<title>%s window</title>", svg_wstatus_names[k]);
		svg_close_mark(out, (enum wstatus)k);
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 20, y + 10, what[k]);
	}
	return y;
}

double svg_legend_impls(struct sbuf *out, const struct report *r, const struct plot *p)
{
	double x = p->x.p1 + 14, y = p->y.p1 + 8;
	size_t i;

	for (i = 0; i < r->nimpls; i++, y += 20) {
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", x, y + 4, svg_color((int)i), x + 20, y + 9);
		sbuf_add_xml(out, r->impls[i].name);
		sbuf_adds(out, "</text>\n");
	}
	return y;
}
