/*
 * report_doc_prov: the sections about where the numbers come from: the
 * dependencies' headroom and the provenance (run, spec, versions,
 * implementations' commits, host facts, events).
 */
#include "report/report_doc.h"
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "base/util.h"

/* ------------------------------------------------------------ sections */

/* Each dependency over the run (its peak window against the cores it may
 * use, its version), then its headroom per rung, so "the database never
 * broke" is measured (report_deps.c). */
void rdoc_dependencies(const struct report *r, struct rdoc *d)
{
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i, k;

	if (!r->ndeps)
		return;
	rdoc_add(d, RDOC_H2, "Dependencies");
	rdoc_add(d, RDOC_P, "Each dependency's CPU over the measured windows, in cores and as a share "
	    "of the cores it may use (its cpus, else every online cpu); dependency_headroom "
	    "rejects a window above its max_cpu_pct (default 90%), throttled, or with the "
	    "dependency exiting. Its peak is its highest window.");
	t = rdoc_table(d, "dependencies", 7, "dependency", "version", "cores it may use",
		       "peak % of its cores", "peak cores", "at", "windows (throttled / exited)");
	for (k = 0; k < r->ndeps; k++) {
		const struct report_dep_sum *s = &r->deps[k];
		const char *v = s->version;
		size_t vlen = v ? strcspn(v, "\n") : 0;

		rdoc_cellf(t, "%s", s->name);
		if (v)
			rdoc_cellf(t, "%.*s", (int)vlen, v);   /* its first line */
		else
			rdoc_cellf(t, "-");
		report_fmt_num(&c, s->ncpus, 0);
		rdoc_cell(t, &c);
		if (isfinite(s->peak_pct))
			rdoc_cellf(t, "%s%.1f", s->peak_pct > 90 ? RDOC_STRONG : "", s->peak_pct);
		else
			rdoc_cellf(t, "-");
		report_fmt_num(&c, s->peak_cores, 2);
		rdoc_cell(t, &c);
		if (s->peak_stage) {
			sbuf_addf(&c, "%s ", s->peak_stage);
			report_fmt_rate(&c, s->peak_rate);
			sbuf_adds(&c, " req/s");
			rdoc_cell(t, &c);
		} else
			rdoc_cellf(t, "-");
		if (s->throttled < 0)
			rdoc_cellf(t, "%zu (- / %zu)", s->windows, s->exited);
		else
			rdoc_cellf(t, "%zu (%lld / %zu)", s->windows, (long long)s->throttled, s->exited);
	}
	t = rdoc_table(d, "dependency_headroom", 10, "dependency", "stage", "rate", "windows",
		  "cores used (mean)", "of cores", "peak % of its cores", "throttled / exited",
		  "anon max (MiB)", "OOM kills");
	for (k = 0; k < r->ndeps; k++) {
		for (i = 0; i < r->deps[k].nrungs; i++) {
			const struct report_dep_rung *g = &r->deps[k].rungs[i];

			rdoc_cellf(t, "%s", r->deps[k].name);
			rdoc_cellf(t, "%s", g->stage);
			report_fmt_rate(&c, g->rate);
			rdoc_cell(t, &c);
			rdoc_cellf(t, "%zu", g->windows);
			report_fmt_num(&c, g->cores_mean, 2);
			rdoc_cell(t, &c);
			report_fmt_num(&c, g->ncpus, 0);
			rdoc_cell(t, &c);
			if (isfinite(g->peak_pct))
				rdoc_cellf(t, "%s%.1f", g->peak_pct > 90 ? RDOC_STRONG : "", g->peak_pct);
			else
				rdoc_cellf(t, "-");
			if (g->throttled < 0)
				rdoc_cellf(t, "- / %zu", g->exited);
			else
				rdoc_cellf(t, "%lld / %zu", (long long)g->throttled, g->exited);
			report_fmt_mib(&c, g->anon_max);
			rdoc_cell(t, &c);
			if (g->oom_kills < 0)
				rdoc_cellf(t, "-");
			else
				rdoc_cellf(t, "%s%lld", g->oom_kills ? RDOC_STRONG : "", (long long)g->oom_kills);
		}
	}
	sbuf_release(&c);
}

/* The stages the run measured: those asked (runs.stages, every stage by
 * default) that the stored spec has; the ones it lacks said apart, so a
 * ladder-only spec does not read "ladder,confirm,soak". */
static int spec_has_stage(const struct spec *s, const char *name, size_t n)
{
	if (n == 7 && !strncmp(name, "confirm", n))
		return s->confirm.present;
	if (n == 4 && !strncmp(name, "soak", n))
		return s->soak.present;
	if (n == 10 && !strncmp(name, "saturation", n))
		return s->saturation.present;
	if (n == 6 && !strncmp(name, "refine", n))
		return s->refine.present;
	return 1;
}

static void stages_run(const struct report *r, struct sbuf *c)
{
	const char *p = r->stages;
	int dropped = 0, kept = 0;

	if (!p || !*p || !r->view.spec) {
		sbuf_adds(c, rdoc_or_dash(p));
		return;
	}
	while (*p) {
		size_t n = strcspn(p, ",");

		if (spec_has_stage(r->view.spec, p, n))
			sbuf_addf(c, "%s%.*s", kept++ ? "," : "", (int)n, p);
		else
			dropped = 1;
		p += n + (p[n] == ',');
	}
	if (dropped)
		sbuf_addf(c, " (asked: %s; the others are not in this spec)", r->stages);
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
	stages_run(r, &c);
	rdoc_cell(t, &c);
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

