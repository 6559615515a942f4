/*
 * report_doc_prov: the sections about where the numbers come from: the
 * dependencies' headroom and the provenance (run, spec, versions,
 * implementations' commits, host facts, events).
 */
#include "report_doc.h"
#include "spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* ------------------------------------------------------------ sections */

/* Dependencies' accounting grouped by dependency, stage and rate. */
struct dep_group {
	const char *name, *stage;
	double rate;
	size_t n, exited;
	double cores_sum, ncpus, peak_pct;
	int64_t throttled;           /* -1: not counted */
};

static const struct report_window *window_by_id(const struct report *r, int64_t id)
{
	size_t i;

	for (i = 0; i < r->nwindows; i++)
		if (r->windows[i].id == id)
			return &r->windows[i];
	return NULL;
}

static void dep_group_add(struct dep_group *g, const struct report_dep *d)
{
	double used = d->duration_s > 0 ? d->cpu_s / d->duration_s : NAN;

	g->n++;
	g->exited += d->exited != 0;
	if (isfinite(used)) {
		g->cores_sum += used;
		if (d->ncpus > 0 && 100 * used / d->ncpus > g->peak_pct)
			g->peak_pct = 100 * used / d->ncpus;
	}
	g->ncpus = d->ncpus;
	if (d->nr_throttled >= 0)
		g->throttled = (g->throttled < 0 ? 0 : g->throttled) + d->nr_throttled;
}

/* Headroom per rung: how much of its cores each dependency used, so "the
 * database never broke" is measured. */
void rdoc_dependencies(const struct report *r, struct rdoc *d)
{
	struct dep_group *g = NULL;
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i, k, ng = 0, ag = 0;

	if (!r->ndep_rows)
		return;
	rdoc_add(d, RDOC_H2, "Dependencies");
	rdoc_add(d, RDOC_P, "Each dependency's CPU over the measured windows, in cores and as a share "
	    "of the cores it may use (its cpus, else every online cpu); dependency_headroom "
	    "rejects a window above its max_cpu_pct (default 90%), throttled, or with the "
	    "dependency exiting.");
	for (i = 0; i < r->ndep_rows; i++) {
		const struct report_window *w = window_by_id(r, r->dep_rows[i].window_id);
		const char *stage = w ? w->stage : "?";
		double rate = w ? w->rate : NAN;

		for (k = 0; k < ng; k++)
			if (!strcmp(g[k].name, r->dep_rows[i].name) && !strcmp(g[k].stage, stage) &&
			    g[k].rate == rate)
				break;
		if (k == ng) {
			XGROW(g, ag, ng + 1);
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng].name = r->dep_rows[i].name;
			g[ng].stage = stage;
			g[ng].rate = rate;
			g[ng].throttled = -1;
			ng++;
		}
		dep_group_add(&g[k], &r->dep_rows[i]);
	}
	t = rdoc_table(d, "dependency_headroom", 8, "dependency", "stage", "rate", "windows",
		  "cores used (mean)", "of cores", "peak % of its cores", "throttled / exited");
	for (k = 0; k < ng; k++) {
		rdoc_cellf(t, "%s", g[k].name);
		rdoc_cellf(t, "%s", g[k].stage);
		report_fmt_rate(&c, g[k].rate);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%zu", g[k].n);
		rdoc_cellf(t, "%.2f", g[k].cores_sum / (double)g[k].n);
		report_fmt_num(&c, g[k].ncpus, 0);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%s%.1f", g[k].peak_pct > 90 ? RDOC_STRONG : "", g[k].peak_pct);
		if (g[k].throttled < 0)
			rdoc_cellf(t, "- / %zu", g[k].exited);
		else
			rdoc_cellf(t, "%lld / %zu", (long long)g[k].throttled, g[k].exited);
	}
	free(g);
	sbuf_release(&c);
}

