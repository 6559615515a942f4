/*
 * compare: load a run as compare needs it (the verdict is compare_verdict.c,
 * the rules are in compare.h).
 */
#include "compare.h"
#include "hist.h"
#include "spec.h"
#include "store.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ loading */

static void rule_from_spec(struct cmp_run *r, const char *text, size_t len,
			   const char *spec_path)
{
	struct spec *s;

	/* Defaults (specs/README.md): used when the stored spec cannot be
	 * parsed by this binary. */
	r->slo_pct = 99;
	r->slo_ms = NAN;
	r->min_reps = 3;
	r->margin_pct = 5;
	r->alpha = 0.05;
	r->min_pairs = 3;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	s = spec_parse(text, len, spec_path && *spec_path ? spec_path : "spec.yaml", r->dir);
	if (!s) {
		warning("run %s: its stored spec does not parse; using the default compare rule "
			"and no knee", r->id);
		return;
	}
	r->spec_ok = 1;
	r->slo_pct = s->slo.percentile;
	r->slo_ms = s->slo.threshold_ms;
	r->min_reps = (size_t)(s->confirm.present ? s->confirm.reps : s->ladder.reps);
	r->margin_pct = s->compare.margin_pct;
	r->alpha = s->compare.alpha;
	r->min_pairs = (size_t)s->compare.min_pairs;
	r->metrics = s->compare.metrics;
	spec_free(s);
}

static int load_run_row(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	int ret = -1;

	s = store_prepare(st, "SELECT spec_name, spec_text, spec_hash, seed, status, exploratory,"
			  " spec_path, failure, failure_kind, failure_impl FROM runs WHERE id = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW) {
		error("%s: run %s is not in its database", r->dir, r->id);
		goto out;
	}
	r->spec_name = xstrdup(store_col_text(s, 0) ? store_col_text(s, 0) : "");
	r->spec_hash = xstrdup(store_col_text(s, 2) ? store_col_text(s, 2) : "");
	r->seed = (uint64_t)store_col_int(s, 3);
	r->status = xstrdup(store_col_text(s, 4) ? store_col_text(s, 4) : "");
	r->exploratory = (int)store_col_int(s, 5);
	r->failure = store_col_text(s, 7) ? xstrdup(store_col_text(s, 7)) : NULL;
	r->failure_kind = store_col_text(s, 8) ? xstrdup(store_col_text(s, 8)) : NULL;
	r->failure_impl = store_col_text(s, 9) ? xstrdup(store_col_text(s, 9)) : NULL;
	rule_from_spec(r, sqlite3_column_blob(s, 1), (size_t)sqlite3_column_bytes(s, 1),
		       store_col_text(s, 6));
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int load_impls(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	size_t alloc = 0, a2 = 0, a3 = 0;
	int rc;

	s = store_prepare(st, "SELECT name, commit_id, ref_asked FROM impls WHERE run_id = ?"
			  " ORDER BY ord, name");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *c = store_col_text(s, 1), *f = store_col_text(s, 2);
		XGROW(r->impls, alloc, r->nimpls + 1);
		XGROW(r->commits, a2, r->nimpls + 1);
		XGROW(r->refs, a3, r->nimpls + 1);
		r->impls[r->nimpls] = xstrdup(store_col_text(s, 0));
		r->commits[r->nimpls] = c ? xstrdup(c) : NULL;
		r->refs[r->nimpls] = f ? xstrdup(f) : NULL;
		r->nimpls++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return error("%s: reading impls: %s", r->dir, sqlite3_errmsg(st->db));
	return 0;
}

/* accepted | failed | anything else (rejected, or a status this binary
 * does not know: void, never evidence). */
static enum cmp_wstatus wstatus(const char *s)
{
	if (s && !strcmp(s, "accepted"))
		return CMP_W_ACCEPTED;
	if (s && !strcmp(s, "failed"))
		return CMP_W_FAILED;
	return CMP_W_REJECTED;
}

static int load_windows(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(st, "SELECT impl, stage, rung, block, rate, completed, cpu_s, p99_ms,"
			  " latency_hist, status, reasons FROM windows WHERE run_id = ?"
			  " AND state = 'done' ORDER BY id");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct cmp_win *w;
		const void *blob = sqlite3_column_blob(s, 8);
		int blen = sqlite3_column_bytes(s, 8);

		XGROW(r->w, alloc, r->nw + 1);
		w = &r->w[r->nw++];
		memset(w, 0, sizeof(*w));
		w->impl = xstrdup(store_col_text(s, 0));
		w->stage = xstrdup(store_col_text(s, 1));
		w->rung = (int)store_col_int(s, 2);
		w->block = (int)store_col_int(s, 3);
		w->rate = store_col_real(s, 4);
		w->completed = store_col_int(s, 5);
		w->cpu_s = store_col_real(s, 6);
		w->p99_ms = store_col_real(s, 7);
		w->pslo_ms = w->p99_ms;
		w->status = wstatus(store_col_text(s, 9));
		w->reasons = store_col_text(s, 10) ? xstrdup(store_col_text(s, 10)) : NULL;
		if (blob && blen > 0) {
			struct hist *h = xmalloc(sizeof(*h));
			hist_init(h);
			if (hist_deserialize(h, blob, (size_t)blen)) {
				hist_release(h);
				free(h);
				sqlite3_finalize(s);
				return error("%s: window of %s at %g req/s has a corrupt latency "
					     "histogram", r->dir, w->impl, w->rate);
			}
			w->hist = h;
			w->has_hist = 1;
			w->p99_ms = hist_percentile_ms(h, 99);
			w->pslo_ms = hist_percentile_ms(h, r->slo_pct);
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return error("%s: reading windows: %s", r->dir, sqlite3_errmsg(st->db));
	return 0;
}

int cmp_run_load(struct cmp_run *r, const char *runs_dir, const char *run)
{
	struct store st = { 0 };
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	r->dir = sbuf_detach(&dir, NULL);
	r->id = sbuf_detach(&id, NULL);
	if (load_run_row(r, &st) || load_impls(r, &st) || load_windows(r, &st))
		goto out;
	ret = 0;
out:
	if (st.db)
		store_close(&st);
	if (ret)
		cmp_run_release(r);
	sbuf_release(&dir);
	sbuf_release(&id);
	return ret;
}

void cmp_run_release(struct cmp_run *r)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++) {
		free(r->impls[i]);
		free(r->commits[i]);
		free(r->refs[i]);
	}
	for (i = 0; i < r->nw; i++) {
		free(r->w[i].impl);
		free(r->w[i].stage);
		free(r->w[i].reasons);
		if (r->w[i].hist) {
			hist_release(r->w[i].hist);
			free(r->w[i].hist);
		}
	}
	free(r->impls);
	free(r->commits);
	free(r->refs);
	free(r->w);
	free(r->id);
	free(r->dir);
	free(r->spec_name);
	free(r->spec_hash);
	free(r->status);
	free(r->failure);
	free(r->failure_kind);
	free(r->failure_impl);
	memset(r, 0, sizeof(*r));
}

