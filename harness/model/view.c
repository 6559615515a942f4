/*
 * view: a run read once from its database (contract in view.h). The rows
 * come from the read model (store_run.h, store_window.h), by name.
 */
#include "model/view.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/knee_run.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_seq.h"
#include "base/util.h"

/* ------------------------------------------------------------ the spec */

/* The stored spec, parsed against its original directory (or the
 * caller's, borrowed); the SLO from it, else specs/README.md's defaults. */
static void read_spec(struct view *v, unsigned flags, const struct spec *borrowed)
{
	struct sbuf errs = SBUF_INIT;
	const char *path = v->rec.spec_path ? v->rec.spec_path : "spec.yaml";
	char *pathcopy = xstrdup(path);
	char *base = xstrdup(dirname(pathcopy));
	size_t i;

	v->slo_pct = 99;
	v->slo_ms = NAN;
	v->error_rate_max = NAN;
	if (borrowed) {
		v->spec = (struct spec *)borrowed;
		v->spec_borrowed = 1;
	} else if (v->rec.spec_text.p && v->rec.spec_text.len) {
		/* An empty stored spec is as unreadable as a missing one. */
		v->spec = spec_parse_diag((const char *)v->rec.spec_text.p, v->rec.spec_text.len,
					  path, base, flags & VIEW_QUIET_SPEC ? &errs : NULL);
	}
	v->spec_errors = errs.len ? sbuf_detach(&errs, NULL) : NULL;
	sbuf_release(&errs);
	free(pathcopy);
	free(base);
	if (v->spec) {
		v->slo_pct = v->spec->slo.percentile;
		v->slo_ms = v->spec->slo.threshold_ms;
		v->error_rate_max = v->spec->slo.error_rate_max;
		v->nreq_names = v->spec->workload.nrequests;
	}
	v->req_names = xcalloc(v->nreq_names + 1, sizeof(*v->req_names));
	v->req_slo_ms = xcalloc(v->nreq_names + 1, sizeof(*v->req_slo_ms));
	for (i = 0; i < v->nreq_names; i++) {
		v->req_names[i] = xstrdup(v->spec->workload.requests[i].name);
		v->req_slo_ms[i] = v->spec->workload.requests[i].slo_ms;
		v->any_req_slo |= v->req_slo_ms[i] > 0;
	}
	if (v->slo_pct == 99)
		snprintf(v->slo_label, sizeof(v->slo_label), "p99");
	else
		snprintf(v->slo_label, sizeof(v->slo_label), "p%g", v->slo_pct);
}

/* ------------------------------------------------------- implementations */

static int impl_index(struct view *v, const char *name, size_t *alloc)
{
	struct view_impl *im;
	size_t i;

	for (i = 0; i < v->nimpls; i++)
		if (!strcmp(v->impls[i].name, name))
			return (int)i;
	XGROW(v->impls, *alloc, v->nimpls + 1);
	im = &v->impls[v->nimpls];
	memset(im, 0, sizeof(*im));
	im->name = name;
	im->ord = (int)v->nimpls;
	return (int)v->nimpls++;
}

static void read_impls(struct view *v, size_t *alloc)
{
	size_t i;

	for (i = 0; i < v->rec.nimpls; i++) {
		const char *name = v->rec.impls[i].name ? v->rec.impls[i].name : "";
		int k = impl_index(v, name, alloc);

		v->impls[k].rec = &v->rec.impls[i];
	}
}

/* --------------------------------------------------------------- events */

/* A version event's detail, "NAME: output", as "what NAME suffix" ->
 * output. */
static void add_version(struct view *v, const char *what, const char *detail, const char *suffix)
{
	const char *colon = strstr(detail, ": ");
	struct view_version *kv;
	struct sbuf key = SBUF_INIT;

	if (!colon)
		return;
	v->versions = xrealloc(v->versions, (v->nversions + 1) * sizeof(*v->versions));
	kv = &v->versions[v->nversions++];
	sbuf_addf(&key, "%s %.*s%s", what, (int)(colon - detail), detail, suffix);
	kv->key = sbuf_detach(&key, NULL);
	kv->value = xstrdup(colon + 2);
}

