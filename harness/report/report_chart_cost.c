/*
 * report_chart_cost: cpu_per_request and memory, each rung's pooled value
 * vs offered rate per implementation (report_rollup.c: sum of CPU / sum
 * of completed requests, p99 of the pooled anon samples; accepted windows
 * only). Ladder rungs are joined in rate order; a rung without an
 * accepted window breaks the line (a gap, marked data-gap on the axis)
 * instead of being bridged. Confirm and soak rungs are rings.
 */
#include "report/report.h"
#include "report/report_svg.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

static double rung_value(const struct report_rung *g, int mem)
{
	return mem ? g->anon_p99 / 1048576.0 : REPORT_CPU_US(g->cpu_ms_per_req);
}

/* Implementation k's ladder line: segments between consecutive rungs
 * that both have a value; a gap mark at each rung that has none. */
static void ladder_line(const struct report *r, const struct plot *p, int k, int mem,
			struct sbuf *out)
{
	struct sbuf d = SBUF_INIT;
	int pen = 0;
	size_t i;

	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];
		double v = rung_value(g, mem), x;

		if (g->impl != k || strcmp(g->stage, "ladder") || !svg_in_axis(&p->x, g->rate))
			continue;
		x = svg_amap(&p->x, g->rate);
		if (!svg_in_axis(&p->y, v) || !g->accepted) {
			pen = 0;
			sbuf_addf(out, "<path data-gap=\"%d\" d=\"M%.1f %.1fl-4 -7h8z\" fill=\"#fff\" "
				  "stroke=\"%s\" stroke-width=\"1.5\"><title>", k, x, p->y.p0 - 1,
				  svg_color(k));
			sbuf_add_xml(out, r->impls[k].name);
			sbuf_addf(out, " %.0f req/s: no accepted window (%zu of %zu windows; "
				  "failed or rejected)</title></path>\n", g->rate, g->total - g->accepted,
				  g->total);
			continue;
		}
		sbuf_addf(&d, "%s%.1f %.1f", pen ? "L" : "M", x, svg_amap(&p->y, v));
		pen = 1;
	}
	if (d.len)
		sbuf_addf(out, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			  d.buf, svg_color(k));
	sbuf_release(&d);
}

static void chart_cost(const struct report *r, struct sbuf *out, const char *name,
		       const char *title, int mem)
{
	struct plot p = { .w = 760, .h = 340 };
	double hi = 0, y;
	size_t i, k;

	for (i = 0; i < r->nrungs; i++) {
		double v = rung_value(&r->rungs[i], mem);

		if (isfinite(v) && v > hi)
			hi = v;
	}
	svg_rate_axis(r, &p.x, p.w);
	svg_linear_axis(&p.y, hi, p.h);
	svg_open(out, name, title, p.w, p.h);
	svg_frame(out, &p, p.x.log ? "offered rate (req/s, log scale)" : "offered rate (req/s)",
		  mem ? "anon memory p99 (MiB)" : "CPU per request (µs)");
	if (!(hi > 0))
		svg_note(out, &p, "no accounting data in accepted windows");
	for (k = 0; k < r->nimpls; k++) {
		ladder_line(r, &p, (int)k, mem, out);
		for (i = 0; i < 2 * r->nrungs; i++) {   /* confirm/soak first, ladder on top */
			const struct report_rung *g = &r->rungs[i % r->nrungs];
			double v = rung_value(g, mem);
			int ladder = !strcmp(g->stage, "ladder");

			if (g->impl != (int)k || ladder != (i >= r->nrungs) || !g->accepted ||
			    !svg_in_axis(&p.y, v) || !svg_in_axis(&p.x, g->rate))
				continue;
			sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\" "
				  "stroke-width=\"2\"><title>", svg_amap(&p.x, g->rate),
				  svg_amap(&p.y, v), ladder ? "3.5" : "7", ladder ? svg_color((int)k) : "#fff",
				  svg_color((int)k));
			sbuf_add_xml(out, r->impls[k].name);
			sbuf_addf(out, " %s %.0f req/s: ", g->stage, g->rate);
			report_fmt_sig(out, v);
			sbuf_addf(out, " %s (%zu/%zu windows accepted)</title></circle>\n",
				  mem ? "MiB" : "µs per request", g->accepted, g->total);
		}
	}
	y = svg_legend_impls(out, r, &p);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">filled: ladder</text>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">rings: confirm/soak</text>"
		  "<path d=\"M%.1f %.1fl-4 -7h8z\" fill=\"#fff\" stroke=\"#777\" stroke-width=\"1.5\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">no valid window</text>\n",
		  p.x.p1 + 14, y + 6, p.x.p1 + 14, y + 24, p.x.p1 + 21, y + 44, p.x.p1 + 34, y + 42);
	sbuf_adds(out, "</svg>\n");
}

void report_chart_cpu(const struct report *r, const char *title, struct sbuf *out)
{
	chart_cost(r, out, "cpu_per_request", title, 0);
}

void report_chart_memory(const struct report *r, const char *title, struct sbuf *out)
{
	chart_cost(r, out, "memory", title, 1);
}
