/*
 * report: read a run's database into struct report (this file), then
 * compute the roll-ups (report_rollup.c). The rows come from the read
 * model (store_run.h, store_window.h), by name.
 */
#include "report.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knee_run.h"
#include "spec.h"
#include "store.h"
#include "store_run.h"
#include "store_window.h"
#include "util.h"

/* Take a string out of a loaded row (the row no longer owns it). */
static char *steal(char **p)
{
	char *v = *p;

	*p = NULL;
	return v;
}

/* ------------------------------------------------------------ the run */

/* The SLO, reps and compare rule from the stored spec. When this binary
 * cannot parse it (a body_file moved, a newer spec version), the report
 * still renders its counts and percentiles with the defaults of
 * specs/README.md, says so, and omits what needs the SLO (knees, promise). */
static void read_spec(struct report *r, const char *text, size_t len)
{
	struct spec *sp;
	char *pathcopy = xstrdup(r->spec_path ? r->spec_path : "spec.yaml");
	char *base = xstrdup(dirname(pathcopy));

	r->spec_ok = 0;
	r->slo_pct = 99;
	r->slo_ms = NAN;
	r->error_rate_max = NAN;
	r->min_reps = 10;
	r->margin_pct = 5;
	r->level = 0.95;
	r->interval = CMP_INTERVAL_HL;
	r->correction = CMP_CORRECT_HOLM;
	r->sequential = 0;
	r->cs_t_star = 10;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	sp = text ? spec_parse(text, len, r->spec_path ? r->spec_path : "spec.yaml", base) : NULL;
	free(pathcopy);
	free(base);
	if (sp) {
		r->spec_ok = 1;
		r->slo_pct = sp->slo.percentile;
		r->slo_ms = sp->slo.threshold_ms;
		r->error_rate_max = sp->slo.error_rate_max;
		/* Without a confirm stage the bar stays at confirm's default
		 * (10): a 1-rep ladder's bootstrap has nothing to resample, and
		 * calling it inferential would claim what it cannot. A single
		 * window is never enough. */
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
		r->nreq_names = sp->workload.nrequests;
		r->req_names = xcalloc(r->nreq_names + 1, sizeof(*r->req_names));
		r->req_slo_ms = xcalloc(r->nreq_names + 1, sizeof(*r->req_slo_ms));
		for (size_t i = 0; i < r->nreq_names; i++) {
			r->req_names[i] = xstrdup(sp->workload.requests[i].name);
			r->req_slo_ms[i] = sp->workload.requests[i].slo_ms;
			r->any_req_slo |= r->req_slo_ms[i] > 0;
		}
		spec_free(sp);
	} else {
		warning("run %s: its stored spec does not parse with this harness (see above); "
			"the report uses default rules and omits knees and the latency promise",
			r->run_id);
	}
	if (r->slo_pct == 99)
		snprintf(r->slo_label, sizeof(r->slo_label), "p99");
	else
		snprintf(r->slo_label, sizeof(r->slo_label), "p%g", r->slo_pct);
}

static void read_run(struct report *r, struct run_record *rec)
{
	r->run_id = steal(&rec->id);
	r->spec_name = steal(&rec->spec_name);
	r->spec_path = steal(&rec->spec_path);
	r->spec_hash = steal(&rec->spec_hash);
	r->seed = (uint64_t)rec->seed;
	r->stages = steal(&rec->stages);
	r->created_at = rec->created_at;
	r->finished_at = rec->finished_at;
	r->status = steal(&rec->status);
	r->failure = steal(&rec->failure);
	r->exploratory = rec->exploratory;
	r->forced = rec->forced;
	r->preflight_cases = rec->preflight_cases;
	r->preflight_passed = rec->preflight_passed;
	r->preflight = steal(&rec->preflight);
	r->run_harness_version = steal(&rec->harness_version);
	r->parent_run = steal(&rec->parent_run);
	r->sandbox_user = steal(&rec->sandbox_user);
	r->spec_repo = steal(&rec->spec_repo);
	r->spec_commit = steal(&rec->spec_commit);
	r->spec_branch = steal(&rec->spec_branch);
	r->spec_dirty = rec->spec_dirty;
	/* An empty stored spec is as unreadable as a missing one. */
	read_spec(r, rec->spec_text.len ? (const char *)rec->spec_text.p : NULL,
		  rec->spec_text.len);
}

