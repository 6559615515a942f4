/*
 * history_out: what `harness history`'s Markdown (history_md.c) and HTML
 * (history_html.c) say alike (history_out.h): a value with its interval,
 * a knee, the latency at it, a step, the fixed-rate columns.
 */
#include <math.h>

#include "report/history_out.h"
#include "report/report_doc.h"
#include "base/util.h"

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

void hist_out_hval(struct sbuf *o, const struct hval *v, enum hist_metric m)
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

void hist_out_knee(struct sbuf *o, const struct hist_point *p)
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
		hist_out_hval(o, &p->knee, HM_KNEE);
		return;
	case KNEE_POINT:
		hist_out_hval(o, &p->knee, HM_KNEE);
		return;
	}
}

static const char *unit(enum hist_metric m)
{
	return m == HM_KNEE ? "req/s" : m == HM_COST ? "µs/request" : m == HM_MEMORY ? "MiB" : "ms";
}

void hist_out_step(const struct history *h, const struct hist_impl *im,
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

void hist_out_knee_lat(struct sbuf *o, const struct hist_point *p)
{
	hist_out_hval(o, &p->knee_lat, HM_LATENCY);
	if (isfinite(p->knee_lat.v))
		sbuf_addf(o, " @ %.0f", p->held_rps);
}

void hist_out_rate_head(struct sbuf *o, const struct history *h, const struct hist_impl *im,
			size_t j)
{
	size_t n = im->nrates;

	if (j < n)
		sbuf_addf(o, "µs/request @ %.0f", im->rates[j]);
	else if (j < 2 * n)
		sbuf_addf(o, "MiB @ %.0f", im->rates[j - n]);
	else
		sbuf_addf(o, "p%g ms @ %.0f", h->percentile, im->rates[j - 2 * n]);
}

void hist_out_point_cells(struct rdoc_block *t, const struct hist_impl *im,
			 const struct hist_point *p, struct sbuf *c)
{
	size_t j, n = im->nrates;

	hist_out_knee(c, p);
	rdoc_cell(t, c);
	hist_out_knee_lat(c, p);
	rdoc_cell(t, c);
	for (j = 0; j < 3 * n; j++) {
		if (j < n)
			hist_out_hval(c, &p->cost[j], HM_COST);
		else if (j < 2 * n)
			hist_out_hval(c, &p->mem[j - n], HM_MEMORY);
		else
			hist_out_hval(c, &p->lat[j - 2 * n], HM_LATENCY);
		rdoc_cell(t, c);
	}
}
