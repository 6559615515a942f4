/* history_out: `harness history` as markdown (a document, report_doc.h), JSON and
 * HTML (history.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/history.h"
#include "report/report_doc.h"
#include "base/jout.h"
#include "base/util.h"
#include "report/html.h"

/* ------------------------------------------------------------- helpers */

/* Rates to the request per second, costs and memory to three figures. */
static void fmt_num(struct sbuf *o, double v, enum hist_metric m)
{
	if (isinf(v))
		sbuf_adds(o, v > 0 ? "inf" : "-inf");
	else if (!isfinite(v))
		sbuf_adds(o, "-");
	else if (m == HM_KNEE || fabs(v) >= 100)
		sbuf_addf(o, "%.0f", v);
	else if (fabs(v) >= 10)
		sbuf_addf(o, "%.1f", v);
	else
		sbuf_addf(o, "%.2f", v);
}

static void fmt_hval(struct sbuf *o, const struct hval *v, enum hist_metric m)
{
	if (!isfinite(v->v)) {
		sbuf_adds(o, "-");
		return;
	}
	fmt_num(o, v->v, m);
	if (v->has_ci) {
		sbuf_adds(o, " [");
		fmt_num(o, v->lo, m);
		sbuf_adds(o, ", ");
		fmt_num(o, v->hi, m);
		sbuf_adds(o, "]");
	}
}

static void fmt_knee(struct sbuf *o, const struct hist_point *p)
{
	switch (p->knee_kind) {
	case KNEE_NONE:
		sbuf_adds(o, "-");
		return;
	case KNEE_FLOOR:
		sbuf_adds(o, ">= ");
		fmt_num(o, p->knee.v, HM_KNEE);
		return;
	case KNEE_BRACKET:
		sbuf_adds(o, "<= ");
		fmt_hval(o, &p->knee, HM_KNEE);
		return;
	case KNEE_POINT:
		fmt_hval(o, &p->knee, HM_KNEE);
		return;
	}
}

static const char *unit(enum hist_metric m)
{
	return m == HM_KNEE ? "req/s" : m == HM_COST ? "µs/request" : m == HM_MEMORY ? "MiB" : "ms";
}

static void step_text(const struct history *h, const struct hist_impl *im,
		      const struct hist_step *s, struct sbuf *o)
{
	sbuf_addf(o, "%s: %s", h->runs[s->run].id, history_metric_name(s->metric));
	if (s->metric != HM_KNEE)
		sbuf_addf(o, " at %.0f req/s", im->rates[s->rate]);
	sbuf_adds(o, " ");
	fmt_num(o, s->from, s->metric);
	sbuf_adds(o, " -> ");
	fmt_num(o, s->to, s->metric);
	sbuf_addf(o, " %s, %s%s", unit(s->metric), s->regression ? "regression" : "improvement",
		  s->confirmed ? "" : " (last run: not yet confirmed by a later one)");
}

/* The latency at the knee's held rung: "4.10 [3.90, 4.30] @ 300", or "-". */
static void fmt_knee_lat(struct sbuf *o, const struct hist_point *p)
{
	fmt_hval(o, &p->knee_lat, HM_LATENCY);
	if (isfinite(p->knee_lat.v))
		sbuf_addf(o, " @ %.0f", p->held_rps);
}

/* ------------------------------------------------------------- markdown */

/* One implementation's rows: run (strong where a step lands), date,
 * commit, status, knee, the latency at it, then cost, memory and latency
 * at each fixed rate. */
