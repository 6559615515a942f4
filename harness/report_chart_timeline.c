/*
 * report_chart_timeline: timeline, the whole run on one time axis
 * (seconds since the first window's warm-up began). Top: each window's
 * offered rate (dashed) and achieved rate per second (solid), in its
 * implementation's colour. Middle: a strip with one bar per window, its
 * verdict by colour (accepted green, failed red, rejected grey) and
 * data-status. Bottom: the per-second p99 of every measured second, the
 * SLO line. Window boundaries are thin vertical lines; each window's
 * warm-up and discarded head are shaded (data-warmup). Time between
 * windows (starting and stopping implementations) is blank.
 */
#include "report.h"
#include "report_svg.h"

#include <math.h>
#include <string.h>

#include "util.h"

#define STRIP0 196.0   /* the verdict strip between the panels */
#define STRIP1 208.0

static int drawn(const struct report_window *w)
{
	return w->done && isfinite(w->started_at) && w->started_at > 0;
}

/* One window: its warm-up shade, boundary, verdict bar, offered and
 * achieved rate (top) and per-second p99 (bottom). */
static void draw_window(const struct report_window *w, const struct plot *top,
			const struct plot *bot, double t0, struct sbuf *out)
{
	enum wstatus st = svg_wstatus(w);
	double xs, xe, xh;
	int first = 1;
	size_t s;

	xh = svg_amap(&top->x, w->started_at - (double)w->nhead - t0);
	xs = svg_amap(&top->x, w->started_at - t0);
	xe = svg_amap(&top->x, w->started_at - t0 +
		      (w->duration_s > 0 ? w->duration_s : (double)w->nsec));
	if (w->nhead)
		sbuf_addf(out, "<rect data-warmup=\"%lld\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			  "height=\"%.1f\" fill=\"#000\" fill-opacity=\"0.07\"><title>window %lld: "
			  "%zu s warm-up and discard</title></rect>\n", (long long)w->id, xh,
			  top->y.p1, xs - xh, bot->y.p0 - top->y.p1, (long long)w->id, w->nhead);
	sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\" "
		  "stroke-width=\"0.6\"/>\n", xs, top->y.p1, xs, bot->y.p0);
	sbuf_addf(out, "<rect class=\"verdict\" data-status=\"%s\" x=\"%.1f\" y=\"%.1f\" "
		  "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s><title>", svg_wstatus_names[st],
		  xs, STRIP0, xe - xs > 1 ? xe - xs : 1, STRIP1 - STRIP0,
		  st == WS_ACCEPTED ? "#7cc47c" : st == WS_FAILED ? SVG_FAILED_COLOR : "#c8c8c8",
		  st == WS_REJECTED ? " stroke=\"#8a8a8a\" stroke-dasharray=\"2,2\"" : "");
	sbuf_add_xml(out, w->impl);
	sbuf_addf(out, " window %lld, %s %.0f req/s, block %d: %s", (long long)w->id, w->stage,
		  w->rate, w->block, w->status);
	if (st != WS_ACCEPTED && *w->reasons) {
		sbuf_adds(out, " (");
		sbuf_add_xml(out, w->reasons);
		sbuf_adds(out, ")");
	}
	sbuf_adds(out, "</title></rect>\n");
	if (svg_in_axis(&top->y, w->offered_rps))
		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-width=\"1.5\" stroke-dasharray=\"4,3\"/>\n", xs,
			  svg_amap(&top->y, w->offered_rps), xe, svg_amap(&top->y, w->offered_rps),
			  svg_color(w->impl_idx));
	sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		  svg_color(w->impl_idx));
	for (s = 0; s < w->nsec; s++) {
		sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ",
			  svg_amap(&top->x, w->started_at - t0 + (double)s + 0.5),
			  svg_amap(&top->y, w->sec_done[s]));
		first = 0;
	}
	sbuf_adds(out, "\"/>\n");
	first = 1;
	sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"",
		  svg_color(w->impl_idx));
	for (s = 0; s < w->nsec; s++) {
		if (!svg_in_axis(&bot->y, w->sec_p99[s]))
			return;
		sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ",
			  svg_amap(&bot->x, w->started_at - t0 + (double)s + 0.5),
			  svg_amap(&bot->y, w->sec_p99[s]));
		first = 0;
	}
	sbuf_adds(out, "\"/>\n");
}

