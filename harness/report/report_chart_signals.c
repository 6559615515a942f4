/*
 * report_chart_signals: each derived signal (report_signals.c) vs offered
 * rate, one panel per signal stacked in one chart: per implementation its
 * rung means joined in rate order (ladder), each with a bar from the
 * lowest to the highest accepted window. A spec without derived signals
 * gets a note instead.
 */
#include "report/report.h"
#include "report/report_study.h"
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

#define PANEL_H 300.0

/* Signal names in first-seen order: their count; names[] borrowed. */
static size_t signal_names(const struct report_study *s, const char **names, size_t max)
{
	size_t i, k, n = 0;

	for (i = 0; s && i < s->nsigdefs; i++) {
		for (k = 0; k < n && strcmp(names[k], s->sigdefs[i].name); k++)
			;
		if (k == n && n < max)
			names[n++] = s->sigdefs[i].name;
	}
	return n;
}

static void panel(const struct report *r, const char *name, struct sbuf *out)
{
	const struct report_study *s = r->study;
	struct plot p = { .w = 760, .h = PANEL_H };
	double hi = 0;
	size_t i;
	int k;

	for (i = 0; i < s->nsigrungs; i++)
		if (!strcmp(s->sigrungs[i].name, name) && isfinite(s->sigrungs[i].hi) &&
		    s->sigrungs[i].hi > hi)
			hi = s->sigrungs[i].hi;
	svg_rate_axis(r, &p.x, p.w);
	svg_linear_axis(&p.y, hi, p.h);
	svg_frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)", name);
	if (!(hi > 0))
		svg_note(out, &p, "no positive value in accepted windows");
	for (k = 0; k < (int)r->nimpls; k++) {
		struct sbuf d = SBUF_INIT;

		for (i = 0; i < s->nsigrungs; i++) {
			const struct report_sigrung *g = &s->sigrungs[i];
			double x;

			if (g->impl != k || strcmp(g->name, name) || !g->computed ||
			    !svg_in_axis(&p.x, g->rate) || !svg_in_axis(&p.y, g->mean))
				continue;
			x = svg_amap(&p.x, g->rate);
			if (!strcmp(g->stage, "ladder"))
				sbuf_addf(&d, "%s%.1f %.1f", d.len ? "L" : "M", x, svg_amap(&p.y, g->mean));
			sbuf_addf(out, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
				  x, svg_amap(&p.y, g->lo), svg_amap(&p.y, g->hi), svg_color(k));
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", x,
				  svg_amap(&p.y, g->mean), svg_color(k));
			sbuf_add_xml(out, r->impls[k].name);
			sbuf_addf(out, " %s %.0f req/s: mean ", g->stage, g->rate);
			report_fmt_sig(out, g->mean);
			sbuf_adds(out, ", range ");
			report_fmt_sig(out, g->lo);
			sbuf_adds(out, " - ");
			report_fmt_sig(out, g->hi);
			sbuf_addf(out, " (%zu of %zu windows)</title></circle>\n", g->computed, g->windows);
		}
		if (d.len)
			sbuf_addf(out, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				  d.buf, svg_color(k));
		sbuf_release(&d);
	}
	svg_legend_impls(out, r, &p);
}

void report_chart_signals(const struct report *r, const char *title, struct sbuf *out)
{
	const char *names[16];
	size_t n = signal_names(r->study, names, ARRAY_SIZE(names)), i;
	struct plot p = { .w = 760, .h = PANEL_H };

	svg_open(out, "signals", title, 760, n ? PANEL_H * (double)n : PANEL_H);
	if (!n) {
		svg_rate_axis(r, &p.x, p.w);
		svg_linear_axis(&p.y, 1, p.h);
		svg_frame(out, &p, "offered rate (req/s)", "value");
		svg_note(out, &p, "the spec declares no derived signal (stats.signals \"= EXPR\")");
	}
	for (i = 0; i < n; i++) {
		sbuf_addf(out, "<g transform=\"translate(0 %.0f)\">\n", PANEL_H * (double)i);
		panel(r, names[i], out);
		sbuf_adds(out, "</g>\n");
	}
	sbuf_adds(out, "</svg>\n");
}
