/*
 * report_chart_rejections: rejections, the windows each gate failed
 * (solid: valid, over the SLO) or rejected (pale with a grey edge: void)
 * per implementation, of its finished windows. Bars carry
 * data-status="failed|rejected".
 */
#include "report/report.h"
#include "report/report_svg.h"

#include "base/util.h"

void report_chart_rejections(const struct report *r, const char *title, struct sbuf *out)
{
	double bar = 14, row = bar * (double)(r->nimpls ? r->nimpls : 1) + 12;
	double w = 760, left = 170, right = 150;
	double h = SVG_MT + 30 + row * (double)(r->ngate_fails ? r->ngate_fails : 1) + 20;
	size_t i, k, max = 1;

	for (k = 0; k < r->nimpls; k++)
		if (r->impls[k].total > max)
			max = r->impls[k].total;
	w += 60; /* room for "n failed, m rejected /t" */
	svg_open(out, "rejections", title, w, h);
	sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">windows each gate failed (solid: "
		  "valid, over the SLO) or rejected (pale, grey edge: void), of each implementation's "
		  "finished windows</text>\n", 8.0, SVG_MT + 6);
	if (!r->ngate_fails)
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#888\">no window failed or was "
			  "rejected</text>\n", left, SVG_MT + 40);
	for (i = 0; i < r->ngate_fails; i++) {
		double y0 = SVG_MT + 24 + row * (double)i;

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
				  bar - 2, svg_color((int)k));
			sbuf_add_xml(out, im->name);
			sbuf_adds(out, ": ");
			sbuf_add_xml(out, r->gate_fails[i].name);
			sbuf_addf(out, " failed %zu of %zu windows</title></rect>", nf, im->total);
			sbuf_addf(out, "<rect data-status=\"rejected\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				  "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.3\" stroke=\"%s\" "
				  "stroke-width=\"%s\"><title>", left + fw, y, bw > 0 ? bw : 0.5, bar - 2,
				  svg_color((int)k), SVG_REJECTED_COLOR, bw > 0 ? "1" : "0");
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
		double x = w - right + 14, y = SVG_MT + 24 + 20 * (double)k;

		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\">", x, y, svg_color((int)k), x + 20, y + 9);
		sbuf_add_xml(out, r->impls[k].name);
		sbuf_adds(out, "</text>\n");
	}
	sbuf_adds(out, "</svg>\n");
}

