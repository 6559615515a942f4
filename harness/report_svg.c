/*
 * report_svg: the charts of report.html, each one inline <svg> with no
 * script and no external resource. Hover details use SVG <title>
 * elements, which every browser shows as a tooltip.
 *
 *   0 latency: SLO percentile vs offered rate per implementation (accepted
 *     windows as dots in the implementation's colour, failed windows as
 *     red crosses, rejected windows as hollow grey rings; rung means joined
 *     by the isotonic fit, the SLO line; each knee drawn by its kind: a
 *     point as a dashed line, a bracket (lo, hi] as a hatched band, a
 *     floor ">= X" as an arrow pointing right from X, never as a line; the
 *     knee's interval as a pale band)
 *   1 CPU milliseconds per request vs rate
 *   2 anon memory p99 vs rate
 *   3 failed and rejected windows per gate per implementation
 *   4 per-second p99 of every window, a small multiple (cell colour and
 *     border by status)
 *
 * Every window mark carries data-status="accepted|failed|rejected" and
 * every knee mark data-knee="point|bracket|floor|interval", so tests (and
 * readers of the SVG) can tell them apart without reading colours.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
};
#define SLO_COLOR "#d62728"
#define FAILED_COLOR "#d62728"     /* failed windows: filled red cross */
#define REJECTED_COLOR "#8a8a8a"   /* rejected windows: hollow grey ring */

static const char *color(int i)
{
	return palette[(size_t)(i < 0 ? 0 : i) % ARRAY_SIZE(palette)];
}

static const char *const titles[] = {
	"Tail latency vs offered rate",
	"CPU per request vs offered rate",
	"Memory (anon p99) vs offered rate",
	"Failed and rejected windows per gate",
	"Per-second p99 of every window",
};

size_t report_nchart(void)
{
	return ARRAY_SIZE(titles);
}

const char *report_chart_title(size_t i)
{
	return i < ARRAY_SIZE(titles) ? titles[i] : "";
}

/* ------------------------------------------------------------ primitives */

struct axis {
	double lo, hi;   /* data range */
	int log;
	double p0, p1;   /* pixel range */
	double at[10];   /* explicit ticks (the rung rates) when nat > 0 */
	size_t nat;
};

static double amap(const struct axis *a, double v)
{
	double f;

	if (a->log)
		f = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	return a->p0 + f * (a->p1 - a->p0);
}

/* Up to 16 tick values: 1-2-5 steps (log: 1, 2, 5 per decade). */
static size_t ticks(const struct axis *a, double *t)
{
	size_t n = 0;

	if (a->nat) {
		for (n = 0; n < a->nat && n < 16; n++)
			t[n] = a->at[n];
		return n;
	}
	if (a->log) {
		double d = pow(10, floor(log10(a->lo)));
		static const double mult[] = { 1, 2, 5 };
		size_t k;

		for (; d <= a->hi && n < 16; d *= 10)
			for (k = 0; k < 3 && n < 16; k++)
				if (d * mult[k] >= a->lo && d * mult[k] <= a->hi)
					t[n++] = d * mult[k];
	} else {
		double raw = (a->hi - a->lo) / 5, mag = pow(10, floor(log10(raw))), step, v;

		step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
		for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < 16; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

static void tick_label(struct sbuf *out, double v)
{
	if (fabs(v) >= 10000 && fmod(v, 1000) == 0)
		sbuf_addf(out, "%gk", v / 1000);
	else
		sbuf_addf(out, "%g", v);
}

struct plot {
	struct axis x, y;
	double w, h;
};

#define ML 64.0
#define MR 150.0
#define MT 36.0
#define MB 48.0

static void svg_open(struct sbuf *out, size_t idx, double w, double h)
{
	sbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"svg-%zu\" "
		  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		  "font-family=\"sans-serif\" font-size=\"12\">\n", idx, w, h, w, h);
	sbuf_addf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", w, h);
	sbuf_adds(out, "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">");
	sbuf_add_xml(out, titles[idx]);
	sbuf_adds(out, "</text>\n");
}

static void frame(struct sbuf *out, const struct plot *p, const char *xlabel, const char *ylabel)
{
	double t[16];
	size_t n, i;

	sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
		  "stroke=\"#999\"/>\n", p->x.p0, p->y.p1, p->x.p1 - p->x.p0, p->y.p0 - p->y.p1);
	n = ticks(&p->x, t);
	for (i = 0; i < n; i++) {
		double x = amap(&p->x, t[i]);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\">",
			  x, p->y.p1, x, p->y.p0, x, p->y.p0 + 16);
		tick_label(out, t[i]);
		sbuf_adds(out, "</text>\n");
	}
	n = ticks(&p->y, t);
	for (i = 0; i < n; i++) {
		double y = amap(&p->y, t[i]);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#444\">",
			  p->x.p0, y, p->x.p1, y, p->x.p0 - 6, y + 4);
		tick_label(out, t[i]);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (p->x.p0 + p->x.p1) / 2,
		  p->h - 10);
	sbuf_add_xml(out, xlabel);
	sbuf_addf(out, "</text>\n<text transform=\"translate(16,%.1f) rotate(-90)\" "
		  "text-anchor=\"middle\">", (p->y.p0 + p->y.p1) / 2);
	sbuf_add_xml(out, ylabel);
	sbuf_adds(out, "</text>\n");
}

