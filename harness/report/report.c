/*
 * report: a run's view (view.h) as struct report (this file), then the
 * roll-ups (report_rollup.c).
 */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_study.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "base/util.h"

/* ------------------------------------------------------------ the run */

/* The rules the report applies, from the view's parsed spec. When this
 * binary cannot parse it (a body_file moved, a newer spec version), the
 * report still renders its counts and percentiles with the defaults of
 * specs/README.md, says so, and omits what needs the SLO (knees, promise). */
static void read_spec(struct report *r)
{
	const struct spec *sp = r->view.spec;

	r->spec_ok = sp != NULL;
	r->slo_pct = r->view.slo_pct;
	r->slo_ms = r->view.slo_ms;
	r->error_rate_max = r->view.error_rate_max;
	snprintf(r->slo_label, sizeof(r->slo_label), "%s", r->view.slo_label);
	r->req_names = r->view.req_names;
	r->req_slo_ms = r->view.req_slo_ms;
	r->nreq_names = r->view.nreq_names;
	r->any_req_slo = r->view.any_req_slo;
	r->min_reps = 10;
	r->margin_pct = 5;
	r->level = 0.95;
	r->interval = CMP_INTERVAL_HL;
	r->correction = CMP_CORRECT_HOLM;
	r->sequential = 0;
	r->cs_t_star = 10;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	if (!sp) {
		warning("run %s: its stored spec does not parse with this harness (see above); "
			"the report uses default rules and omits knees and the latency promise",
			r->run_id);
		return;
	}
	/* Without a confirm stage the bar stays at confirm's default (10): a
	 * 1-rep ladder's bootstrap has nothing to resample, and calling it
	 * inferential would claim what it cannot. A single window is never
	 * enough. */
	r->min_reps = (size_t)(sp->confirm.present ? sp->confirm.reps : 10);
	if (r->min_reps < 2)
		r->min_reps = 2;
	r->margin_pct = sp->compare.margin_pct;
	if (sp->compare.alpha > 0 && sp->compare.alpha < 1)
		r->level = 1.0 - sp->compare.alpha;
	if (sp->compare.metrics)
		r->metrics = sp->compare.metrics;
	r->interval = sp->compare.interval;
	r->correction = sp->compare.correction;
	r->sequential = sp->confirm.present && sp->confirm.until.present;
	r->cs_t_star = sp->confirm.present ? sp->confirm.reps : 10;
}

static void read_run(struct report *r)
{
	const struct run_record *rec = &r->view.rec;

	r->run_id = rec->id;
	r->spec_name = rec->spec_name;
	r->spec_path = rec->spec_path;
	r->spec_hash = rec->spec_hash;
	r->seed = (uint64_t)rec->seed;
	r->stages = rec->stages;
	r->created_at = rec->created_at;
	r->finished_at = rec->finished_at;
	r->status = rec->status;
	r->failure = rec->failure;
	r->exploratory = rec->exploratory;
	r->forced = rec->forced;
	r->preflight_cases = rec->preflight_cases;
	r->preflight_passed = rec->preflight_passed;
	r->preflight = rec->preflight;
	r->run_harness_version = rec->harness_version;
	r->parent_run = rec->parent_run;
	r->sandbox_user = rec->sandbox_user;
	r->spec_repo = rec->spec_repo;
	r->spec_commit = rec->spec_commit;
	r->spec_branch = rec->spec_branch;
	r->spec_dirty = rec->spec_dirty;
	read_spec(r);
	r->windows = r->view.windows;
	r->nwindows = r->view.nwindows;
	r->cells = &r->view.cells;
	r->versions = r->view.versions;
	r->nversions = r->view.nversions;
}

/* The view's implementations, with their provenance and knee. */
static void read_impls(struct report *r)
{
	size_t i;

	r->impls = xcalloc(r->view.nimpls + 1, sizeof(*r->impls));
	r->nimpls = r->view.nimpls;
	for (i = 0; i < r->nimpls; i++) {
		const struct view_impl *vi = &r->view.impls[i];
		const struct run_impl *ri = vi->rec;
		struct report_impl *im = &r->impls[i];

		im->name = vi->name;
		im->ord = vi->ord;
		im->kres = &vi->knee;
		im->dirty = -1;
		im->cpu_cv = NAN;
		im->run_knee_rps = NAN;
		im->run_knee_crossed = -1;
		if (!ri)
			continue;
		im->repo = ri->repo;
		im->commit = ri->commit_id;
		im->branch = ri->branch;
		im->dirty = ri->dirty;
		im->diff_hash = ri->diff_hash;
		im->ref_asked = ri->ref_asked;
		im->remote_url = ri->remote_url;
		im->baseline_of = ri->baseline_of;
		im->run_knee_rps = ri->knee_rps;
		im->run_knee_crossed = ri->knee_crossed;
	}
}

