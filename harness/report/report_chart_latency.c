/*
 * report_chart_latency: latency_vs_rate, the SLO percentile vs offered
 * rate per implementation. Accepted windows as dots in the
 * implementation's colour, failed windows as red crosses, rejected windows
 * as hollow grey rings; each ladder rung's merged percentile as a ring
 * with its order-statistic interval as a whisker; rung means joined by the
 * isotonic fit; the SLO line; each knee drawn by its kind: a point as a
 * dashed line, a bracket (lo, hi] as a hatched band, a floor ">= X" as an
 * arrow pointing right from X, never as a line; the knee's interval as a
 * pale band. Knee marks carry data-knee="point|bracket|floor|interval",
 * whiskers data-whisker, so tests tell them apart without colours.
 */
#include "model/cells.h"
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

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
	switch (im->kres->kind) {
	case KNEE_POINT:
		*x = im->kres->knee_rps;
		return SHAPE_POINT;
	case KNEE_BRACKET:
		*lo = im->kres->lo_rps;
		*hi = im->kres->hi_rps;
		*x = *hi;
		return SHAPE_BRACKET;
	case KNEE_FLOOR:
		*x = im->kres->highest_rung_rps;
		return SHAPE_FLOOR;
	case KNEE_NONE:
		break;
	}
	return SHAPE_NONE;
}

static void legend(struct sbuf *out, const struct report *r, const struct plot *p)
{
	double x = p->x.p1 + 14, y = svg_legend_impls(out, r, p);

	if (isfinite(r->slo_ms)) {
		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-dasharray=\"5,3\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">"
			  "SLO %g ms</text>\n", x, y + 6, x + 14, y + 6, SVG_SLO_COLOR, x + 20, y + 10, r->slo_ms);
		y += 20;
	}
	{
		y = svg_legend_marks(out, x, y);
		sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" stroke=\"#777\" "
			  "stroke-width=\"2\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			  "stroke=\"#777\" stroke-width=\"1.2\"/><text x=\"%.1f\" y=\"%.1f\">rung, merged "
			  "[CI]</text>\n", x + 7, y + 6, x + 7, y - 2, x + 7, y + 1.5, x + 20, y + 10);
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
		hatch(out, id.buf, svg_color((int)k));
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
	const char *col = svg_color(k);

	switch (knee_shape(im, &kx, &lo, &hi)) {
	case SHAPE_NONE:
		return;
	case SHAPE_POINT:
		if (!svg_in_axis(&p->x, kx))
			return;
		x = svg_amap(&p->x, kx);
		sbuf_addf(out, "<line data-knee=\"point\" data-impl=\"%d\" x1=\"%.1f\" y1=\"%.1f\" "
			  "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
			  "stroke-dasharray=\"2,3\"/>\n", k, x, p->y.p1, x, p->y.p0, col);
		knee_label(p, k, x, col, out);
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, " knee %s%.0f", im->knee.at_first_rung ? "&lt;= " : "", kx);
		break;
	case SHAPE_BRACKET:
		a = svg_in_axis(&p->x, lo) ? svg_amap(&p->x, lo) : p->x.p0;
		b = svg_in_axis(&p->x, hi) ? svg_amap(&p->x, hi) : p->x.p1;
		sbuf_addf(out, "<rect data-knee=\"bracket\" data-impl=\"%d\" x=\"%.1f\" y=\"%.1f\" "
			  "width=\"%.1f\" height=\"%.1f\" fill=\"url(#hatch-%d)\" stroke=\"%s\" "
			  "stroke-width=\"1\" stroke-dasharray=\"4,2\"><title>", k, a, p->y.p1,
			  b - a > 2 ? b - a : 2, p->y.p0 - p->y.p1, k, col);
		sbuf_add_xml(out, im->name);
		sbuf_adds(out, ": knee ");
		bracket_text(out, lo, hi);
		sbuf_adds(out, " req/s: ");
		sbuf_add_xml(out, im->kres->reason);
		sbuf_adds(out, "</title></rect>\n");
		knee_label(p, k, b, col, out);
		sbuf_add_xml(out, im->name);
		sbuf_adds(out, " knee ");
		bracket_text(out, lo, hi);
		break;
	case SHAPE_FLOOR:
		if (!svg_in_axis(&p->x, kx))
			return;
		x = svg_amap(&p->x, kx);
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

		if (!im->has_knee_ci || !svg_in_axis(&p->x, im->knee_ci.lo) || !svg_in_axis(&p->x, im->knee_ci.hi))
			continue;
		a = svg_amap(&p->x, im->knee_ci.lo);
		b = svg_amap(&p->x, im->knee_ci.hi);
		sbuf_addf(out, "<rect data-knee=\"interval\" data-impl=\"%zu\" x=\"%.1f\" y=\"%.1f\" "
			  "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.12\"><title>",
			  k, a, p->y.p1, b - a > 1 ? b - a : 1, p->y.p0 - p->y.p1, svg_color((int)k));
		sbuf_add_xml(out, im->name);
		sbuf_addf(out, ": knee interval %.0f..%.0f req/s (%s)</title></rect>\n",
			  im->knee_ci.lo, im->knee_ci.hi,
			  im->knee_ci.inferential ? "inferential" : "non-inferential");
	}
}

/* A rung's merged percentile interval [lo, hi] as a whisker with caps,
 * clipped to the axis. */
static void whisker(const struct plot *p, const struct report_rung *g, const char *col,
		    struct sbuf *out)
{
	double x, lo, hi;