/* ------------------------------------------------------------ marks */

enum wstatus { WS_ACCEPTED, WS_FAILED, WS_REJECTED };

static enum wstatus wstatus(const struct report_window *w)
{
	if (w->accepted)
		return WS_ACCEPTED;
	return !strcmp(w->status, "failed") ? WS_FAILED : WS_REJECTED;
}

static const char *const wstatus_names[] = { "accepted", "failed", "rejected" };

/* Open a window's mark at (x, y); the caller writes its <title> and closes
 * it with close_mark(). accepted: a dot in the implementation's colour;
 * failed: a filled red cross; rejected: a hollow grey ring. */
static void open_mark(struct sbuf *out, const char *cls, enum wstatus st, double x, double y,
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
			  FAILED_COLOR);
		break;
	case WS_REJECTED:
		sbuf_addf(out, "<circle class=\"%s\" data-status=\"rejected\" cx=\"%.1f\" cy=\"%.1f\" "
			  "r=\"3.5\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\">", cls, x, y,
			  REJECTED_COLOR);
		break;
	}
}

static void close_mark(struct sbuf *out, enum wstatus st)
{
	sbuf_adds(out, st == WS_FAILED ? "</path>\n" : "</circle>\n");
}

/* The legend rows of the three window marks, from y; returns the next y. */
static double legend_marks(struct sbuf *out, double x, double y)
{
	static const char *const what[] = {
		"accepted window",
		"failed (over SLO)",
		"rejected (void)",
	};
	int k;

	for (k = 0; k < 3; k++, y += 20) {
		open_mark(out, "legend", (enum wstatus)k, x + 7, y + 6, "#777");
		sbuf_addf(out, "<title>%s window</title>", wstatus_names[k]);
		close_mark(out, (enum wstatus)k);
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 20, y + 10, what[k]);
	}
	return y;
}

/*
 * An implementation's knee as drawn: a point (a dashed line at x), a
 * bracket (the band (lo, hi]: the SLO crossed between lo and hi because
 * windows failed; lo NAN when the first rung already crossed), a floor
 * (">= x": held at every valid rung up to x), or none.
 */
enum knee_shape { SHAPE_NONE, SHAPE_POINT, SHAPE_BRACKET, SHAPE_FLOOR };

static enum knee_shape knee_shape(const struct report_impl *im, double *x, double *lo, double *hi)
{
	*x = *lo = *hi = NAN;
	if (!im->has_knee)
		return SHAPE_NONE;
	switch (im->kres.kind) {
	case KNEE_POINT:
		*x = im->kres.knee_rps;
		return SHAPE_POINT;
	case KNEE_BRACKET:
		*lo = im->kres.lo_rps;
		*hi = im->kres.hi_rps;
		*x = *hi;
		return SHAPE_BRACKET;
	case KNEE_FLOOR:
		*x = im->kres.highest_rung_rps;
		return SHAPE_FLOOR;
	case KNEE_NONE:
		break;
	}
	return SHAPE_NONE;
}

