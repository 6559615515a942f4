/*
 * history_html: `harness history --format html`, a document
 * (report_doc.h) written by rdoc_html(): per implementation its steps,
 * the knee per run as an inline SVG, and a table of its runs.
 */
#include <math.h>
#include <string.h>

#include "report/history.h"
#include "report/history_out.h"
#include "report/report_doc.h"
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

/* chart slot k: implementation k's knees */
static void knee_chart(const void *h, size_t k, struct sbuf *out)
{
	knee_svg(h, &((const struct history *)h)->impls[k], out);
}

/* One implementation's runs: run, commit, knee, the latency at it, then
 * cost, memory and latency at each fixed rate. */
static void html_rows(const struct history *h, size_t k, struct rdoc_block *t, struct sbuf *c)
{
	const struct hist_impl *im = &h->impls[k];
	size_t r;

	for (r = 0; r < h->nruns; r++) {
		const struct hist_point *p = &im->points[r];

		if (!p->present)
			continue;
		rdoc_push_cell(t, h->runs[r].id);
		rdoc_cellf(t, "%.12s", h->runs[r].commits[k] ? h->runs[r].commits[k] : "-");
		hist_out_point_cells(t, im, p, c);
	}
}

/* Its heading, its steps (emphasised) or "no step", its knee chart and
 * the table of its runs. */
static void html_impl(const struct history *h, size_t k, struct rdoc *d, struct sbuf *c)
{
	const struct hist_impl *im = &h->impls[k];
	struct rdoc_block *t;
	size_t j;

	rdoc_add(d, RDOC_H2, im->name);
	t = rdoc_list(d);
	for (j = 0; j < im->nsteps; j++) {
		sbuf_adds(c, RDOC_STRONG "step ");
		hist_out_step(h, im, &im->steps[j], c);
		rdoc_cell(t, c);
	}
	if (!im->nsteps)
		rdoc_push_cell(t, "no step");
	rdoc_add(d, RDOC_CHART, NULL)->chart = k;
	sbuf_addf(c, "p%g ms @ knee", h->percentile);
	t = rdoc_table(d, NULL, 4, "run", "commit", "knee (req/s)", c->buf);
	sbuf_reset(c);
	t->ncols += 3 * im->nrates;
	for (j = 0; j < 3 * im->nrates; j++) {
		hist_out_rate_head(c, h, im, j);
		sbuf_adds(c, " req/s");
		rdoc_cell(t, c);
	}
	html_rows(h, k, t, c);
}

void history_html(const struct history *h, struct sbuf *out)
{
	struct sbuf c = SBUF_INIT, title = SBUF_INIT;
	struct rdoc_html how = { .style = style, .flags = RDOC_HTML_COMPACT,
				 .strong_item = "step", .chart = knee_chart, .ctx = h };
	struct rdoc d;
	size_t k;

	memset(&d, 0, sizeof(d));
	sbuf_addf(&title, "History of %s", h->spec);
	how.title = title.buf;
	rdoc_add(&d, RDOC_TITLE, title.buf);
	rdoc_addf(&d, RDOC_P, "%zu runs under %s. A step is a change between consecutive runs"
		  " whose intervals do not overlap and that the next run keeps.", h->nruns,
		  h->runs_dir);
	for (k = 0; k < h->nimpls; k++)
		html_impl(h, k, &d, &c);
	rdoc_html(&d, &how, out);
	rdoc_release(&d);
	sbuf_release(&c);
	sbuf_release(&title);
}