static int read_events(struct view *v, struct store *st)
{
	size_t i;

	if (store_events_load(st, v->rec.id, -1, &v->events))
		return -1;
	for (i = 0; i < v->events.n; i++) {
		const struct event_row *e = &v->events.v[i];

		if (!e->kind || !e->detail)
			continue;
		if (!strcmp(e->kind, "dep_version"))
			add_version(v, "dependency", e->detail, "");
		if (!strcmp(e->kind, "impl_version"))
			add_version(v, "implementation", e->detail, "");
		/* a container's image in full (runner_ctr.c): provenance */
		if (!strcmp(e->kind, "dep_image"))
			add_version(v, "dependency", e->detail, " (image)");
		if (!strcmp(e->kind, "impl_image"))
			add_version(v, "implementation", e->detail, " (image)");
	}
	return 0;
}

/* -------------------------------------------------------------- windows */

static char *dup_or(const char *s, const char *dflt)
{
	return s ? xstrdup(s) : dflt ? xstrdup(dflt) : NULL;
}

static int read_window_row(struct view *v, struct store *st, const struct window_row *row,
			   struct view_window *w, size_t *ialloc)
{
	memset(w, 0, sizeof(*w));
	w->id = row->id;
	w->stage = dup_or(row->stage, "");
	w->rung = row->rung;
	w->block = row->block;
	w->slot = row->slot;
	w->impl = dup_or(row->impl, "");
	w->rate = row->rate;
	w->done = row->state == WINDOW_DONE;
	w->running = row->state == WINDOW_RUNNING;
	w->wstatus = w->done ? row->status : WINDOW_STATUS_NONE;
	w->status = xstrdup(w->done ? window_status_name(row->status) : "");
	w->accepted = w->wstatus == WINDOW_ACCEPTED;
	w->failed = w->wstatus == WINDOW_FAILED;
	w->valid = w->accepted || w->failed;
	w->reasons = dup_or(row->reasons, "");
	w->attempts = row->attempts;
	w->warm = row->warm;
	w->offered_rps = row->offered_rps;
	w->achieved_rps = row->achieved_rps;
	w->duration_s = row->duration_s;
	w->started_at = row->started_at;
	w->warmup_s = row->warmup_s;
	w->ended_at = row->ended_at;
	w->has_replaces = row->has_replaces;
	w->replaces = row->replaces;
	w->due = row->due;
	w->sent = row->sent;
	w->completed = row->completed;
	w->dropped = row->dropped;
	w->errors = row->err_unexpected + row->err_connect + row->err_reset +
		    row->err_timeout + row->err_parse + row->err_other + row->dropped;
	w->ok = row->completed - row->err_unexpected;
	w->unexpected = row->err_unexpected;
	w->answers[0] = row->s2xx;
	w->answers[1] = row->s3xx;
	w->answers[2] = row->s4xx;
	w->answers[3] = row->s5xx;
	w->answers[4] = row->s_other;
	w->err_connect = row->err_connect;
	w->err_reset = row->err_reset;
	w->err_timeout = row->err_timeout;
	w->err_parse = row->err_parse;
	w->err_other = row->err_other;
	w->has_throttle = row->has_throttle;
	w->nr_throttled = row->nr_throttled;
	w->has_oom = row->has_oom;
	w->oom_kill = row->oom_kill;
	w->has_mem_peak = row->has_mem_peak;
	w->mem_peak = row->mem_peak;
	w->mem_peak_scope = !row->has_mem_peak || !row->mem_peak_scope ? NULL :
			    !strcmp(row->mem_peak_scope, "window") ? "window" : "lifetime";
	w->protocol = dup_or(row->protocol, NULL);
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
	w->cpu_wait_s = row->cpu_wait_s;
	w->anon_p50 = row->anon_p50;
	w->anon_p99 = row->anon_p99;
	w->sut_exited = row->sut_exited;
	w->cpu_ms_per_req = w->completed > 0 ? w->cpu_s * 1000.0 / (double)w->completed : NAN;
	w->pslo_ms = v->slo_pct == 99 ? w->p99_ms : NAN;
	w->impl_idx = impl_index(v, w->impl, ialloc);
	if (row->latency_hist.p) {
		hist_init(&w->lat);
		if (hist_deserialize(&w->lat, row->latency_hist.p, row->latency_hist.len)) {
			hist_release(&w->lat);
			return error("%s: window %lld: corrupt latency histogram", st->path,
				     (long long)w->id);
		}
		w->has_hist = 1;
		if (w->lat.total)
			w->pslo_ms = hist_percentile_ms(&w->lat, v->slo_pct);
	}
	return 0;
}

