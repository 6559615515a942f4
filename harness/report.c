/*
 * report: read a run's database into struct report (this file), then
 * compute the roll-ups (report_rollup.c). Every SELECT binds the run id.
 */
#include "report.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "store.h"
#include "util.h"

static char *dup_col(sqlite3_stmt *s, int i)
{
	const char *t = store_col_text(s, i);

	return t ? xstrdup(t) : NULL;
}

static int int_or(sqlite3_stmt *s, int i, int def)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? def : (int)store_col_int(s, i);
}

static int step_error(struct store *st, sqlite3_stmt *s, int rc)
{
	if (rc == SQLITE_DONE)
		return 0;
	return error("%s: reading the run: %s", st->path, sqlite3_errmsg(st->db));
}

/* ------------------------------------------------------------ the run */

/* The SLO, reps and compare rule from the stored spec. When this binary
 * cannot parse it (a body_file moved, a newer spec version), the report
 * still renders its counts and percentiles with the defaults of
 * specs/README.md, says so, and omits what needs the SLO (knees, promise). */
static void load_spec(struct report *r, const char *text, size_t len)
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

static int load_run(struct report *r, struct store *st, const char *run_id)
{
	sqlite3_stmt *s;
	int ret = -1, rc;

	s = store_prepare(st, "SELECT id, spec_name, spec_path, spec_text, spec_hash, seed,"
			  " stages, created_at, finished_at, status, failure, exploratory,"
			  " forced, harness_version, parent_run, sandbox_user, spec_repo,"
			  " spec_commit, spec_branch, spec_dirty FROM runs WHERE id = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			error("%s: no run '%s' in the database", st->path, run_id);
		else
			step_error(st, s, rc);
		goto out;
	}
	r->run_id = dup_col(s, 0);
	r->spec_name = dup_col(s, 1);
	r->spec_path = dup_col(s, 2);
	r->spec_hash = dup_col(s, 4);
	r->seed = (uint64_t)store_col_int(s, 5);
	r->stages = dup_col(s, 6);
	r->created_at = store_col_real(s, 7);
	r->finished_at = store_col_real(s, 8);
	r->status = dup_col(s, 9);
	r->failure = dup_col(s, 10);
	r->exploratory = int_or(s, 11, 0);
	r->forced = int_or(s, 12, 0);
	r->run_harness_version = dup_col(s, 13);
	r->parent_run = dup_col(s, 14);
	r->sandbox_user = dup_col(s, 15);
	r->spec_repo = dup_col(s, 16);
	r->spec_commit = dup_col(s, 17);
	r->spec_branch = dup_col(s, 18);
	r->spec_dirty = int_or(s, 19, -1);
	load_spec(r, sqlite3_column_blob(s, 3), (size_t)sqlite3_column_bytes(s, 3));
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
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

static int load_impls(struct report *r, struct store *st, size_t *alloc)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT name, ord, repo, commit_id, branch, dirty, diff_hash,"
			  " ref_asked, remote_url, baseline_of, knee_rps, knee_crossed"
			  " FROM impls WHERE run_id = ? ORDER BY ord, name");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int k = add_impl(r, store_col_text(s, 0) ? store_col_text(s, 0) : "", alloc);
		struct report_impl *im = &r->impls[k];	/* after add_impl's realloc */

		im->repo = dup_col(s, 2);
		im->commit = dup_col(s, 3);
		im->branch = dup_col(s, 4);
		im->dirty = int_or(s, 5, -1);
		im->diff_hash = dup_col(s, 6);
		im->ref_asked = dup_col(s, 7);
		im->remote_url = dup_col(s, 8);
		im->baseline_of = dup_col(s, 9);
		im->run_knee_rps = store_col_real(s, 10);
		im->run_knee_crossed = int_or(s, 11, -1);
	}
	rc = step_error(st, s, rc);
	sqlite3_finalize(s);
	return rc;
}