	if (!isfinite(g->pslo.lo_ms) || !isfinite(g->pslo.hi_ms))
		return;
	x = svg_amap(&p->x, g->rate);
	lo = svg_in_axis(&p->y, g->pslo.lo_ms) ? svg_amap(&p->y, g->pslo.lo_ms) : p->y.p0;
	hi = svg_in_axis(&p->y, g->pslo.hi_ms) ? svg_amap(&p->y, g->pslo.hi_ms) : p->y.p1;
	sbuf_addf(out, "<path data-whisker=\"%d\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" "
		  "stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\"/>\n", g->impl, x, lo, hi,
		  x - 4, lo, x - 4, hi, col);
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
			  svg_color((int)k));
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];
			int step, nstep = prev ? 24 : 1;

			if (g->impl != (int)k || strcmp(g->stage, "ladder") || !isfinite(g->fit_ms))
				continue;
			for (step = 1; step <= nstep; step++) {
				double f = (double)step / nstep;
				double x = prev ? prev->rate + f * (g->rate - prev->rate) : g->rate;
				double y = prev ? prev->fit_ms + f * (g->fit_ms - prev->fit_ms) : g->fit_ms;

				if (!svg_in_axis(&p->y, y) || !svg_in_axis(&p->x, x))
					continue;
				sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ", svg_amap(&p->x, x), svg_amap(&p->y, y));
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
			    !svg_in_axis(&p->y, g->pslo.ms))
				continue;
			whisker(p, g, svg_color((int)k), out);
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" "
				  "stroke=\"%s\" stroke-width=\"2\"><title>", svg_amap(&p->x, g->rate),
				  svg_amap(&p->y, g->pslo.ms), svg_color((int)k));
			sbuf_add_xml(out, im->name);
			sbuf_addf(out, " %.0f req/s: merged %s ", g->rate, r->slo_label);
			report_fmt_sig(out, g->pslo.ms);
			sbuf_adds(out, " ms [");
			report_fmt_sig(out, g->pslo.lo_ms);
			sbuf_adds(out, ", ");
			report_fmt_sig(out, g->pslo.hi_ms);
			sbuf_adds(out, "], fit ");
			report_fmt_sig(out, g->fit_ms);
			sbuf_addf(out, " ms, %zu/%zu windows accepted</title></circle>\n", g->accepted,
				  g->total);
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
		const struct view_window *w = &r->windows[i];
		enum wstatus st = svg_wstatus(w);
		double x, y;

		if (!w->done || !svg_in_axis(&p->x, w->rate))
			continue;
		if (svg_in_axis(&p->y, w->pslo_ms))
			y = svg_amap(&p->y, w->pslo_ms);
		else if (st == WS_FAILED)
			y = p->y.p1 + 5;
		else
			continue;
		/* Spread the implementations a little so their marks do not hide each other. */
		x = svg_amap(&p->x, w->rate) + ((double)w->impl_idx - ((double)r->nimpls - 1) / 2) * 5;
		svg_open_mark(out, "win", st, x, y, svg_color(w->impl_idx));
		sbuf_adds(out, "<title>");
		sbuf_add_xml(out, w->impl);
		sbuf_addf(out, " window %lld, %s %.0f req/s ", (long long)w->id, w->stage, w->rate);
		cells_block_text(w->block, out);
		sbuf_addf(out, ": %s ", r->slo_label);
		report_fmt_sig(out, w->pslo_ms);
		sbuf_addf(out, " ms, %s", report_wstatus_words(r, w->status, w->pslo_ms));
		if (st != WS_ACCEPTED && *w->reasons) {
			sbuf_adds(out, " (");
			sbuf_add_xml(out, w->reasons);
			sbuf_adds(out, ")");
		}
		sbuf_adds(out, "</title>");
		svg_close_mark(out, st);
	}
}

void report_chart_latency(const struct report *r, const char *title, struct sbuf *out)
{
	struct plot p = { .w = 760, .h = 400 };
	double lo = INFINITY, hi = isfinite(r->slo_ms) ? r->slo_ms * 1.2 : 0;
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (!w->done || !isfinite(w->pslo_ms) || w->pslo_ms <= 0)
			continue;
		if (w->pslo_ms > hi)
			hi = w->pslo_ms;
		if (w->pslo_ms < lo)
			lo = w->pslo_ms;
	}
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		if (isfinite(g->pslo.hi_ms) && g->pslo.hi_ms > hi)
			hi = g->pslo.hi_ms;
		if (isfinite(g->pslo.lo_ms) && g->pslo.lo_ms > 0 && g->pslo.lo_ms < lo)
			lo = g->pslo.lo_ms;
	}
	if (r->slo_ms < lo)
		lo = r->slo_ms;
	svg_rate_axis(r, &p.x, p.w);
	svg_value_axis(&p.y, isfinite(lo) ? lo : 0, hi, p.h);
	svg_open(out, "latency_vs_rate", title, p.w, p.h);
	hatch_defs(r, out);
	svg_frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
	      p.y.log ? (r->slo_pct == 99 ? "p99 (ms, log scale)" : "SLO percentile (ms, log scale)")
		      : (r->slo_pct == 99 ? "p99 (ms)" : "SLO percentile (ms)"));

	draw_knee_intervals(r, &p, out);
	svg_slo_line(out, &p, r, "2");
	draw_fits(r, &p, out);
	draw_windows(r, &p, out);
	legend(out, r, &p);
	sbuf_adds(out, "</svg>\n");
}

