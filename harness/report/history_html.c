/*
 * history_html: `harness history --format html`, one page (html.h): per
 * implementation its steps, the knee per run as an inline SVG, and a
 * table of its runs.
 */
#include <math.h>

#include "report/history.h"
#include "report/history_out.h"
#include "report/html.h"
#include "base/util.h"

/* The knee per run with its interval as a whisker; a floor is an arrow
 * up from its rung; runs where a step lands are red. */
static void knee_svg(const struct history *h, const struct hist_impl *im, struct sbuf *o)
{
	const double W = 640, H = 220, L = 60, R = 20, T = 20, B = 40;
	double top = 0, x, y, y0, y1;
	size_t r, s, n = h->nruns;

	for (r = 0; r < n; r++) {
		const struct hval *v = &im->points[r].knee;
		if (!im->points[r].present || !isfinite(v->v))
			continue;
		top = fmax(top, v->v);
		if (v->has_ci && isfinite(v->hi))
			top = fmax(top, v->hi);
	}
	if (!(top > 0))
		return;
	top *= 1.15;
	sbuf_addf(o, "<svg data-chart=\"history_knee\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\""
		     " style=\"max-width:%.0fpx\" role=\"img\" aria-label=\"knee per run\">\n", W, H, W);
	sbuf_addf(o, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#444\"/>\n", L,
		  H - B, W - R, H - B);
	sbuf_addf(o, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#444\"/>\n", L, T,
		  L, H - B);
	sbuf_addf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.0f req/s</text>\n",
		  L - 4, T + 4, top);
	sbuf_addf(o, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
		  L - 4, H - B);
	for (r = 0; r < n; r++) {
		const struct hval *v = &im->points[r].knee;
		const char *color = "#1f5fa8";

		x = L + (W - L - R) * (n > 1 ? (double)r / (double)(n - 1) : 0.5);
		sbuf_addf(o, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">",
			  x, H - B + 14);
		sbuf_add_xml(o, h->runs[r].id);
		sbuf_adds(o, "</text>\n");
		if (!im->points[r].present || !isfinite(v->v))
			continue;
		for (s = 0; s < im->nsteps; s++)
			if (im->steps[s].run == r && im->steps[s].metric == HM_KNEE)
				color = "#c0392b";
		y = H - B - (H - T - B) * v->v / top;
		if (v->has_ci) {
			y0 = H - B - (H - T - B) * (isfinite(v->lo) ? v->lo : v->v) / top;
			y1 = isfinite(v->hi) ? H - B - (H - T - B) * v->hi / top : T;
			sbuf_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
				     " stroke-width=\"2\"/>\n", x, y0, x, y1, color);
		}
		sbuf_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", x, y, color);
		sbuf_add_xml(o, h->runs[r].id);
		sbuf_addf(o, ": %.0f req/s</title></circle>\n", v->v);
	}
	sbuf_adds(o, "</svg>\n");
}

static const char style[] =
	"body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:right}td:first-child{text-align:left}"
	".step{color:#c0392b;font-weight:bold}";

void history_html(const struct history *h, struct sbuf *out)
{
	struct sbuf md = SBUF_INIT;
	size_t k, j;

	sbuf_addf(&md, "History of %s", h->spec);
	html_page_open(out, md.buf, style, HTML_COMPACT);
	html_elem(out, "h1", NULL, md.buf, 0);
	sbuf_addf(out, "<p>%zu runs under ", h->nruns);
	sbuf_add_xml(out, h->runs_dir);
	sbuf_adds(out, ". A step is a change between consecutive runs whose intervals do not"
		       " overlap and that the next run keeps.</p>\n");
	for (k = 0; k < h->nimpls; k++) {
		const struct hist_impl *im = &h->impls[k];
		size_t r;

		html_elem(out, "h2", NULL, im->name, 0);
		sbuf_adds(out, "<ul>\n");
		for (j = 0; j < im->nsteps; j++) {
			sbuf_reset(&md);
			sbuf_adds(&md, "step ");
			hist_out_step(h, im, &im->steps[j], &md);
			html_elem(out, "li", "class=\"step\"", md.buf, 0);
		}
		if (!im->nsteps)
			sbuf_adds(out, "<li>no step</li>\n");
		sbuf_adds(out, "</ul>\n");
		knee_svg(h, im, out);
		sbuf_addf(out, "<table><tr><th>run</th><th>commit</th><th>knee (req/s)</th>"
			       "<th>p%g ms @ knee</th>", h->percentile);
		for (j = 0; j < im->nrates; j++)
			sbuf_addf(out, "<th>µs/request @ %.0f req/s</th>", im->rates[j]);
		for (j = 0; j < im->nrates; j++)
			sbuf_addf(out, "<th>MiB @ %.0f req/s</th>", im->rates[j]);
		for (j = 0; j < im->nrates; j++)
			sbuf_addf(out, "<th>p%g ms @ %.0f req/s</th>", h->percentile, im->rates[j]);
		sbuf_adds(out, "</tr>\n");
		for (r = 0; r < h->nruns; r++) {
			const struct hist_point *p = &im->points[r];

			if (!p->present)
				continue;
			sbuf_adds(out, "<tr>");
			html_elem(out, "td", NULL, h->runs[r].id, HTML_INLINE);
			sbuf_addf(out, "<td>%.12s</td>", h->runs[r].commits[k] ?
				  h->runs[r].commits[k] : "-");
			for (j = 0; j < 2 + 3 * im->nrates; j++) {
				sbuf_reset(&md);
				if (j == 0)
					hist_out_knee(&md, p);
				else if (j == 1)
					hist_out_knee_lat(&md, p);
				else if (j - 2 < im->nrates)
					hist_out_hval(&md, &p->cost[j - 2], HM_COST);
				else if (j - 2 < 2 * im->nrates)
					hist_out_hval(&md, &p->mem[j - 2 - im->nrates], HM_MEMORY);
				else
					hist_out_hval(&md, &p->lat[j - 2 - 2 * im->nrates], HM_LATENCY);
				html_elem(out, "td", NULL, md.buf, HTML_INLINE);
			}
			sbuf_adds(out, "</tr>\n");
		}
		sbuf_adds(out, "</table>\n");
	}
	html_page_close(out, HTML_COMPACT);
	sbuf_release(&md);
}