static int add_impl(struct report *r, const char *name, size_t *alloc)
{
	struct report_impl *im;

	XGROW(r->impls, *alloc, r->nimpls + 1);
	im = &r->impls[r->nimpls];
	memset(im, 0, sizeof(*im));
	im->name = xstrdup(name);
	im->ord = (int)r->nimpls;
	im->dirty = -1;
	im->cpu_cv = NAN;
	im->run_knee_rps = NAN;
	im->run_knee_crossed = -1;
	return (int)r->nimpls++;
}

static void read_impls(struct report *r, struct run_record *rec, size_t *alloc)
{
	size_t i;

	for (i = 0; i < rec->nimpls; i++) {
		struct run_impl *ri = &rec->impls[i];
		int k = add_impl(r, ri->name ? ri->name : "", alloc);
		struct report_impl *im = &r->impls[k];	/* after add_impl's realloc */

		im->repo = steal(&ri->repo);
		im->commit = steal(&ri->commit_id);
		im->branch = steal(&ri->branch);
		im->dirty = ri->dirty;
		im->diff_hash = steal(&ri->diff_hash);
		im->ref_asked = steal(&ri->ref_asked);
		im->remote_url = steal(&ri->remote_url);
		im->baseline_of = steal(&ri->baseline_of);
		im->run_knee_rps = ri->knee_rps;
		im->run_knee_crossed = ri->knee_crossed;
	}
}

/* A version event's detail, "NAME: output", as "what NAME" -> output. */
static void add_version(struct report *r, const char *what, const char *detail)
{
	const char *colon = strstr(detail, ": ");
	struct report_kv *kv;
	struct sbuf key = SBUF_INIT;

	if (!colon)
		return;
	r->versions = xrealloc(r->versions, (r->nversions + 1) * sizeof(*r->versions));
	kv = &r->versions[r->nversions++];
	sbuf_addf(&key, "%s %.*s", what, (int)(colon - detail), detail);
	kv->key = sbuf_detach(&key, NULL);
	kv->value = xstrdup(colon + 2);
}

/* Every dependency's accounting per window (none before schema 9). */
static int read_deps(struct report *r, struct store *st)
{
	struct window_dep_rows rows;
	size_t i;

	if (store_window_deps_load(st, r->run_id, -1, &rows))
		return -1;
	r->dep_rows = xcalloc(rows.n + 1, sizeof(*r->dep_rows));
	for (i = 0; i < rows.n; i++) {
		struct report_dep *d = &r->dep_rows[i];

		d->name = xstrdup(rows.v[i].name ? rows.v[i].name : "?");
		d->window_id = rows.v[i].window_id;
		d->ncpus = rows.v[i].ncpus;
		d->duration_s = rows.v[i].duration_s;
		d->cpu_s = rows.v[i].cpu_s;
		d->nr_throttled = rows.v[i].has_throttle ? rows.v[i].nr_throttled : -1;
		d->oom_kill = rows.v[i].has_oom ? rows.v[i].oom_kill : -1;
		d->anon_max = rows.v[i].anon_max;
		d->exited = rows.v[i].exited;
	}
	r->ndep_rows = rows.n;
	window_dep_rows_release(&rows);
	return 0;
}

/* Host facts, and the run's events counted by kind (sorted by kind). */
static int read_host(struct report *r, struct store *st, struct run_record *rec)
{
	struct event_rows ev;
	size_t i, k, ealloc = 0;

	r->host = xcalloc(rec->nhost + 1, sizeof(*r->host));
	for (i = 0; i < rec->nhost; i++) {
		r->host[i].key = steal(&rec->host[i].key);
		r->host[i].value = steal(&rec->host[i].value);
	}
	r->nhost = rec->nhost;
	if (store_events_load(st, r->run_id, -1, &ev))
		return -1;
	for (i = 0; i < ev.n; i++) {
		const char *kind = ev.v[i].kind ? ev.v[i].kind : "";

		if (!strcmp(kind, "dep_version") && ev.v[i].detail)
			add_version(r, "dependency", ev.v[i].detail);
		if (!strcmp(kind, "impl_version") && ev.v[i].detail)
			add_version(r, "implementation", ev.v[i].detail);
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
	event_rows_release(&ev);
	return 0;
}

/* ------------------------------------------------------------ windows */

static int impl_index(struct report *r, const char *name, size_t *alloc)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (!strcmp(r->impls[i].name, name))
			return (int)i;
	return add_impl(r, name, alloc);
}