static void md_rows(const struct history *h, size_t k, struct rdoc_block *t, struct sbuf *c)
{
	const struct hist_impl *im = &h->impls[k];
	size_t r, s, j;

	for (r = 0; r < h->nruns; r++) {
		const struct hist_point *p = &im->points[r];
		int stepped = 0;

		if (!p->present)
			continue;
		for (s = 0; s < im->nsteps; s++)
			stepped |= im->steps[s].run == r;
		rdoc_cellf(t, "%s%s", stepped ? RDOC_STRONG : "", h->runs[r].id);
		sbuf_add_utc(c, h->runs[r].created_at, "%Y-%m-%d %H:%M");
		rdoc_cell(t, c);
		rdoc_cellf(t, "%.12s", h->runs[r].commits[k] ? h->runs[r].commits[k] : "-");
		rdoc_cellf(t, "%s", h->runs[r].status);
		fmt_knee(c, p);
		rdoc_cell(t, c);
		fmt_knee_lat(c, p);
		rdoc_cell(t, c);
		for (j = 0; j < 3 * im->nrates; j++) {
			const struct hval *v = j < im->nrates ? &p->cost[j] :
					       j < 2 * im->nrates ? &p->mem[j - im->nrates] :
					       &p->lat[j - 2 * im->nrates];

			fmt_hval(c, v, j < im->nrates ? HM_COST : j < 2 * im->nrates ? HM_MEMORY :
				 HM_LATENCY);
			rdoc_cell(t, c);
		}
	}
}

static void md_impl(const struct history *h, size_t k, struct rdoc *d, struct sbuf *c)
{
	const struct hist_impl *im = &h->impls[k];
	struct rdoc_block *t;
	size_t j;

	rdoc_addf(d, RDOC_H2, "`%s`", im->name);
	if (!im->nsteps)
		rdoc_add(d, RDOC_P, "No step.");
	t = im->nsteps ? rdoc_list(d) : NULL;
	for (j = 0; j < im->nsteps; j++) {
		sbuf_adds(c, "**step** ");
		step_text(h, im, &im->steps[j], c);
		rdoc_cell(t, c);
	}
	sbuf_addf(c, "p%g ms @ knee", h->percentile);
	t = rdoc_table(d, "history", 6, "run", "date (UTC)", "commit", "status", "knee (req/s)",
		       c->buf);
	sbuf_reset(c);
	t->ncols += 3 * im->nrates;
	for (j = 0; j < 3 * im->nrates; j++) {
		if (j < im->nrates)
			sbuf_addf(c, "µs/request @ %.0f", im->rates[j]);
		else if (j < 2 * im->nrates)
			sbuf_addf(c, "MiB @ %.0f", im->rates[j - im->nrates]);
		else
			sbuf_addf(c, "p%g ms @ %.0f", h->percentile, im->rates[j - 2 * im->nrates]);
		rdoc_cell(t, c);
	}
	md_rows(h, k, t, c);
}

void history_md(const struct history *h, struct sbuf *out)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc d;
	size_t k;

	memset(&d, 0, sizeof(d));
	rdoc_addf(&d, RDOC_TITLE, "History of `%s`: %zu run%s under %s", h->spec, h->nruns,
		  h->nruns == 1 ? "" : "s", h->runs_dir);
	rdoc_addf(&d, RDOC_P, "Per implementation and run: the knee with its interval, cost per"
		  " request (µs), memory (MiB) and the p%g latency (ms) at the ladder's fixed rates"
		  " with their 95%% intervals, and the p%g latency at the highest rate the knee holds"
		  " at. A step is a change between consecutive runs whose intervals do not overlap,"
		  " larger than the margin (%g%%), that the next run keeps (docs/history.md).",
		  h->percentile, h->percentile, h->margin_pct);
	for (k = 0; k < h->nimpls; k++)
		md_impl(h, k, &d, &c);
	rdoc_md(&d, RDOC_MD_TIGHT, out);
	rdoc_release(&d);
	sbuf_release(&c);
}

/* ----------------------------------------------------------------- JSON */

static json_t *hval_json(const struct hval *v)
{
	json_t *o = json_object();

	jout_set(o, "value", jout_num(v->v), "lo", v->has_ci ? jout_num(v->lo) : json_null(),
		 "hi", v->has_ci ? jout_num(v->hi) : json_null(),
		 "windows", json_integer((json_int_t)v->n), NULL);
	return o;
}

static const char *kind_name(enum knee_kind k)
{
	return k == KNEE_POINT ? "point" : k == KNEE_BRACKET ? "bracket" : k == KNEE_FLOOR ? "floor"
											     : "none";
}