static void legend(struct sbuf *out, const struct report *r, const struct plot *p, int slo)
{
	double x = p->x.p1 + 14, y = p->y.p1 + 8;
	size_t i;

	for (i = 0; i < r->nimpls; i++, y += 20) {
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", x, y + 4, color((int)i), x + 20, y + 9);
		sbuf_add_xml(out, r->impls[i].name);
		sbuf_adds(out, "</text>\n");
	}
	if (slo && isfinite(r->slo_ms)) {
		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-dasharray=\"5,3\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">"
			  "SLO %g ms</text>\n", x, y + 6, x + 14, y + 6, SLO_COLOR, x + 20, y + 10, r->slo_ms);
		y += 20;
	}
	if (slo) {
		y = legend_marks(out, x, y);
		sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" stroke=\"#777\" "
			  "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">rung, merged</text>\n",
			  x + 7, y + 6, x + 20, y + 10);
		y += 20;
		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#777\" "
			  "stroke-width=\"1.5\" stroke-dasharray=\"2,3\"/><text x=\"%.1f\" y=\"%.1f\">"
			  "knee</text>\n", x + 7, y, x + 7, y + 12, x + 20, y + 10);
		y += 20;
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
			  "fill=\"url(#hatch-legend)\" stroke=\"#777\" stroke-width=\"0.8\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">knee in (lo, hi]</text>\n", x, y, x + 20, y + 10);
		y += 20;
		sbuf_addf(out, "<path d=\"M%.1f %.1fh12m-4 -4l4 4l-4 4\" fill=\"none\" stroke=\"#777\" "
			  "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">held: knee &gt;= X</text>\n",
			  x, y + 6, x + 20, y + 10);
		y += 20;
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"#777\" "
			  "fill-opacity=\"0.15\"/><text x=\"%.1f\" y=\"%.1f\">knee interval</text>\n",
			  x, y + 1, x + 20, y + 10);
	}
}

/* The x axis over every rate present (log when the rates span > 3x);
 * ticks at the rates themselves when there are at most 10 of them. */
static void rate_axis(const struct report *r, struct axis *a, double w)
{
	double lo = INFINITY, hi = 0;
	size_t i, k, n = 0;
	int many = 0;

	for (i = 0; i < r->nrungs; i++) {
		double v = r->rungs[i].rate;

		if (v > 0 && v < lo)
			lo = v;
		if (v > hi)
			hi = v;
		for (k = 0; k < n && fabs(a->at[k] - v) > 1e-9 * v; k++)
			;
		if (k == n && !many) {
			if (n == ARRAY_SIZE(a->at))
				many = 1;
			else
				a->at[n++] = v;
		}
	}
	for (i = 1; i < n; i++)   /* insertion sort: the rungs are sorted per impl only */
		for (k = i; k > 0 && a->at[k - 1] > a->at[k]; k--) {
			double t = a->at[k];

			a->at[k] = a->at[k - 1];
			a->at[k - 1] = t;
		}
	a->nat = many ? 0 : n;
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
	a->p0 = ML;
	a->p1 = w - MR;
}

static void value_axis(struct axis *a, double lo, double hi, double h)
{
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
	a->p0 = h - MB;
	a->p1 = MT;
}

static int in_axis(const struct axis *a, double v)
{
	return isfinite(v) && v >= a->lo && v <= a->hi && (!a->log || v > 0);
}

/* ------------------------------------------------------------ chart 0 */

static void hatch(struct sbuf *out, const char *id, const char *col)
{
	sbuf_addf(out, "<pattern id=\"hatch-%s\" width=\"6\" height=\"6\" "
		  "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		  "<rect width=\"6\" height=\"6\" fill=\"%s\" fill-opacity=\"0.10\"/>"
		  "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"%s\" "
		  "stroke-width=\"2\" stroke-opacity=\"0.5\"/></pattern>\n", id, col, col);
}

/* Hatching for bracket bands, one pattern per implementation colour (and
 * a grey one for the legend). */
static void hatch_defs(const struct report *r, struct sbuf *out)
{
	struct sbuf id = SBUF_INIT;
	size_t k;

	sbuf_adds(out, "<defs>\n");
	for (k = 0; k < r->nimpls; k++) {
		sbuf_reset(&id);
		sbuf_addf(&id, "%zu", k);
		hatch(out, id.buf, color((int)k));
	}
	hatch(out, "legend", "#777");
	sbuf_adds(out, "</defs>\n");
	sbuf_release(&id);
}

/* The knee label of implementation k, at its own height near the top. */
static void knee_label(const struct plot *p, int k, double x, const char *col, struct sbuf *out)
{
	int right = x > (p->x.p0 + p->x.p1) / 2;

	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" text-anchor=\"%s\" "
		  "font-weight=\"bold\">", x + (right ? -4 : 4), p->y.p1 + 14 + 14 * (double)k, col,
		  right ? "end" : "start");
}

