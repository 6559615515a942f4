/*
 * report_chart_timeline: timeline, the whole run on one time axis
 * (seconds since the first window's warm-up began). Top: each window's
 * offered rate (dashed) and achieved rate per second (solid), in its
 * implementation's colour. Middle: a strip with one bar per window, its
 * verdict by colour (accepted green, failed red, rejected grey) and
 * data-status. Bottom: the per-second p99 of every measured second, the
 * SLO line. Window boundaries are thin vertical lines; each window's
 * warm-up and discarded head are shaded (data-warmup). Time between
 * windows (starting and stopping implementations) is blank; a stretch of
 * more than GAP_MAX seconds without a window is cut to GAP_SHOWN seconds
 * and marked as a break (data-break), so a pause does not squeeze the run
 * into a corner; tick labels stay real times.
 */
#include "model/cells.h"
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define STRIP0 196.0   /* the verdict strip between the panels */
#define STRIP1 208.0
#define GAP_MAX 30.0    /* longer pauses are cut ... */
#define GAP_SHOWN 6.0   /* ... to this many seconds */

/* The time axis: busy segments (merged windows, warm-up included) and, per
 * segment, the seconds cut before it. */
struct tmap {
	double t0;
	double *start, *end, *cut;   /* absolute times; cut: removed before start */
	size_t n;
};

static int cmp_start(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void window_span(const struct view_window *w, double *a, double *b)
{
	*a = w->started_at - (double)w->nhead;
	*b = w->started_at + (w->duration_s > 0 ? w->duration_s : (double)w->nsec);
}

static int drawn(const struct view_window *w)
{
	return w->done && isfinite(w->started_at) && w->started_at > 0;
}

static void tmap_build(const struct report *r, struct tmap *m)
{
	double *iv = xcalloc(2 * (r->nwindows + 1), sizeof(*iv));
	size_t i, n = 0;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < r->nwindows; i++)
		if (drawn(&r->windows[i])) {
			window_span(&r->windows[i], &iv[2 * n], &iv[2 * n + 1]);
			n++;
		}
	qsort(iv, n, 2 * sizeof(*iv), cmp_start);
	m->start = xcalloc(n + 1, sizeof(double));
	m->end = xcalloc(n + 1, sizeof(double));
	m->cut = xcalloc(n + 1, sizeof(double));
	m->t0 = n ? iv[0] : 0;
	for (i = 0; i < n; i++) {
		double a = iv[2 * i], b = iv[2 * i + 1];

		if (m->n && a - m->end[m->n - 1] <= GAP_MAX) {
			if (b > m->end[m->n - 1])
				m->end[m->n - 1] = b;
			continue;
		}
		m->start[m->n] = a;
		m->end[m->n] = b;
		m->cut[m->n] = m->n ? m->cut[m->n - 1] + (a - m->end[m->n - 1]) - GAP_SHOWN : 0;
		m->n++;
	}
	free(iv);
}

static void tmap_release(struct tmap *m)
{
	free(m->start);
	free(m->end);
	free(m->cut);
}

/* Seconds on the drawn axis for absolute time t. */
static double tmap_at(const struct tmap *m, double t)
{
	size_t k = 0;

	while (k + 1 < m->n && m->start[k + 1] <= t)
		k++;
	return t - m->t0 - (m->n ? m->cut[k] : 0);
}

static double tmap_span(const struct tmap *m)
{
	return m->n ? tmap_at(m, m->end[m->n - 1]) : 1;
}

/* Round real-time ticks inside each segment, at least 40 px apart, and a
 * break mark in each cut pause. */
static void time_ticks(const struct tmap *m, const struct plot *top, const struct plot *bot,
		       struct sbuf *out)
{
	double span = m->n ? m->end[m->n - 1] - m->t0 : 1, unit = span > 1200 ? 60 : 1;
	double raw = tmap_span(m) / unit / 6, mag, step, last = -1e9;
	size_t k;