static int read_window_row(struct report *r, struct store *st, const struct window_row *row,
			   struct report_window *w, size_t *ialloc)
{
	memset(w, 0, sizeof(*w));
	w->id = row->id;
	w->stage = xstrdup(row->stage ? row->stage : "");
	w->rung = row->rung;
	w->block = row->block;
	w->slot = row->slot;
	w->impl = xstrdup(row->impl ? row->impl : "");
	w->impl_idx = impl_index(r, w->impl, ialloc);
	w->rate = row->rate;
	w->done = row->state == WINDOW_DONE;
	w->status = xstrdup(w->done ? window_status_name(row->status) : "");
	w->accepted = w->done && row->status == WINDOW_ACCEPTED;
	w->reasons = xstrdup(row->reasons ? row->reasons : "");
	w->attempts = row->attempts;
	w->warm = row->warm;
	w->offered_rps = row->offered_rps;
	w->achieved_rps = row->achieved_rps;
	w->duration_s = row->duration_s;
	w->started_at = row->started_at;
	w->due = row->due;
	w->sent = row->sent;
	w->completed = row->completed;
	w->dropped = row->dropped;
	/* report.h: every due request without a 2xx/3xx answer */
	w->errors = row->err_unexpected + row->err_connect + row->err_reset +
		    row->err_timeout + row->err_parse + row->err_other + row->dropped;
	w->ok = row->completed - row->err_unexpected;
	w->unexpected = row->err_unexpected;
	w->protocol = row->protocol ? xstrdup(row->protocol) : NULL;
	w->bytes_sent = row->bytes_sent;
	w->bytes_received = row->bytes_received;
	w->p50_ms = row->p50_ms;
	w->p90_ms = row->p90_ms;
	w->p99_ms = row->p99_ms;
	w->p999_ms = row->p999_ms;
	w->max_ms = row->max_ms;
	w->lateness_p99_ms = row->lateness_p99_ms;
	w->gen_cpu_s = row->gen_cpu_s;
	w->cpu_s = row->cpu_s;
	w->anon_p99 = row->anon_p99;
	w->sut_exited = row->sut_exited;
	w->cpu_ms_per_req = w->completed > 0 ? w->cpu_s * 1000.0 / (double)w->completed : NAN;
	w->pslo_ms = r->slo_pct == 99 ? w->p99_ms : NAN;
	if (row->latency_hist.p) {
		hist_init(&w->lat);
		if (hist_deserialize(&w->lat, row->latency_hist.p, row->latency_hist.len)) {
			hist_release(&w->lat);
			return error("%s: window %lld: corrupt latency histogram", st->path,
				     (long long)w->id);
		}
		w->has_hist = 1;
		if (w->lat.total)
			w->pslo_ms = hist_percentile_ms(&w->lat, r->slo_pct);
	}
	return 0;
}

static int read_windows(struct report *r, struct store *st, size_t *ialloc)
{
	struct window_query q = { .with_hists = 1 };
	struct window_rows rows;
	size_t i;
	int ret = -1;

	if (store_windows_load(st, r->run_id, &q, &rows))
		return -1;
	r->windows = xcalloc(rows.n + 1, sizeof(*r->windows));
	cells_from_windows(&r->cells, rows.v, rows.n);
	for (i = 0; i < rows.n; i++) {
		r->nwindows++;
		if (read_window_row(r, st, &rows.v[i], &r->windows[i], ialloc))
			goto out;
	}
	ret = 0;
out:
	window_rows_release(&rows);
	return ret;
}

/* Each done window's per-request results (measured phase) and its
 * per-request promise (knee_run.h: the same rule). */