/* "in (1350, 2025]", or "<= 1350" when the first rung already crossed. */
static void bracket_text(struct sbuf *out, double lo, double hi)
{
	if (isnan(lo)) {
		sbuf_adds(out, "&lt;= ");
	} else {
		sbuf_adds(out, "in (");
		report_fmt_rate(out, lo);
		sbuf_adds(out, ", ");
	}
	report_fmt_rate(out, hi);
	if (!isnan(lo))
		sbuf_adds(out, "]");
}

/* A point: a dashed line at the knee. A bracket: a hatched band over
 * (lo, hi]. A floor: an arrow from X to the right edge, "held >= X". */
static void draw_knee(const struct report *r, const struct plot *p, int k, struct sbuf *out)
{
	const struct report_impl *im = &r->impls[k];
	double kx, lo, hi, x, a, b, ty = p->y.p1 + 14 + 14 * (double)k;
	const char *col = color(k);

	switch (knee_shape(im, &kx, &lo, &hi)) {
	case SHAPE_NONE:
		return;
	case SHAPE_POINT:
		if (!in_axis(&p->x, kx))
			return;
		x = amap(&p->x, kx);
		sbuf_addf(out, "<line data-knee=\"point\" data-impl=\"%d\" x1=\"%.1f\" y1=\"%.1f\" "
			  "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
			  "stroke-dasharray=\"2,3\"/>\n", k, x, p->y.p1, x, p->y.p0, col);
		knee_label(p, k, x, col, out);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, " knee %s%.0f", im->knee.at_first_rung ? "&lt;= " : "", kx);
		break;
	case SHAPE_BRACKET:
		a = in_axis(&p->x, lo) ? amap(&p->x, lo) : p->x.p0;
		b = in_axis(&p->x, hi) ? amap(&p->x, hi) : p->x.p1;
		sbuf_addf(out, "<rect data-knee=\"bracket\" data-impl=\"%d\" x=\"%.1f\" y=\"%.1f\" "
			  "width=\"%.1f\" height=\"%.1f\" fill=\"url(#hatch-%d)\" stroke=\"%s\" "
			  "stroke-width=\"1\" stroke-dasharray=\"4,2\"><title>", k, a, p->y.p1,
			  b - a > 2 ? b - a : 2, p->y.p0 - p->y.p1, k, col);
		sbuf_add_xml(out, im->name);
		sbuf_adds(out, ": knee ");
		bracket_text(out, lo, hi);
		sbuf_adds(out, " req/s: ");
		sbuf_add_xml(out, im->kres.reason);
		sbuf_adds(out, "</title></rect>\n");
		knee_label(p, k, b, col, out);
		sbuf_add_xml(out, im->name);
		sbuf_adds(out, " knee ");
		bracket_text(out, lo, hi);
		break;
	case SHAPE_FLOOR:
		if (!in_axis(&p->x, kx))
			return;
		x = amap(&p->x, kx);
		sbuf_addf(out, "<path data-knee=\"floor\" data-impl=\"%d\" d=\"M%.1f %.1fH%.1fm-7 -5l7 5"
			  "l-7 5M%.1f %.1fv10\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>",
			  k, x, ty + 4, p->x.p1 - 2, x, ty - 1, col);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, ": held the SLO at every valid rung up to %.0f req/s; its knee is "
			  "higher, not measured</title></path>\n", kx);
		knee_label(p, k, x, col, out);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, " >= %.0f (held)", kx);
		break;
	}
	sbuf_adds(out, "</text>\n");
}

/* Knee intervals under everything else. */
static void draw_knee_intervals(const struct report *r, const struct plot *p, struct sbuf *out)
{
	size_t k;

	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];
		double a, b;

		if (!im->has_knee_ci || !in_axis(&p->x, im->knee_ci.lo) || !in_axis(&p->x, im->knee_ci.hi))
			continue;
		a = amap(&p->x, im->knee_ci.lo);
		b = amap(&p->x, im->knee_ci.hi);
		sbuf_addf(out, "<rect data-knee=\"interval\" data-impl=\"%zu\" x=\"%.1f\" y=\"%.1f\" "
			  "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.12\"><title>",
			  k, a, p->y.p1, b - a > 1 ? b - a : 1, p->y.p0 - p->y.p1, color((int)k));
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, ": knee interval %.0f..%.0f req/s (%s)</title></rect>\n",
			  im->knee_ci.lo, im->knee_ci.hi,
			  im->knee_ci.inferential ? "inferential" : "non-inferential");
	}
}

