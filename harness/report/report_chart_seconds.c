/*
 * report_chart_seconds: per_second, small multiples of every finished
 * window's measured per-second p99: one row per rung (implementation,
 * stage, rate), one cell per window, and ONE scale per rung (0 to the
 * rung's largest second, printed once at the row's left), so cells of a
 * rung compare by eye. Cell fill and edge by status (accepted pale green;
 * failed pale red, red edge; rejected grey, dashed edge: void); each cell
 * is a <g class="cell" data-status=...>. Labels are words: "block 2,
 * p99 8.1 ms".
 */
#include "base/rate.h"
#include "model/cells.h"
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

#define CW 112.0    /* cell */
#define CH 50.0
#define GAP 6.0
#define LEFT 150.0  /* the rung's label and scale */
#define COLS 6

static int in_rung(const struct view_window *w, const struct report_rung *g)
{
	return w->impl_idx == g->impl && w->done && !strcmp(w->stage, g->stage) &&
	       rate_same(w->rate, g->rate);
}

/* The round number at or above v: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k. */
static double nice_ceil(double v)
{
	static const double m[] = { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	double d;
	size_t i;

	if (!(v > 0))
		return 1;
	d = pow(10, floor(log10(v)));
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i] * d >= v * (1 - 1e-12))
			return m[i] * d;
	return 10 * d;
}

/* The rung's shared scale: its largest finite second (0 when none). */
static double rung_top(const struct report *r, const struct report_rung *g)
{
	double m = 0;
	size_t j, s;

	for (j = 0; j < r->nwindows; j++) {
		const struct view_window *w = &r->windows[j];

		if (!in_rung(w, g))
			continue;
		for (s = 0; s < w->nsec; s++)
			if (isfinite(w->sec_p99[s]) && w->sec_p99[s] > m)
				m = w->sec_p99[s];
	}
	return m;
}

static void cell(const struct report *r, const struct view_window *wn, double x0, double y,
		 double top, struct sbuf *out)
{
	enum wstatus st = svg_wstatus(wn);
	int first = 1;
	size_t s;

	sbuf_addf(out, "<g class=\"cell\" data-status=\"%s\"><title>", svg_wstatus_names[st]);
	sbuf_add_xml(out, wn->impl);
	sbuf_addf(out, " window %lld: %s %.0f req/s, ", (long long)wn->id, wn->stage, wn->rate);
	cells_block_text(wn->block, out);
	sbuf_addf(out, ", %s%s", report_wstatus_words(r, wn->status, wn->pslo_ms),
		  wn->accepted ? "" : " by ");
	if (!wn->accepted)
		sbuf_add_xml(out, *wn->reasons ? wn->reasons : "unspecified");
	sbuf_addf(out, "; window %s ", r->slo_label);
	report_fmt_sig(out, wn->pslo_ms);
	sbuf_addf(out, " ms; %zu seconds</title>\n", wn->nsec);
	sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		  "stroke=\"%s\"%s/>\n", x0, y, CW, CH,
		  st == WS_ACCEPTED ? "#f3faf3" : st == WS_FAILED ? "#fde4e4" : "#ececec",
		  st == WS_ACCEPTED ? "#ccc" : st == WS_FAILED ? SVG_FAILED_COLOR : SVG_REJECTED_COLOR,
		  st == WS_REJECTED ? " stroke-dasharray=\"4,3\"" : "");
	if (isfinite(r->slo_ms) && r->slo_ms <= top) {
		double sy = y + CH - 14 - (CH - 18) * (r->slo_ms / top);

		sbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-dasharray=\"3,2\" stroke-width=\"0.8\"/>\n", x0, sy, x0 + CW, sy,
			  SVG_SLO_COLOR);
	}
	sbuf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" points=\"",
		  svg_color(wn->impl_idx));
	for (s = 0; s < wn->nsec; s++) {
		double v = wn->sec_p99[s];

		if (!isfinite(v))
			continue;
		sbuf_addf(out, "%s%.1f,%.1f", first ? "" : " ",
			  x0 + 2 + (CW - 4) * ((double)s + 0.5) / (double)wn->nsec,
			  y + CH - 14 - (CH - 18) * (v / top));
		first = 0;
	}
	sbuf_adds(out, "\"/>\n");
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#333\">", x0 + 3,
		  y + CH - 3);
	cells_block_text(wn->block, out);
	sbuf_addf(out, ", %s ", r->slo_label);
	report_fmt_sig(out, wn->pslo_ms);
	sbuf_adds(out, " ms</text>\n</g>\n");
}

void report_chart_seconds(const struct report *r, const char *title, struct sbuf *out)
{
	double w = LEFT + COLS * (CW + GAP) + 8, y = SVG_MT + 32;
	struct sbuf body = SBUF_INIT;
	size_t k, i, j, col;

	for (k = 0; k < r->nimpls; k++) {
		sbuf_addf(&body, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\" fill=\"%s\">", y + 12,
			  svg_color((int)k));
		sbuf_add_xml(&body, r->impls[k].name);
		sbuf_adds(&body, "</text>\n");
		y += 20;
		for (i = 0; i < r->nrungs; i++) {
			const struct report_rung *g = &r->rungs[i];
			double top;
			int any = 0;

			if (g->impl != (int)k)
				continue;
			top = nice_ceil(rung_top(r, g) * 1.05);
			sbuf_addf(&body, "<g class=\"rung\" data-scale-ms=\"%.6g\">"
				  "<text x=\"8\" y=\"%.1f\">%s ", top, y + 16, g->stage);
			svg_num(&body, g->rate);
			sbuf_addf(&body, " req/s</text><text x=\"8\" y=\"%.1f\" font-size=\"11\" "
				  "fill=\"#555\">scale 0 to ", y + 32);
			svg_num(&body, top);
			sbuf_adds(&body, " ms</text>\n");
			col = 0;
			for (j = 0; j < r->nwindows; j++) {
				if (!in_rung(&r->windows[j], g))
					continue;
				if (col == COLS) {
					col = 0;
					y += CH + GAP;
				}
				cell(r, &r->windows[j], LEFT + (double)col * (CW + GAP), y, top, &body);
				col++;
				any = 1;
			}
			sbuf_adds(&body, "</g>\n");
			y += any ? CH + GAP : 40;
		}
		y += 8;
	}
	svg_open(out, "per_second", title, w, y + 8);
	sbuf_addf(out, "<text x=\"8\" y=\"%.1f\" fill=\"#555\">one row per rung, one cell per window "
		  "(green: accepted; red edge: failed; grey, dashed: rejected);</text>\n"
		  "<text x=\"8\" y=\"%.1f\" fill=\"#555\">one scale per rung, from 0 ms at a cell's "
		  "foot to the scale at its top; the SLO dashed when in range</text>\n", SVG_MT + 2,
		  SVG_MT + 18);
	sbuf_add(out, body.buf, body.len);
	sbuf_adds(out, "</svg>\n");
	sbuf_release(&body);
}