	mag = pow(10, floor(log10(raw > 0 ? raw : 1)));
	step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (k = 0; k < m->n; k++) {
		double v = ceil((m->start[k] - m->t0) / unit / step - 1e-9) * step;

		for (; v * unit <= m->end[k] - m->t0 + 1e-9; v += step) {
			double x = svg_amap(&bot->x, tmap_at(m, m->t0 + v * unit));

			if (x - last < 40)
				continue;
			last = x;
			sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				  "stroke=\"#e4e4e4\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				  "y2=\"%.1f\" stroke=\"#e4e4e4\"/><text class=\"tick\" x=\"%.1f\" "
				  "y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\">", x, top->y.p1, x,
				  top->y.p0, x, bot->y.p1, x, bot->y.p0, x, bot->y.p0 + 16);
			svg_num(out, v);
			sbuf_adds(out, "</text>\n");
		}
		if (k) {
			double x = svg_amap(&bot->x, tmap_at(m, m->start[k]) - GAP_SHOWN / 2);

			sbuf_addf(out, "<g data-break=\"%.0f\"><title>%.0f s without a window "
				  "(cut to %.0f s)</title>", m->start[k] - m->end[k - 1],
				  m->start[k] - m->end[k - 1], GAP_SHOWN);
			sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"%.1f\" "
				  "fill=\"#fff\"/><path d=\"M%.1f %.1fl4 -8M%.1f %.1fl4 -8\" stroke=\"#555\" "
				  "stroke-width=\"1.2\"/></g>\n", x - 3, top->y.p1, bot->y.p0 - top->y.p1,
				  x - 4, bot->y.p0 + 4, x, bot->y.p0 + 4);
		}
	}
}

/* One window: its warm-up shade, boundary, verdict bar, offered and
 * achieved rate (top) and per-second p99 (bottom). */
static void draw_window(const struct report *r, const struct view_window *w,
			const struct plot *top, const struct plot *bot, const struct tmap *m,
			struct sbuf *out)
{
	enum wstatus st = svg_wstatus(w);
	double xs, xe, xh;
	int first = 1;
	size_t s;

	window_span(w, &xh, &xe);
	xh = svg_amap(&top->x, tmap_at(m, xh));
	xs = svg_amap(&top->x, tmap_at(m, w->started_at));
	xe = svg_amap(&top->x, tmap_at(m, xe));
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
	sbuf_addf(out, " window %lld, %s %.0f req/s, ", (long long)w->id, w->stage, w->rate);
	cells_block_text(w->block, out);
	sbuf_addf(out, ": %s", report_wstatus_words(r, w->status, w->pslo_ms));
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
			  svg_amap(&top->x, tmap_at(m, w->started_at + (double)s + 0.5)),
			  svg_amap(&top->y, w->sec_done[s]));
		first = 0;
	}
	sbuf_adds(out, "\"/>\n");
	first = 1;
	sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"",
		  svg_color(w->impl_idx));
	for (s = 0; s < w->nsec; s++) {
		if (!svg_in_axis(&bot->y, w->sec_p99[s]))
			continue;
		sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ",
			  svg_amap(&bot->x, tmap_at(m, w->started_at + (double)s + 0.5)),
			  svg_amap(&bot->y, w->sec_p99[s]));
		first = 0;
	}
	sbuf_adds(out, "\"/>\n");
}

void report_chart_timeline(const struct report *r, const char *title, struct sbuf *out)
{
	struct plot top = { .w = 900, .h = 200 }, bot = { .w = 900, .h = 420 };
	double rmax = 0, lo = INFINITY, hi = 0;
	struct tmap m;
	size_t i, s;

	tmap_build(r, &m);
	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (!drawn(w))
			continue;
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
	if (isfinite(r->slo_ms) && r->slo_ms > hi)
		hi = r->slo_ms;
	memset(&top.x, 0, sizeof(top.x));
	top.x.lo = 0;
	top.x.hi = tmap_span(&m) * 1.01 + 1e-9;
	top.x.tick_kind = 2;
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
	svg_frame(out, &bot, m.n > 1 ? (tmap_span(&m) > 1200 ? "time since the first warm-up (min; "
						 "pauses cut)" : "time since the first warm-up (s; pauses cut)")
		  : tmap_span(&m) > 1200 ? "time since the first warm-up (min)" :
		  "time since the first warm-up (s)",
		  bot.y.log ? "p99 per second (ms, log)" : "p99 per second (ms)");
	time_ticks(&m, &top, &bot, out);
	if (!m.n || !(rmax > 0))
		svg_note(out, &top, "no measured window");
	svg_slo_line(out, &bot, r, "1.5");
	for (i = 0; i < r->nwindows; i++)
		if (drawn(&r->windows[i]))
			draw_window(r, &r->windows[i], &top, &bot, &m, out);
	svg_legend_impls(out, r, &top);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">dashed: offered</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">solid: achieved</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">shaded: warm-up</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">strip: verdict</text>\n",
		  top.x.p1 + 14, top.y.p1 + 20 * (double)r->nimpls + 18, top.x.p1 + 14,
		  top.y.p1 + 20 * (double)r->nimpls + 36, top.x.p1 + 14,
		  top.y.p1 + 20 * (double)r->nimpls + 54, top.x.p1 + 14, STRIP1);
	sbuf_adds(out, "</svg>\n");
	tmap_release(&m);
}