void rdoc_provenance(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	rdoc_add(d, RDOC_H2, "Provenance");
	t = rdoc_table(d, "provenance", 2, "field", "value");
	rdoc_cellf(t, "run");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->run_id));
	rdoc_cellf(t, "status");
	rdoc_cellf(t, "%s%s%s", rdoc_or_dash(r->status), r->failure ? ": " : "", r->failure ? r->failure : "");
	rdoc_cellf(t, "spec");
	rdoc_cellf(t, "%s (%s)", rdoc_or_dash(r->spec_name), rdoc_or_dash(r->spec_path));
	rdoc_cellf(t, "spec hash");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->spec_hash));
	rdoc_cellf(t, "spec commit");
	rdoc_cellf(t, "%s (%s%s%s)", rdoc_or_dash(r->spec_commit), report_dirty_text(r->spec_dirty),
	      r->spec_branch ? ", branch " : "", r->spec_branch ? r->spec_branch : "");
	rdoc_cellf(t, "spec repository");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->spec_repo));
	rdoc_cellf(t, "seed");
	rdoc_cellf(t, "%llu", (unsigned long long)r->seed);
	rdoc_cellf(t, "stages");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->stages));
	rdoc_cellf(t, "started");
	report_fmt_time(&c, r->created_at);
	rdoc_cell(t, &c);
	rdoc_cellf(t, "finished");
	report_fmt_time(&c, r->finished_at);
	rdoc_cell(t, &c);
	rdoc_cellf(t, "harness (run)");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->run_harness_version));
	rdoc_cellf(t, "harness (report)");
	rdoc_cellf(t, "%s", rdoc_or_dash(r->report_version));
	rdoc_cellf(t, "exploratory");
	rdoc_cellf(t, "%s", r->exploratory ? RDOC_STRONG "yes" : "no");
	rdoc_cellf(t, "forced");
	rdoc_cellf(t, "%s", r->forced ? RDOC_STRONG "yes" : "no");
	if (r->parent_run) {
		rdoc_cellf(t, "rerun of");
		rdoc_cellf(t, "%s", r->parent_run);
	}

	if (r->nversions) {
		t = rdoc_table(d, "versions", 2, "component", "version (output of its version command)");
		for (i = 0; i < r->nversions; i++) {
			rdoc_cellf(t, "%s", r->versions[i].key);
			rdoc_cellf(t, "%s", r->versions[i].value);
		}
	}
	t = rdoc_table(d, "implementations", 6, "implementation", "commit", "branch", "tree",
		  "diff hash", "repository");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];

		rdoc_cellf(t, "%s", im->name);
		rdoc_cellf(t, "%s", rdoc_or_dash(im->commit));
		rdoc_cellf(t, "%s", rdoc_or_dash(im->branch));
		rdoc_cellf(t, "%s%s", im->dirty > 0 ? RDOC_STRONG : "", report_dirty_text(im->dirty));
		rdoc_cellf(t, "%s", rdoc_or_dash(im->diff_hash));
		rdoc_cellf(t, "%s%s%s", rdoc_or_dash(im->remote_url ? im->remote_url : im->repo),
		      im->ref_asked ? " @ " : "", im->ref_asked ? im->ref_asked : "");
	}
	if (r->nhost) {
		t = rdoc_table(d, "host", 2, "host fact", "value");
		for (i = 0; i < r->nhost; i++) {
			rdoc_cellf(t, "%s", r->host[i].key);
			rdoc_cellf(t, "%s", rdoc_or_dash(r->host[i].value));
		}
	}
	if (r->nevents) {
		sbuf_adds(&c, "Events recorded during the run: ");
		for (i = 0; i < r->nevents; i++)
			sbuf_addf(&c, "%s%s %zu", i ? ", " : "", r->events[i].kind, r->events[i].count);
		sbuf_adds(&c, ".");
		rdoc_add(d, RDOC_P, c.buf);
		sbuf_reset(&c);
	}
	sbuf_release(&c);
}