static json_t *impl_json(const struct history *h, size_t k)
{
	const struct hist_impl *im = &h->impls[k];
	json_t *o = json_object(), *rates = json_array(), *pts = json_array(), *steps = json_array();
	size_t r, j;

	json_object_set_new(o, "name", jout_str(im->name));
	for (j = 0; j < im->nrates; j++)
		json_array_append_new(rates, json_real(im->rates[j]));
	json_object_set_new(o, "rates_rps", rates);
	for (r = 0; r < h->nruns; r++) {
		const struct hist_point *p = &im->points[r];
		json_t *po, *c, *m, *l, *kn;

		if (!p->present)
			continue;
		po = json_object();
		json_object_set_new(po, "run", jout_str(h->runs[r].id));
		json_object_set_new(po, "commit", jout_str(h->runs[r].commits[k]));
		kn = hval_json(&p->knee);
		json_object_set_new(kn, "kind", json_string(kind_name(p->knee_kind)));
		json_object_set_new(po, "knee_rps", kn);
		kn = hval_json(&p->knee_lat);
		json_object_set_new(kn, "rate_rps", jout_num(p->held_rps));
		json_object_set_new(po, "knee_latency_ms", kn);
		c = json_array();
		m = json_array();
		l = json_array();
		for (j = 0; j < im->nrates; j++) {
			json_array_append_new(c, hval_json(&p->cost[j]));
			json_array_append_new(m, hval_json(&p->mem[j]));
			json_array_append_new(l, hval_json(&p->lat[j]));
		}
		jout_set(po, "cpu_us_per_request", c, "memory_mib", m, "latency_ms", l, NULL);
		json_array_append_new(pts, po);
	}
	json_object_set_new(o, "points", pts);
	for (j = 0; j < im->nsteps; j++) {
		const struct hist_step *s = &im->steps[j];
		json_t *so = json_object();

		jout_set(so, "run", jout_str(h->runs[s->run].id),
			 "metric", json_string(history_metric_name(s->metric)),
			 "rate_rps", s->metric == HM_KNEE ? json_null() : json_real(im->rates[s->rate]),
			 "from", jout_num(s->from), "to", jout_num(s->to),
			 "direction", json_string(s->regression ? "regression" : "improvement"),
			 "confirmed", json_boolean(s->confirmed), NULL);
		json_array_append_new(steps, so);
	}
	json_object_set_new(o, "steps", steps);
	return o;
}

char *history_json(const struct history *h)
{
	json_t *o = json_object(), *runs = json_array(), *impls = json_array();
	size_t r, k;

	jout_set(o, "spec", jout_str(h->spec), "runs_dir", jout_str(h->runs_dir),
		 "percentile", json_real(h->percentile), NULL);
	for (r = 0; r < h->nruns; r++) {
		json_t *ro = json_object();

		jout_set(ro, "id", jout_str(h->runs[r].id),
			 "created_at", jout_num(h->runs[r].created_at),
			 "status", jout_str(h->runs[r].status), NULL);
		json_array_append_new(runs, ro);
	}
	json_object_set_new(o, "runs", runs);
	for (k = 0; k < h->nimpls; k++)
		json_array_append_new(impls, impl_json(h, k));
	json_object_set_new(o, "impls", impls);
	return jout_dumps(o);
}

/* ----------------------------------------------------------------- HTML */

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
			step_text(h, im, &im->steps[j], &md);
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
					fmt_knee(&md, p);
				else if (j == 1)
					fmt_knee_lat(&md, p);
				else if (j - 2 < im->nrates)
					fmt_hval(&md, &p->cost[j - 2], HM_COST);
				else if (j - 2 < 2 * im->nrates)
					fmt_hval(&md, &p->mem[j - 2 - im->nrates], HM_MEMORY);
				else
					fmt_hval(&md, &p->lat[j - 2 - 2 * im->nrates], HM_LATENCY);
				html_elem(out, "td", NULL, md.buf, HTML_INLINE);
			}
			sbuf_adds(out, "</tr>\n");
		}
		sbuf_adds(out, "</table>\n");
	}
	html_page_close(out, HTML_COMPACT);
	sbuf_release(&md);
}