static int read_requests(struct report *r, struct store *st)
{
	struct window_requests reqs;
	size_t i, k, j;

	for (i = 0; i < r->nwindows; i++) {
		struct report_window *w = &r->windows[i];

		w->knee_ms = w->pslo_ms;
		if (!w->done)
			continue;
		if (store_requests_load(st, w->id, "measured", &reqs))
			return -1;
		w->reqs = xcalloc(reqs.n + 1, sizeof(*w->reqs));
		for (k = 0; k < reqs.n; k++) {
			const struct window_request *q = &reqs.v[k];
			struct report_wreq *x = &w->reqs[w->nreqs++];

			x->name = xstrdup(q->name ? q->name : "");
			x->completed = q->completed;
			x->unexpected = q->unexpected;
			for (j = 0; j < r->nreq_names; j++)
				if (!strcmp(r->req_names[j], x->name))
					x->slo_ms = r->req_slo_ms[j];
			if (q->hist.p) {
				hist_init(&x->h);
				if (hist_deserialize(&x->h, q->hist.p, q->hist.len)) {
					window_requests_release(&reqs);
					return error("%s: window %lld: request %s has a corrupt histogram",
						     st->path, (long long)w->id, x->name);
				}
				x->has_hist = 1;
			}
			if (x->slo_ms > 0 && x->has_hist && x->h.total) {
				double ratio = hist_percentile_ms(&x->h, r->slo_pct) / x->slo_ms;

				if (ratio > w->req_ratio)
					w->req_ratio = ratio;
			}
		}
		window_requests_release(&reqs);
		w->knee_ms = knee_apply_ratio(w->pslo_ms, r->slo_ms, w->req_ratio);
	}
	return 0;
}