static int load_host(struct report *r, struct store *st)
{
	sqlite3_stmt *s;
	size_t alloc = 0, ealloc = 0;
	int rc;

	s = store_prepare(st, "SELECT key, value FROM host_facts WHERE run_id = ? ORDER BY key");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(r->host, alloc, r->nhost + 1);
		r->host[r->nhost].key = dup_col(s, 0);
		r->host[r->nhost].value = dup_col(s, 1);
		r->nhost++;
	}
	rc = step_error(st, s, rc);
	sqlite3_finalize(s);
	if (rc)
		return rc;
	s = store_prepare(st, "SELECT kind, count(*) FROM events WHERE run_id = ?"
			  " GROUP BY kind ORDER BY kind");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(r->events, ealloc, r->nevents + 1);
		r->events[r->nevents].kind = dup_col(s, 0);
		r->events[r->nevents].count = (size_t)store_col_int(s, 1);
		r->nevents++;
	}
	rc = step_error(st, s, rc);
	sqlite3_finalize(s);
	return rc;
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

static int64_t col_sum(sqlite3_stmt *s, int from, int to)
{
	int64_t v = 0;
	int i;

	for (i = from; i <= to; i++)
		v += store_col_int(s, i);
	return v;
}

static int load_window_row(struct report *r, struct store *st, sqlite3_stmt *s,
			   struct report_window *w, size_t *ialloc)
{
	const char *state = store_col_text(s, 7);
	const char *status = store_col_text(s, 8);
	const void *blob;

