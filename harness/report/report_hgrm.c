/*
 * report_hgrm: `harness report RUN --format hgrm`, the merged latency
 * distribution of every (implementation, stage, rate) in HdrHistogram's
 * percentile-distribution text (hist_hgrm(), milliseconds), one file each
 * under DIR/hgrm/: IMPL_STAGE_RATErps.hgrm, readable by HdrHistogram's
 * plotters. Accepted windows only, merged (never averaged), as every
 * percentile of the report.
 */
#include "base/rate.h"
#include "report/report.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

/* A file name part: letters, digits, '-', '.' kept, anything else '_'. */
static void name_part(struct sbuf *out, const char *s)
{
	for (; *s; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.')
			sbuf_add(out, s, 1);
		else
			sbuf_adds(out, "_");
	}
}

void report_hgrm_path(const struct report *r, const struct report_rung *g, struct sbuf *out)
{
	name_part(out, r->impls[g->impl].name);
	sbuf_adds(out, "_");
	name_part(out, g->stage);
	sbuf_addf(out, "_%.10grps.hgrm", g->rate);
}

void report_hgrm_rung(const struct report *r, const struct report_rung *g, struct sbuf *out)
{
	struct hist h;
	size_t i;

	hist_init(&h);
	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (w->impl_idx == g->impl && w->accepted && w->has_hist &&
		    !strcmp(w->stage, g->stage) && rate_same(w->rate, g->rate))
			hist_merge(&h, &w->lat);
	}
	hist_hgrm(&h, 1e6, 5, out);
	hist_release(&h);
}

int report_write_hgrm(const struct report *r, const char *dir)
{
	struct sbuf path = SBUF_INIT, body = SBUF_INIT;
	size_t i;
	int ret = -1;

	sbuf_addf(&path, "%s/hgrm", dir);
	if (mkdir_p(path.buf, 0755))
		goto out;
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		if (!g->accepted)
			continue;
		sbuf_reset(&body);
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/hgrm/", dir);
		report_hgrm_path(r, g, &path);
		report_hgrm_rung(r, g, &body);
		if (write_file(path.buf, body.buf, body.len))
			goto out;
	}
	ret = 0;
out:
	sbuf_release(&path);
	sbuf_release(&body);
	return ret;
}