static int read_windows(struct view *v, struct store *st, size_t *ialloc)
{
	struct window_query q = { .with_hists = 1 };
	struct window_rows rows;
	size_t i;
	int ret = -1;

	if (store_windows_load(st, v->rec.id, &q, &rows))
		return -1;
	v->windows = xcalloc(rows.n + 1, sizeof(*v->windows));
	cells_from_windows(&v->cells, rows.v, rows.n);
	for (i = 0; i < rows.n; i++) {
		v->nwindows++;
		if (read_window_row(v, st, &rows.v[i], &v->windows[i], ialloc))
			goto out;
	}
	ret = 0;
out:
	window_rows_release(&rows);
	return ret;
}

/* One request row of window w (measured phase). */
static int read_wreq(struct view *v, struct store *st, const struct view_window *w,
		     const struct window_request *q, struct view_wreq *x)
{
	size_t j;

	x->name = dup_or(q->name, "");
	x->completed = q->completed;
	x->unexpected = q->unexpected;
	x->pslo_ms = NAN;
	for (j = 0; j < v->nreq_names; j++)
		if (!strcmp(v->req_names[j], x->name))
			x->slo_ms = v->req_slo_ms[j];
	if (!q->hist.p)
		return 0;
	hist_init(&x->h);
	x->has_hist = 1;
	if (hist_deserialize(&x->h, q->hist.p, q->hist.len))
		return error("%s: window %lld: request %s has a corrupt histogram", st->path,
			     (long long)w->id, x->name);
	if (x->h.total)
		x->pslo_ms = hist_percentile_ms(&x->h, v->slo_pct);
	return 0;
}

/* Each done window's per-request results (measured phase) and its
 * per-request promise (knee_run.h: the same rule). VIEW_DECIDE without a
 * request's own slo_ms: none read (they leave knee_ms at pslo_ms). */
static int read_requests(struct view *v, struct store *st, unsigned flags)
{
	struct window_requests reqs;
	size_t i, k;
	int ret = 0;

	for (i = 0; i < v->nwindows && !ret; i++) {
		struct view_window *w = &v->windows[i];

		w->knee_ms = w->pslo_ms;
		if (!w->done || ((flags & VIEW_DECIDE) && !v->any_req_slo))
			continue;
		if (store_requests_load(st, w->id, "measured", &reqs))
			return -1;
		w->reqs = xcalloc(reqs.n + 1, sizeof(*w->reqs));
		for (k = 0; k < reqs.n && !ret; k++) {
			struct view_wreq *x = &w->reqs[w->nreqs++];

			ret = read_wreq(v, st, w, &reqs.v[k], x);
			if (!ret && x->slo_ms > 0 && x->has_hist && x->h.total &&
			    x->pslo_ms / x->slo_ms > w->req_ratio)
				w->req_ratio = x->pslo_ms / x->slo_ms;
		}
		window_requests_release(&reqs);
		w->knee_ms = knee_apply_ratio(w->pslo_ms, v->slo_ms, w->req_ratio);
	}
	return ret;
}

/* Append x to a window's array (anon samples or per-second values). */
static void push(double **arr, size_t *n, size_t *alloc, double x)
{
	XGROW(*arr, *alloc, *n + 1);
	(*arr)[(*n)++] = x;
}

static struct view_window *window_at(struct view *v, int64_t id)
{
	return (struct view_window *)view_window_by_id(v, id);
}

/* Each window's measured per-second p99 and completions, and the count of
 * seconds before them. */