static struct report_window *window_by_id(struct report *r, int64_t id)
{
	size_t lo = 0, hi = r->nwindows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->windows[mid].id == id)
			return &r->windows[mid];
		if (r->windows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Append v to a window's array (anon samples or per-second p99). */
static void push(double **arr, size_t *n, size_t *alloc, double v)
{
	XGROW(*arr, *alloc, *n + 1);
	(*arr)[(*n)++] = v;
}

/* Each window's measured per-second p99 and, for accepted windows, its
 * anon-memory samples. */
static int read_series(struct report *r, struct store *st)
{
	struct window_seconds secs;
	struct acct_samples samples;
	static const char *const head[] = { "warmup", "discard" };
	struct report_window *w = NULL;
	size_t i, k, alloc = 0, alloc2 = 0, ndone = 0;

	if (store_seconds_load(st, r->run_id, -1, "measured", 0, &secs))
		return -1;
	for (i = 0; i < secs.n; i++) {
		if (!w || w->id != secs.v[i].window_id) {
			w = window_by_id(r, secs.v[i].window_id);
			alloc = alloc2 = 0;
			ndone = 0;
		}
		if (!w)
			continue;
		push(&w->sec_p99, &w->nsec, &alloc, secs.v[i].p99_ms);
		push(&w->sec_done, &ndone, &alloc2, (double)secs.v[i].completed);
	}
	window_seconds_release(&secs);
	/* the seconds before the measured part (timeline chart) */
	for (k = 0; k < ARRAY_SIZE(head); k++) {
		if (store_seconds_load(st, r->run_id, -1, head[k], 0, &secs))
			return -1;
		for (i = 0, w = NULL; i < secs.n; i++) {
			if (!w || w->id != secs.v[i].window_id)
				w = window_by_id(r, secs.v[i].window_id);
			if (w)
				w->nhead++;
		}
		window_seconds_release(&secs);
	}
	w = NULL;
	if (store_acct_samples_load(st, r->run_id, -1, &samples))
		return -1;
	for (i = 0, w = NULL; i < samples.n; i++) {
		if (!w || w->id != samples.v[i].window_id) {
			w = window_by_id(r, samples.v[i].window_id);
			alloc = 0;
		}
		if (w && w->accepted && !isnan(samples.v[i].anon_bytes))
			push(&w->anon, &w->nanon, &alloc, samples.v[i].anon_bytes);
	}
	acct_samples_release(&samples);
	return 0;
}

/* Failures of gates with enforce: false: they rejected nothing, and the
 * report shows them beside the rejections ("recorded"). */
static int read_recorded(struct report *r, struct store *st)
{
	struct gate_rows gates;
	size_t i;

	if (store_gates_load(st, r->run_id, -1, &gates))
		return -1;
	for (i = 0; i < gates.n; i++) {
		const struct gate_row *g = &gates.v[i];
		struct report_window *w;
		struct sbuf sb = SBUF_INIT;

		if (g->enforced || !g->status || strcmp(g->status, "fail") || !g->gate)
			continue;
		w = window_by_id(r, g->window_id);
		if (!w)
			continue;
		if (w->recorded)
			sbuf_adds(&sb, w->recorded);
		sbuf_addf(&sb, "%s%s", sb.len ? "," : "", g->gate);
		free(w->recorded);
		w->recorded = sbuf_detach(&sb, NULL);
	}
	gate_rows_release(&gates);
	return 0;
}

int report_load(struct report *r, struct store *st, const char *run_id)
{
	struct run_record rec;
	size_t ialloc = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->spec_dirty = -1;
	r->nboot = 2000;
	r->report_version = harness_version;
	r->spectrum_rps = NAN;
	if (run_record_load(st, run_id, &rec))
		return -1;
	read_run(r, &rec);
	read_impls(r, &rec, &ialloc);
	if (read_host(r, st, &rec) || read_deps(r, st) || read_windows(r, st, &ialloc) || read_requests(r, st) ||
	    read_series(r, st) ||
	    read_recorded(r, st))
		goto out;
	ret = report_rollup(r);
	report_deps_rollup(r);
out:
	run_record_release(&rec);
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

	free(r->run_id);
	free(r->spec_name);
	free(r->spec_path);
	free(r->spec_hash);
	free(r->stages);
	free(r->status);
	free(r->failure);
	free(r->preflight);
	free(r->run_harness_version);
	free(r->parent_run);
	free(r->sandbox_user);
	free(r->spec_repo);
	free(r->spec_commit);
	free(r->spec_branch);
	for (i = 0; i < r->nhost; i++) {
		free(r->host[i].key);
		free(r->host[i].value);
	}
	free(r->host);
	for (i = 0; i < r->nevents; i++)
		free(r->events[i].kind);
	free(r->events);
	for (i = 0; i < r->nversions; i++) {
		free(r->versions[i].key);
		free(r->versions[i].value);
	}
	free(r->versions);
	report_deps_release(r);
	for (i = 0; i < r->ndep_rows; i++)
		free(r->dep_rows[i].name);
	free(r->dep_rows);
	for (i = 0; i < r->nimpls; i++) {
		struct report_impl *im = &r->impls[i];

		free(im->name);
		free(im->repo);
		free(im->commit);
		free(im->branch);
		free(im->diff_hash);
		free(im->ref_asked);
		free(im->remote_url);
		free(im->baseline_of);
		knee_result_release(&im->kres);
		free_reasons(im->reasons, im->nreasons);
	}
	free(r->impls);
	for (i = 0; i < r->nwindows; i++) {
		struct report_window *w = &r->windows[i];

		free(w->stage);
		free(w->impl);
		free(w->status);
		free(w->reasons);
		free(w->recorded);
		free(w->protocol);
		if (w->has_hist)
			hist_release(&w->lat);
		free(w->anon);
		free(w->sec_p99);
		free(w->sec_done);
		for (k = 0; k < w->nreqs; k++) {
			free(w->reqs[k].name);
			if (w->reqs[k].has_hist)
				hist_release(&w->reqs[k].h);
		}
		free(w->reqs);
	}
	free(r->windows);
	for (i = 0; i < r->nrungs; i++) {
		free_reasons(r->rungs[i].reasons, r->rungs[i].nreasons);
		for (k = 0; k < r->rungs[i].nreqs; k++)
			free(r->rungs[i].reqs[k].name);
		free(r->rungs[i].reqs);
	}
	free(r->rungs);
	for (i = 0; i < r->nreq_names; i++)
		free(r->req_names[i]);
	free(r->req_names);
	free(r->req_slo_ms);
	free(r->ratios);
	free(r->verdicts);
	free_reasons(r->gate_fails, r->ngate_fails);
	run_quality_release(&r->quality);
	cells_release(&r->cells);
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
