/*
 * history_md: `harness history --format md`, a document (report_doc.h)
 * written by rdoc_md(): per implementation its steps and a table of its
 * runs.
 */
#include <string.h>

#include "report/history.h"
#include "report/history_out.h"
#include "report/report_doc.h"
#include "base/util.h"

/* One implementation's rows: run (strong where a step lands), date,
 * commit, status, knee, the latency at it, then cost, memory and latency
 * at each fixed rate. */
static void md_rows(const struct history *h, size_t k, struct rdoc_block *t, struct sbuf *c)
{
	const struct hist_impl *im = &h->impls[k];
	size_t r, s;

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
		hist_out_point_cells(t, im, p, c);
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
		hist_out_step(h, im, &im->steps[j], c);
		rdoc_cell(t, c);
	}
	sbuf_addf(c, "p%g ms @ knee", h->percentile);
	t = rdoc_table(d, "history", 6, "run", "date (UTC)", "commit", "status", "knee (req/s)",
		       c->buf);
	sbuf_reset(c);
	t->ncols += 3 * im->nrates;
	for (j = 0; j < 3 * im->nrates; j++) {
		hist_out_rate_head(c, h, im, j);
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