/* Ladder rung means joined by the isotonic fit, and the knee. The fit
 * is interpolated linearly in rate and milliseconds, as the knee is,
 * and drawn in small steps so that on log axes it still crosses the
 * SLO line exactly at the knee. */
static void draw_fits(const struct report *r, const struct plot *p, struct sbuf *out)
{
	size_t i, k;

	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];
		const struct report_rung *prev = NULL;
		int first = 1;

		sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"",
			  color((int)k));
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];
			int step, nstep = prev ? 24 : 1;

			if (g->impl != (int)k || strcmp(g->stage, "ladder") || !isfinite(g->fit_ms))
				continue;
			for (step = 1; step <= nstep; step++) {
				double f = (double)step / nstep;
				double x = prev ? prev->rate + f * (g->rate - prev->rate) : g->rate;
				double y = prev ? prev->fit_ms + f * (g->fit_ms - prev->fit_ms) : g->fit_ms;

				if (!in_axis(&p->y, y) || !in_axis(&p->x, x))
					continue;
				sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ", amap(&p->x, x), amap(&p->y, y));
				first = 0;
			}
			prev = g;
		}
		sbuf_adds(out, "\"><title>");
		sbuf_add_xml(out, im->name);
		sbuf_adds(out, ": isotonic fit of rung means</title></polyline>\n");
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];

			if (g->impl != (int)k || strcmp(g->stage, "ladder") ||
			    !in_axis(&p->y, g->pslo.ms))
				continue;
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" "
				  "stroke=\"%s\" stroke-width=\"2\"><title>", amap(&p->x, g->rate),
				  amap(&p->y, g->pslo.ms), color((int)k));
			sbuf_add_xml(out, im->name);
			sbuf_addf(out, " %.0f req/s: merged %s %.3g ms [%.3g, %.3g], fit %.3g ms, "
				  "%zu/%zu windows accepted</title></circle>\n", g->rate, r->slo_label,
				  g->pslo.ms, g->pslo.lo_ms, g->pslo.hi_ms, g->fit_ms, g->accepted, g->total);
		}
		draw_knee(r, p, (int)k, out);
	}
}

/* Windows on top: accepted dots, failed red crosses, rejected grey rings. A
 * failed window with no finite percentile (nothing answered) or one
 * above the axis is drawn on the top edge: it is over the SLO. */
static void draw_windows(const struct report *r, const struct plot *p, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct report_window *w = &r->windows[i];
		enum wstatus st = wstatus(w);
		double x, y;

		if (!w->done || !in_axis(&p->x, w->rate))
			continue;
		if (in_axis(&p->y, w->pslo_ms))
			y = amap(&p->y, w->pslo_ms);
		else if (st == WS_FAILED)
			y = p->y.p1 + 5;
		else
			continue;
		/* Spread the implementations a little so their marks do not hide each other. */
		x = amap(&p->x, w->rate) + ((double)w->impl_idx - ((double)r->nimpls - 1) / 2) * 5;
		open_mark(out, "win", st, x, y, color(w->impl_idx));
		sbuf_adds(out, "<title>");
		sbuf_add_xml(out, w->impl);
		sbuf_addf(out, " window %lld, %s %.0f req/s block %d: %s %.3g ms, %s", (long long)w->id,
			  w->stage, w->rate, w->block, r->slo_label, w->pslo_ms, w->status);
		if (st != WS_ACCEPTED && *w->reasons) {
			sbuf_adds(out, " (");
			sbuf_add_xml(out, w->reasons);
			sbuf_adds(out, ")");
		}
		sbuf_adds(out, "</title>");
		close_mark(out, st);
	}
}