	memset(w, 0, sizeof(*w));
	w->id = store_col_int(s, 0);
	w->stage = xstrdup(store_col_text(s, 1) ? store_col_text(s, 1) : "");
	w->rung = (int)store_col_int(s, 2);
	w->block = (int)store_col_int(s, 3);
	w->slot = (int)store_col_int(s, 4);
	w->impl = xstrdup(store_col_text(s, 5) ? store_col_text(s, 5) : "");
	w->impl_idx = impl_index(r, w->impl, ialloc);
	w->rate = store_col_real(s, 6);
	w->done = state && !strcmp(state, "done");
	w->status = xstrdup(w->done && status ? status : "");
	w->accepted = w->done && !strcmp(w->status, "accepted");
	w->reasons = xstrdup(store_col_text(s, 9) ? store_col_text(s, 9) : "");
	w->attempts = (int)store_col_int(s, 10);
	w->warm = int_or(s, 11, -1);
	w->offered_rps = store_col_real(s, 12);
	w->achieved_rps = store_col_real(s, 13);
	w->duration_s = store_col_real(s, 14);
	w->started_at = store_col_real(s, 15);
	w->due = store_col_int(s, 16);
	w->sent = store_col_int(s, 17);
	w->completed = store_col_int(s, 18);
	w->dropped = store_col_int(s, 19);
	/* s4xx s5xx s_other err_connect..err_other, then dropped */
	w->errors = col_sum(s, 20, 27) + w->dropped;
	w->p50_ms = store_col_real(s, 28);
	w->p90_ms = store_col_real(s, 29);
	w->p99_ms = store_col_real(s, 30);
	w->p999_ms = store_col_real(s, 31);
	w->max_ms = store_col_real(s, 32);
	w->lateness_p99_ms = store_col_real(s, 33);
	w->gen_cpu_s = store_col_real(s, 34);
	w->cpu_s = store_col_real(s, 35);
	w->anon_p99 = store_col_real(s, 36);
	w->sut_exited = (int)store_col_int(s, 38);
	w->cpu_ms_per_req = w->completed > 0 ? w->cpu_s * 1000.0 / (double)w->completed : NAN;
	w->pslo_ms = r->slo_pct == 99 ? w->p99_ms : NAN;
	blob = sqlite3_column_blob(s, 37);
	if (blob) {
		hist_init(&w->lat);
		if (hist_deserialize(&w->lat, blob, (size_t)sqlite3_column_bytes(s, 37))) {
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

static int load_windows(struct report *r, struct store *st, size_t *ialloc)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc, ret = -1;

	s = store_prepare(st, "SELECT id, stage, rung, block, slot, impl, rate, state, status,"
			  " reasons, attempts, warm, offered_rps, achieved_rps, duration_s,"
			  " started_at, due, sent, completed, dropped, s4xx, s5xx, s_other,"
			  " err_connect, err_reset, err_timeout, err_parse, err_other,"
			  " p50_ms, p90_ms, p99_ms, p999_ms, max_ms, lateness_p99_ms, gen_cpu_s,"
			  " cpu_s, anon_p99, latency_hist, sut_exited"
			  " FROM windows WHERE run_id = ? ORDER BY id");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(r->windows, alloc, r->nwindows + 1);
		if (load_window_row(r, st, s, &r->windows[r->nwindows], ialloc)) {
			r->nwindows++;
			goto out;
		}
		r->nwindows++;
	}
	ret = step_error(st, s, rc);
out:
	sqlite3_finalize(s);
	return ret;
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

enum window_series { WS_SEC_P99, WS_ANON };

/* Read (window_id, value) rows of sql, ordered by window, into each
 * window's per-second p99 or anon-sample array. */
static int load_window_values(struct report *r, struct store *st, const char *sql,
			      enum window_series which)
{
	sqlite3_stmt *s = store_prepare(st, sql);
	struct report_window *w = NULL;
	size_t alloc = 0;
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = store_col_int(s, 0);

		if (!w || w->id != id) {
			w = window_by_id(r, id);
			alloc = 0;
			if (!w)
				continue;
		}
		if (which == WS_SEC_P99)
			push(&w->sec_p99, &w->nsec, &alloc, store_col_real(s, 1));
		else
			push(&w->anon, &w->nanon, &alloc, store_col_real(s, 1));
	}
	rc = step_error(st, s, rc);
	sqlite3_finalize(s);
	return rc;
}

static int load_series(struct report *r, struct store *st)
{
	if (load_window_values(r, st, "SELECT s.window_id, s.p99_ms FROM seconds s"
				      " JOIN windows w ON w.id = s.window_id"
				      " WHERE w.run_id = ? AND s.phase = 'measured'"
				      " ORDER BY s.window_id, s.idx",
			       WS_SEC_P99))
		return -1;
	return load_window_values(r, st, "SELECT a.window_id, a.anon_bytes FROM acct_samples a"
					 " JOIN windows w ON w.id = a.window_id"
					 " WHERE w.run_id = ? AND w.status = 'accepted'"
					 " AND a.anon_bytes IS NOT NULL ORDER BY a.window_id, a.t_ms",
				  WS_ANON);
}

/* Failures of gates with enforce: false: they rejected nothing, and the
 * report shows them beside the rejections ("recorded"). */
static int load_recorded(struct report *r, struct store *st)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT g.window_id, g.gate FROM gate_results g"
			  " JOIN windows w ON w.id = g.window_id"
			  " WHERE w.run_id = ? AND g.status = 'fail' AND g.enforced = 0"
			  " ORDER BY g.window_id");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct report_window *w = window_by_id(r, store_col_int(s, 0));
		const char *gate = store_col_text(s, 1);
		struct sbuf sb = SBUF_INIT;

		if (!w || !gate)
			continue;
		if (w->recorded)
			sbuf_adds(&sb, w->recorded);
		sbuf_addf(&sb, "%s%s", sb.len ? "," : "", gate);
		free(w->recorded);
		w->recorded = sbuf_detach(&sb, NULL);
	}
	rc = step_error(st, s, rc);
	sqlite3_finalize(s);
	return rc;
}

int report_load(struct report *r, struct store *st, const char *run_id)
{
	size_t ialloc = 0;

	memset(r, 0, sizeof(*r));
	r->spec_dirty = -1;
	r->nboot = 2000;
	r->report_version = harness_version;
	if (load_run(r, st, run_id) || load_impls(r, st, &ialloc) || load_host(r, st) ||
	    load_windows(r, st, &ialloc) || load_series(r, st) || load_recorded(r, st))
		return -1;
	return report_rollup(r);
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
	size_t i;

	free(r->run_id);
	free(r->spec_name);
	free(r->spec_path);
	free(r->spec_hash);
	free(r->stages);
	free(r->status);
	free(r->failure);
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
		if (w->has_hist)
			hist_release(&w->lat);
		free(w->anon);
		free(w->sec_p99);
	}
	free(r->windows);
	for (i = 0; i < r->nrungs; i++)
		free_reasons(r->rungs[i].reasons, r->rungs[i].nreasons);
	free(r->rungs);
	free(r->ratios);
	free(r->verdicts);
	free_reasons(r->gate_fails, r->ngate_fails);
	run_quality_release(&r->quality);
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
