/*
 * report_deps: each dependency over the run, from its per-window
 * accounting (window_deps): per rung the cores it used and its peak share
 * of the cores it may use, its memory and OOM kills, and over the run its peak window against that
 * allotment, with its version output. Every report format shows these
 * (report_doc_prov.c for md and html, report_json.c), so "the database
 * never broke" is a measured number, not an estimate.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "base/util.h"

static const struct view_window *window_by_id(const struct report *r, int64_t id)
{
	size_t lo = 0, hi = r->nwindows;

	while (lo < hi) {     /* r->windows is ordered by id */
		size_t mid = lo + (hi - lo) / 2;

		if (r->windows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nwindows && r->windows[lo].id == id ? &r->windows[lo] : NULL;
}

static struct report_dep_sum *sum_for(struct report *r, const char *name, size_t *alloc)
{
	struct report_dep_sum *s;
	struct sbuf key = SBUF_INIT;
	size_t i;

	for (i = 0; i < r->ndeps; i++)
		if (!strcmp(r->deps[i].name, name))
			return &r->deps[i];
	XGROW(r->deps, *alloc, r->ndeps + 1);
	s = &r->deps[r->ndeps++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->peak_pct = s->peak_cores = s->peak_rate = NAN;
	s->peak_window = -1;
	s->throttled = -1;
	s->oom_kills = -1;
	s->anon_max = NAN;
	sbuf_addf(&key, "dependency %s", name);
	for (i = 0; i < r->nversions; i++)
		if (!strcmp(r->versions[i].key, key.buf))
			s->version = r->versions[i].value;
	sbuf_release(&key);
	return s;
}

static struct report_dep_rung *rung_for(struct report_dep_sum *s, const char *stage, double rate)
{
	struct report_dep_rung *g;
	size_t i;

	for (i = 0; i < s->nrungs; i++)
		if (!strcmp(s->rungs[i].stage, stage) &&
		    (rate_same(s->rungs[i].rate, rate) || (isnan(rate) && isnan(s->rungs[i].rate))))
			return &s->rungs[i];
	s->rungs = xrealloc(s->rungs, (s->nrungs + 1) * sizeof(*s->rungs));
	g = &s->rungs[s->nrungs++];
	memset(g, 0, sizeof(*g));
	g->stage = stage;
	g->rate = rate;
	g->peak_pct = NAN;
	g->throttled = -1;
	g->oom_kills = -1;
	g->anon_max = NAN;
	return g;
}

void report_deps_rollup(struct report *r)
{
	size_t i, k, alloc = 0;

	for (i = 0; i < r->ndep_rows; i++) {
		const struct report_dep *d = &r->dep_rows[i];
		const struct view_window *w = window_by_id(r, d->window_id);
		struct report_dep_sum *s = sum_for(r, d->name, &alloc);
		struct report_dep_rung *g = rung_for(s, w ? w->stage : "?", w ? w->rate : NAN);
		double used = d->duration_s > 0 ? d->cpu_s / d->duration_s : NAN;
		double pct = isfinite(used) && d->ncpus > 0 ? 100 * used / d->ncpus : NAN;

		g->windows++;
		s->windows++;
		g->exited += d->exited != 0;
		s->exited += d->exited != 0;
		if (isfinite(used)) {
			g->cores_mean += used;   /* a sum until the end */
			g->measured++;
		}
		g->ncpus = d->ncpus;
		s->ncpus = d->ncpus;
		if (isfinite(pct) && !(pct <= g->peak_pct))
			g->peak_pct = pct;
		if (isfinite(pct) && !(pct <= s->peak_pct)) {
			s->peak_pct = pct;
			s->peak_cores = used;
			s->peak_stage = g->stage;
			s->peak_rate = g->rate;
			s->peak_window = d->window_id;
		}
		if (isfinite(d->anon_max) && !(d->anon_max <= g->anon_max))
			g->anon_max = d->anon_max;
		if (isfinite(d->anon_max) && !(d->anon_max <= s->anon_max))
			s->anon_max = d->anon_max;
		if (d->oom_kill >= 0) {
			g->oom_kills = (g->oom_kills < 0 ? 0 : g->oom_kills) + d->oom_kill;
			s->oom_kills = (s->oom_kills < 0 ? 0 : s->oom_kills) + d->oom_kill;
		}
		if (d->nr_throttled >= 0) {
			g->throttled = (g->throttled < 0 ? 0 : g->throttled) + d->nr_throttled;
			s->throttled = (s->throttled < 0 ? 0 : s->throttled) + d->nr_throttled;
		}
	}
	for (i = 0; i < r->ndeps; i++)
		for (k = 0; k < r->deps[i].nrungs; k++)
			r->deps[i].rungs[k].cores_mean = r->deps[i].rungs[k].measured
				? r->deps[i].rungs[k].cores_mean / (double)r->deps[i].rungs[k].measured : NAN;
}

void report_deps_release(struct report *r)
{
	size_t i;

	for (i = 0; i < r->ndeps; i++)
		free(r->deps[i].rungs);
	free(r->deps);
	r->deps = NULL;
	r->ndeps = 0;
}