static void chart_latency(const struct report *r, struct sbuf *out)
{
	struct plot p = { .w = 760, .h = 400 };
	double lo = INFINITY, hi = isfinite(r->slo_ms) ? r->slo_ms * 1.2 : 0;
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct report_window *w = &r->windows[i];

		if (!w->done || !isfinite(w->pslo_ms) || w->pslo_ms <= 0)
			continue;
		if (w->pslo_ms > hi)
			hi = w->pslo_ms;
		if (w->pslo_ms < lo)
			lo = w->pslo_ms;
	}
	if (r->slo_ms < lo)
		lo = r->slo_ms;
	rate_axis(r, &p.x, p.w);
	value_axis(&p.y, isfinite(lo) ? lo : 0, hi, p.h);
	svg_open(out, 0, p.w, p.h);
	hatch_defs(r, out);
	frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
	      p.y.log ? (r->slo_pct == 99 ? "p99 (ms, log scale)" : "SLO percentile (ms, log scale)")
		      : (r->slo_pct == 99 ? "p99 (ms)" : "SLO percentile (ms)"));

	draw_knee_intervals(r, &p, out);
	if (in_axis(&p.y, r->slo_ms)) {
		double y = amap(&p.y, r->slo_ms);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-width=\"2\" stroke-dasharray=\"6,4\"><title>SLO %s %g ms</title></line>\n",
			  p.x.p0, y, p.x.p1, y, SLO_COLOR, r->slo_label, r->slo_ms);
	}
	draw_fits(r, &p, out);
	draw_windows(r, &p, out);
	legend(out, r, &p, 1);
	sbuf_adds(out, "</svg>\n");
}

/* ------------------------------------------------------------ charts 1, 2 */

static double rung_value(const struct report_rung *g, int mem)
{
	return mem ? g->anon_p99 / 1048576.0 : g->cpu_ms_per_req;
}

static void chart_cost(const struct report *r, struct sbuf *out, size_t idx, int mem)
{
	struct plot p = { .w = 760, .h = 340 };
	double hi = 0;
	size_t i, k;

	for (i = 0; i < r->nrungs; i++) {
		double v = rung_value(&r->rungs[i], mem);

		if (isfinite(v) && v > hi)
			hi = v;
	}
	rate_axis(r, &p.x, p.w);
	value_axis(&p.y, 0, hi, p.h);
	p.y.log = 0;
	svg_open(out, idx, p.w, p.h);
	frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
	      mem ? "anon memory p99 (MiB)" : "CPU ms per request");
	if (!(hi > 0))
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">"
			  "no accounting data in accepted windows</text>\n", (p.x.p0 + p.x.p1) / 2,
			  (p.y.p0 + p.y.p1) / 2);
	for (k = 0; k < r->nimpls; k++) {
		int first = 1;

		sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			  color((int)k));
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];
			double v = rung_value(g, mem);

			if (g->impl != (int)k || strcmp(g->stage, "ladder") || !in_axis(&p.y, v) ||
			    !in_axis(&p.x, g->rate))
				continue;
			sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ", amap(&p.x, g->rate), amap(&p.y, v));
			first = 0;
		}
		sbuf_adds(out, "\"/>\n");
		for (i = 0; i < 2 * r->nrungs; i++) {   /* confirm/soak first, ladder on top */
			const struct report_rung *g = &r->rungs[i % r->nrungs];
			double v = rung_value(g, mem);
			int ladder = !strcmp(g->stage, "ladder");

			if (g->impl != (int)k || ladder != (i >= r->nrungs) || !in_axis(&p.y, v) ||
			    !in_axis(&p.x, g->rate))
				continue;
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\" "
				  "stroke-width=\"2\"><title>", amap(&p.x, g->rate), amap(&p.y, v),
				  ladder ? "3.5" : "7", ladder ? color((int)k) : "#fff", color((int)k));
			sbuf_add_xml(out, r->impls[k].name);
			sbuf_addf(out, " %s %.0f req/s: %.4g %s (%zu/%zu windows accepted)</title></circle>\n",
				  g->stage, g->rate, v, mem ? "MiB" : "ms/req", g->accepted, g->total);
		}
	}
	legend(out, r, &p, 0);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">filled: ladder</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">rings: confirm/soak</text>\n",
		  p.x.p1 + 14, p.y.p1 + 20 * (double)r->nimpls + 22, p.x.p1 + 14,
		  p.y.p1 + 20 * (double)r->nimpls + 40);
	sbuf_adds(out, "</svg>\n");
}

/* ------------------------------------------------------------ chart 3 */