static int read_seconds(struct view *v, struct store *st)
{
	static const char *const head[] = { "warmup", "discard" };
	struct window_seconds secs;
	struct view_window *w = NULL;
	size_t i, k, alloc = 0, alloc2 = 0, ndone = 0;

	if (store_seconds_load(st, v->rec.id, -1, "measured", 0, &secs))
		return -1;
	for (i = 0; i < secs.n; i++) {
		if (!w || w->id != secs.v[i].window_id) {
			w = window_at(v, secs.v[i].window_id);
			alloc = alloc2 = ndone = 0;
		}
		if (!w)
			continue;
		push(&w->sec_p99, &w->nsec, &alloc, secs.v[i].p99_ms);
		push(&w->sec_done, &ndone, &alloc2, (double)secs.v[i].completed);
	}
	window_seconds_release(&secs);
	for (k = 0; k < ARRAY_SIZE(head); k++) {
		if (store_seconds_load(st, v->rec.id, -1, head[k], 0, &secs))
			return -1;
		for (i = 0, w = NULL; i < secs.n; i++) {
			if (!w || w->id != secs.v[i].window_id)
				w = window_at(v, secs.v[i].window_id);
			if (w)
				w->nhead++;
		}
		window_seconds_release(&secs);
	}
	return 0;
}