void report_chart_timeline(const struct report *r, const char *title, struct sbuf *out)
{
	struct plot top = { .w = 900, .h = 200 }, bot = { .w = 900, .h = 420 };
	double t0 = INFINITY, t1 = 0, rmax = 0, lo = INFINITY, hi = 0;
	size_t i, s;

	for (i = 0; i < r->nwindows; i++) {
		const struct report_window *w = &r->windows[i];
		double a, b;

		if (!drawn(w))
			continue;
		a = w->started_at - (double)w->nhead;
		b = w->started_at + (w->duration_s > 0 ? w->duration_s : (double)w->nsec);
		t0 = a < t0 ? a : t0;
		t1 = b > t1 ? b : t1;
		if (w->offered_rps > rmax)
			rmax = w->offered_rps;
		for (s = 0; s < w->nsec; s++) {
			if (w->sec_done[s] > rmax)
				rmax = w->sec_done[s];
			if (isfinite(w->sec_p99[s]) && w->sec_p99[s] > 0) {
				lo = w->sec_p99[s] < lo ? w->sec_p99[s] : lo;
				hi = w->sec_p99[s] > hi ? w->sec_p99[s] : hi;
			}
		}
	}
	if (!isfinite(t0)) {
		t0 = 0;
		t1 = 1;
	}
	if (isfinite(r->slo_ms) && r->slo_ms > hi)
		hi = r->slo_ms;
	memset(&top.x, 0, sizeof(top.x));
	top.x.lo = 0;
	top.x.hi = (t1 - t0) * 1.01 + 1e-9;
	top.x.p0 = SVG_ML;
	top.x.p1 = top.w - SVG_MR;
	bot.x = top.x;
	svg_linear_axis(&top.y, rmax, top.h);
	top.y.p0 = 170;
	svg_value_axis(&bot.y, isfinite(lo) ? lo : 0, hi, bot.h);
	bot.y.p1 = 224;
	bot.y.p0 = 372;

	svg_open(out, "timeline", title, bot.w, bot.h);
	svg_frame(out, &top, "", "rate (req/s)");
	svg_frame(out, &bot, "time since the first warm-up (s)",
		  bot.y.log ? "p99 per second (ms, log)" : "p99 per second (ms)");
	if (!(t1 > t0) || !(rmax > 0))
		svg_note(out, &top, "no measured window");
	if (isfinite(r->slo_ms) && svg_in_axis(&bot.y, r->slo_ms)) {
		double y = svg_amap(&bot.y, r->slo_ms);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"><title>SLO %s %g ms</title></line>\n",
			  bot.x.p0, y, bot.x.p1, y, SVG_SLO_COLOR, r->slo_label, r->slo_ms);
	}
	for (i = 0; i < r->nwindows; i++)
		if (drawn(&r->windows[i]))
			draw_window(&r->windows[i], &top, &bot, t0, out);
	svg_legend_impls(out, r, &top);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">dashed: offered</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">solid: achieved</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">shaded: warm-up</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">strip: verdict</text>\n",
		  top.x.p1 + 14, top.y.p1 + 20 * (double)r->nimpls + 18, top.x.p1 + 14,
		  top.y.p1 + 20 * (double)r->nimpls + 36, top.x.p1 + 14,
		  top.y.p1 + 20 * (double)r->nimpls + 54, top.x.p1 + 14, STRIP1);
	sbuf_adds(out, "</svg>\n");
}