static void chart_rejections(const struct report *r, struct sbuf *out)
{
	double bar = 14, row = bar * (double)(r->nimpls ? r->nimpls : 1) + 12;
	double w = 760, left = 170, right = 150;
	double h = MT + 30 + row * (double)(r->ngate_fails ? r->ngate_fails : 1) + 20;
	size_t i, k, max = 1;

	for (k = 0; k < r->nimpls; k++)
		if (r->impls[k].total > max)
			max = r->impls[k].total;
	w += 60; /* room for "n failed, m rejected /t" */
	svg_open(out, 3, w, h);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">windows each gate failed (solid: "
		  "valid, over the SLO) or rejected (pale, grey edge: void), of each implementation's "
		  "finished windows</text>\n", 8.0, MT + 6);
	if (!r->ngate_fails)
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#888\">no window failed or was "
			  "rejected</text>\n", left, MT + 40);
	for (i = 0; i < r->ngate_fails; i++) {
		double y0 = MT + 24 + row * (double)i;

		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
			  y0 + row / 2);
		sbuf_add_xml(out, r->gate_fails[i].name);
		sbuf_adds(out, "</text>\n");
		for (k = 0; k < r->nimpls; k++) {
			const struct report_impl *im = &r->impls[k];
			const struct report_reason *q =
				report_reason_find(im->reasons, im->nreasons, r->gate_fails[i].name);
			size_t n = q ? q->rejected : 0, nf = q ? q->failed : 0, rec = q ? q->recorded : 0;
			double fw = (w - left - right) * (double)nf / (double)max;
			double bw = (w - left - right) * (double)n / (double)max;
			double y = y0 + bar * (double)k;

			/* failed first (solid), then rejected (pale, grey edge) */
			sbuf_addf(out, "<rect data-status=\"failed\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				  "height=\"%.1f\" fill=\"%s\"><title>", left, y, fw > 0 ? fw : 0,
				  bar - 2, color((int)k));
			sbuf_add_xml(out, im->name);
			sbuf_adds(out, ": ");
			sbuf_add_xml(out, r->gate_fails[i].name);
			sbuf_addf(out, " failed %zu of %zu windows</title></rect>", nf, im->total);
			sbuf_addf(out, "<rect data-status=\"rejected\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				  "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.3\" stroke=\"%s\" "
				  "stroke-width=\"%s\"><title>", left + fw, y, bw > 0 ? bw : 0.5, bar - 2,
				  color((int)k), REJECTED_COLOR, bw > 0 ? "1" : "0");
			sbuf_add_xml(out, im->name);
			sbuf_adds(out, ": ");
			sbuf_add_xml(out, r->gate_fails[i].name);
			sbuf_addf(out, " rejected %zu of %zu windows", n, im->total);
			if (rec)
				sbuf_addf(out, "; %zu more recorded (enforce: false)", rec);
			sbuf_addf(out, "</title></rect><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
				  left + fw + bw + 4, y + bar - 4);
			if (nf)
				sbuf_addf(out, "%zu failed%s", nf, n ? ", " : "");
			if (n || !nf)
				sbuf_addf(out, "%zu%s", n, n ? " rejected" : "");
			sbuf_addf(out, " /%zu", im->total);
			if (rec)
				sbuf_addf(out, " (+%zu recorded)", rec);
			sbuf_adds(out, "</text>\n");
		}
	}
	for (k = 0; k < r->nimpls; k++) {
		double x = w - right + 14, y = MT + 24 + 20 * (double)k;

		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", x, y, color((int)k), x + 20, y + 9);
		sbuf_add_xml(out, r->impls[k].name);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_adds(out, "</svg>\n");
}

/* ------------------------------------------------------------ chart 4 */

/* The largest finite per-second p99 of a window (0 when none). */
static double sec_max(const struct report_window *w)
{
	double m = 0;
	size_t s;

	for (s = 0; s < w->nsec; s++)
		if (isfinite(w->sec_p99[s]) && w->sec_p99[s] > m)
			m = w->sec_p99[s];
	return m;
}