/* Accepted windows' anonymous-memory samples. */
static int read_samples(struct view *v, struct store *st)
{
	struct acct_samples samples;
	struct view_window *w = NULL;
	size_t i, alloc = 0;

	if (store_acct_samples_load(st, v->rec.id, -1, &samples))
		return -1;
	for (i = 0; i < samples.n; i++) {
		if (!w || w->id != samples.v[i].window_id) {
			w = window_at(v, samples.v[i].window_id);
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
static int read_recorded(struct view *v, struct store *st)
{
	struct gate_rows gates;
	size_t i;

	if (store_gates_load(st, v->rec.id, -1, &gates))
		return -1;
	for (i = 0; i < gates.n; i++) {
		const struct gate_row *g = &gates.v[i];
		struct view_window *w;
		struct sbuf sb = SBUF_INIT;

		if (g->enforced || !g->status || strcmp(g->status, "fail") || !g->gate)
			continue;
		w = window_at(v, g->window_id);
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

/* ------------------------------------------------------------- the knee */

int view_knee_stage(const char *stage)
{
	return stage && (!strcmp(stage, "ladder") || !strcmp(stage, "confirm") ||
			 !strcmp(stage, "refine"));
}

/* Implementation k's knee (knee.h) over its valid ladder, refine and
 * confirm windows; without an SLO (a spec this binary cannot read) the
 * isotonic fit alone, for the drawn curve. */
size_t view_knee_windows(const struct view *v, size_t k, int max_ladder_rung,
			 struct knee_window *out)
{
	size_t i, n = 0;

	for (i = 0; i < v->nwindows; i++) {
		const struct view_window *w = &v->windows[i];

		if (w->impl_idx != (int)k || !w->valid || !view_knee_stage(w->stage) ||
		    (max_ladder_rung >= 0 && !strcmp(w->stage, "ladder") &&
		     w->rung > max_ladder_rung))
			continue;
		out[n++] = (struct knee_window){
			w->rate, w->failed, w->knee_ms, (double)w->due,
			knee_window_bad(w->failed, (double)w->due, (double)w->errors, (double)w->ok)
		};
	}
	return n;
}

void view_knee_fit(const struct view *v, const char *impl, int max_ladder_rung, size_t nboot,
		   struct knee_result *out)
{
	const struct view_impl *im = view_impl(v, impl);
	struct knee_window *kw = xcalloc(v->nwindows + 1, sizeof(*kw));
	struct knee_params p;
	size_t n = im ? view_knee_windows(v, (size_t)(im - v->impls), max_ladder_rung, kw) : 0;

	memset(out, 0, sizeof(*out));
	knee_params_from_spec(&p, v->spec);
	p.nboot = nboot;
	knee_fit(kw, n, &p, out);
	free(kw);
}

static void fit_knee(struct view *v, size_t k)
{
	struct view_impl *im = &v->impls[k];
	struct knee_window *kw = xcalloc(v->nwindows + 1, sizeof(*kw));
	struct knee_params p;

	im->nknee = view_knee_windows(v, k, -1, kw);
	if (v->spec) {
		knee_params_from_spec(&p, v->spec);
		knee_fit(kw, im->nknee, &p, &im->knee);
	} else if (im->nknee) {
		memset(&p, 0, sizeof(p));
		p.percentile = v->slo_pct;
		p.threshold_ms = INFINITY;
		p.error_rate_max = NAN;
		p.min_reps = 10;
		p.seed = (uint64_t)v->rec.seed;
		p.level = 0.95;
		knee_fit(kw, im->nknee, &p, &im->knee);
	}
	free(kw);
}

/* ------------------------------------------------------------ the view */

/* VIEW_LEAN: the histograms' numbers are read; the histograms go. */
static void drop_hists(struct view *v)
{
	size_t i, k;

	for (i = 0; i < v->nwindows; i++) {
		struct view_window *w = &v->windows[i];

		if (w->has_hist)
			hist_release(&w->lat);
		w->has_hist = 0;
		for (k = 0; k < w->nreqs; k++) {
			if (w->reqs[k].has_hist)
				hist_release(&w->reqs[k].h);
			w->reqs[k].has_hist = 0;
		}
	}
}

/* A run stored running whose process is gone reads abandoned, with the
 * evidence (store_run.h): its directory is its database's. */
static void show_abandoned(struct view *v, const struct store *st)
{
	char *path = st->path ? xstrdup(st->path) : NULL;

	run_record_show_abandoned(&v->rec, path ? dirname(path) : NULL);
	free(path);
}

int view_load(struct view *v, struct store *st, const char *run_id)
{
	return view_load_spec(v, st, run_id, NULL, 0);
}

int view_load_flags(struct view *v, struct store *st, const char *run_id, unsigned flags)
{
	return view_load_spec(v, st, run_id, NULL, flags);
}

/* The rest of a full view: what VIEW_DECIDE leaves out. */
static int read_all(struct view *v, struct store *st, unsigned flags)
{
	size_t k;

	if (read_events(v, st) || store_window_deps_load(st, v->rec.id, -1, &v->deps) ||
	    (!(flags & VIEW_LEAN) && (read_seconds(v, st) || read_samples(v, st))) ||
	    read_recorded(v, st) || store_seq_rules_load(st, v->rec.id, &v->seq, &v->nseq))
		return -1;
	for (k = 0; k < v->nimpls; k++)
		fit_knee(v, k);
	return 0;
}

int view_load_spec(struct view *v, struct store *st, const char *run_id,
		   const struct spec *spec, unsigned flags)
{
	size_t ialloc = 0;

	memset(v, 0, sizeof(*v));
	run_record_init(&v->rec);
	if (run_record_load(st, run_id, &v->rec))
		goto fail;
	if (!(flags & VIEW_DECIDE))
		show_abandoned(v, st);
	read_spec(v, flags, spec);
	read_impls(v, &ialloc);
	if (read_windows(v, st, &ialloc) || read_requests(v, st, flags) ||
	    (!(flags & VIEW_DECIDE) && read_all(v, st, flags)))
		goto fail;
	if (flags & (VIEW_LEAN | VIEW_DECIDE))
		drop_hists(v);
	return 0;
fail:
	view_release(v);
	return -1;
}

static void window_release(struct view_window *w)
{
	size_t k;

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

void view_release(struct view *v)
{
	size_t i;

	free(v->spec_errors);
	for (i = 0; i < v->nimpls; i++)
		knee_result_release(&v->impls[i].knee);
	free(v->impls);
	for (i = 0; i < v->nwindows; i++)
		window_release(&v->windows[i]);
	free(v->windows);
	for (i = 0; i < v->nreq_names; i++)
		free(v->req_names[i]);
	free(v->req_names);
	free(v->req_slo_ms);
	for (i = 0; i < v->nversions; i++) {
		free(v->versions[i].key);
		free(v->versions[i].value);
	}
	free(v->versions);
	cells_release(&v->cells);
	event_rows_release(&v->events);
	window_dep_rows_release(&v->deps);
	seq_rules_free(v->seq, v->nseq);
	if (v->spec && !v->spec_borrowed)
		spec_free(v->spec);
	run_record_release(&v->rec);
	memset(v, 0, sizeof(*v));
}

/* ------------------------------------------------------------- lookups */

const struct view_window *view_window_by_id(const struct view *v, int64_t id)
{
	size_t lo = 0, hi = v->nwindows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->windows[mid].id == id)
			return &v->windows[mid];
		if (v->windows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct view_impl *view_impl(const struct view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nimpls; i++)
		if (!strcmp(v->impls[i].name, name))
			return &v->impls[i];
	return NULL;
}

const struct view_wreq *view_window_req(const struct view_window *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nreqs; i++)
		if (!strcmp(w->reqs[i].name, name))
			return &w->reqs[i];
	return NULL;
}