/* Every dependency's accounting per window (none before schema 9). */
static void read_deps(struct report *r)
{
	const struct window_dep_rows *rows = &r->view.deps;
	size_t i;

	r->dep_rows = xcalloc(rows->n + 1, sizeof(*r->dep_rows));
	for (i = 0; i < rows->n; i++) {
		struct report_dep *d = &r->dep_rows[i];

		d->name = xstrdup(rows->v[i].name ? rows->v[i].name : "?");
		d->window_id = rows->v[i].window_id;
		d->ncpus = rows->v[i].ncpus;
		d->duration_s = rows->v[i].duration_s;
		d->cpu_s = rows->v[i].cpu_s;
		d->nr_throttled = rows->v[i].has_throttle ? rows->v[i].nr_throttled : -1;
		d->oom_kill = rows->v[i].has_oom ? rows->v[i].oom_kill : -1;
		d->anon_max = rows->v[i].anon_max;
		d->exited = rows->v[i].exited;
	}
	r->ndep_rows = rows->n;
}

/* Host facts, and the run's events counted by kind (sorted by kind). */
static void read_host(struct report *r)
{
	const struct run_record *rec = &r->view.rec;
	const struct event_rows *ev = &r->view.events;
	size_t i, k, ealloc = 0;

	r->host = xcalloc(rec->nhost + 1, sizeof(*r->host));
	for (i = 0; i < rec->nhost; i++) {
		r->host[i].key = rec->host[i].key;
		r->host[i].value = rec->host[i].value;
	}
	r->nhost = rec->nhost;
	for (i = 0; i < ev->n; i++) {
		const char *kind = ev->v[i].kind ? ev->v[i].kind : "";

		for (k = 0; k < r->nevents && strcmp(r->events[k].kind, kind) < 0; k++)
			;
		if (k < r->nevents && !strcmp(r->events[k].kind, kind)) {
			r->events[k].count++;
			continue;
		}
		XGROW(r->events, ealloc, r->nevents + 1);
		memmove(&r->events[k + 1], &r->events[k], (r->nevents - k) * sizeof(*r->events));
		r->events[k].kind = xstrdup(kind);
		r->events[k].count = 1;
		r->nevents++;
	}
}

int report_load(struct report *r, struct store *st, const char *run_id)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->spec_dirty = -1;
	r->nboot = 2000;
	r->report_version = harness_version;
	r->spectrum_rps = NAN;
	if (view_load(&r->view, st, run_id))
		return -1;
	read_run(r);
	read_impls(r);
	read_host(r);
	read_deps(r);
	if (report_saturation_load(r, st) || report_footprint_load(r, st))
		return -1;
	ret = report_rollup(r);
	report_deps_rollup(r);
	if (!ret)
		ret = report_study_load(r, st);
	return ret;
}

/* ------------------------------------------------------------ release */

static void free_reasons(struct report_reason *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void report_release(struct report *r)
{
	size_t i, k;

	free(r->host);
	for (i = 0; i < r->nevents; i++)
		free(r->events[i].kind);
	free(r->events);
	report_deps_release(r);
	report_study_free(r->study);
	report_saturation_release(r);
	report_footprint_release(r);
	for (i = 0; i < r->ndep_rows; i++)
		free(r->dep_rows[i].name);
	free(r->dep_rows);
	for (i = 0; i < r->nimpls; i++)
		free_reasons(r->impls[i].reasons, r->impls[i].nreasons);
	free(r->impls);
	for (i = 0; i < r->nrungs; i++) {
		free_reasons(r->rungs[i].reasons, r->rungs[i].nreasons);
		for (k = 0; k < r->rungs[i].nreqs; k++)
			free(r->rungs[i].reqs[k].name);
		free(r->rungs[i].reqs);
	}
	free(r->rungs);
	free(r->ratios);
	free(r->verdicts);
	free_reasons(r->gate_fails, r->ngate_fails);
	run_quality_release(&r->quality);
	view_release(&r->view);
	memset(r, 0, sizeof(*r));
}

const struct report_reason *report_reason_find(const struct report_reason *v, size_t n,
						const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}