static void chart_seconds(const struct report *r, struct sbuf *out)
{
	const double cw = 118, ch = 54, gap = 6, left = 8, cols = 6;
	double w = left * 2 + cols * (cw + gap), y = MT + 30;
	size_t k, i, j, col;
	struct sbuf body = SBUF_INIT;

	for (k = 0; k < r->nimpls; k++) {
		sbuf_addf(&body, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\" fill=\"%s\">", left,
			  y + 12, color((int)k));
		sbuf_add_xml(&body, r->impls[k].name);
		sbuf_adds(&body, "</text>\n");
		y += 20;
		col = 0;
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];

			if (g->impl != (int)k)
				continue;
			for (j = 0; j < r->nwindows; j++) {
				const struct report_window *wn = &r->windows[j];
				double x0, sy, slo_y, top = sec_max(wn) * 1.15;
				size_t s;
				int first = 1;
				enum wstatus st;

				if (wn->impl_idx != (int)k || !wn->done || strcmp(wn->stage, g->stage) ||
				    fabs(wn->rate - g->rate) > 1e-9 * (wn->rate + g->rate))
					continue;
				if (col == (size_t)cols) {
					col = 0;
					y += ch + gap;
				}
				x0 = left + (double)col * (cw + gap);
				col++;
				st = wstatus(wn);
				sbuf_addf(&body, "<g class=\"cell\" data-status=\"%s\"><title>",
					  wstatus_names[st]);
				sbuf_add_xml(&body, wn->impl);
				sbuf_addf(&body, " window %lld: %s %.0f req/s, block %d, %s%s", (long long)wn->id,
					  wn->stage, wn->rate, wn->block, wn->status,
					  wn->accepted ? "" : " by ");
				if (!wn->accepted)
					sbuf_add_xml(&body, *wn->reasons ? wn->reasons : "unspecified");
				sbuf_addf(&body, "; window %s %.3g ms; %zu seconds</title>\n", r->slo_label,
					  wn->pslo_ms, wn->nsec);
				/* accepted: pale green; failed: pale red, red edge;
				 * rejected: grey, dashed grey edge (void) */
				sbuf_addf(&body, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					  "fill=\"%s\" stroke=\"%s\"%s/>\n", x0, y, cw, ch,
					  st == WS_ACCEPTED ? "#f3faf3" : st == WS_FAILED ? "#fde4e4" : "#ececec",
					  st == WS_ACCEPTED ? "#ccc" : st == WS_FAILED ? FAILED_COLOR : REJECTED_COLOR,
					  st == WS_REJECTED ? " stroke-dasharray=\"4,3\"" : "");
				if (!(top > 0))
					top = 1;
				slo_y = y + ch - 13 - (ch - 28) * (r->slo_ms / top);
				if (r->slo_ms <= top)
					sbuf_addf(&body, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
						  "stroke=\"%s\" stroke-dasharray=\"3,2\" stroke-width=\"0.8\"/>\n",
						  x0, slo_y, x0 + cw, slo_y, SLO_COLOR);
				sbuf_addf(&body, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" "
					  "points=\"", color((int)k));
				for (s = 0; s < wn->nsec; s++) {
					double v = wn->sec_p99[s];

					if (!isfinite(v))
						continue;
					sy = y + ch - 13 - (ch - 28) * (v / top);
					sbuf_addf(&body, "%s%.1f,%.1f", first ? "" : " ",
						  x0 + 2 + (cw - 4) * ((double)s + 0.5) / (double)wn->nsec, sy);
					first = 0;
				}
				sbuf_adds(&body, "\"/>\n");
				sbuf_addf(&body, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"#777\">"
					  "max %.3g</text>\n", x0 + 3, y + 10, sec_max(wn));
				sbuf_addf(&body, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#333\">"
					  "%c %.0f/s b%d %.3gms</text>\n</g>\n", x0 + 3, y + ch - 2,
					  wn->stage[0] ? wn->stage[0] : '?', wn->rate, wn->block, wn->pslo_ms);
			}
		}
		y += ch + gap + 8;
	}
	svg_open(out, 4, w, y + 8);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">one cell per window "
		  "(green: accepted; red edge: failed; grey, dashed: rejected), own scale 0 to max "
		  "(ms, top left); SLO dashed when in range;</text>\n<text x=\"%.1f\" y=\"%.1f\" "
		  "fill=\"#555\">label: stage (l ladder, c confirm, s soak), rate, block, window %s</text>\n",
		  left, MT + 2, left, MT + 18, r->slo_label);
	sbuf_add(out, body.buf, body.len);
	sbuf_adds(out, "</svg>\n");
	sbuf_release(&body);
}

void report_chart(const struct report *r, size_t i, struct sbuf *out)
{
	switch (i) {
	case 0: chart_latency(r, out); break;
	case 1: chart_cost(r, out, 1, 0); break;
	case 2: chart_cost(r, out, 2, 1); break;
	case 3: chart_rejections(r, out); break;
	case 4: chart_seconds(r, out); break;
	default: break;
	}
}
