/* knee_run: a run's windows as knee input (contract in knee_run.h). */
#include "knee_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "spec.h"
#include "util.h"

/* The stored column for a percentile the windows table keeps, or -1. */
static int pct_column(double p)
{
	static const double pcts[] = { 50, 90, 99, 99.9 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		if (fabs(p - pcts[i]) < 1e-9)
			return (int)i;
	return -1;
}

double knee_window_bad(int failed, double due, double errors, double ok)
{
	double bad = errors > 0 ? errors : 0;

	if (failed && due - ok > bad)
		bad = due - ok;
	return bad;
}

int knee_run_windows(struct store *st, const char *run_id, const char *impl,
		     double percentile, int max_ladder_rung, struct knee_window **out,
		     size_t *n)
{
	sqlite3_stmt *s = store_prepare(st,
		"SELECT rate, status, latency_hist, p50_ms, p90_ms, p99_ms, p999_ms, due,"
		" COALESCE(s4xx, 0) + COALESCE(s5xx, 0) + COALESCE(s_other, 0)"
		" + COALESCE(err_connect, 0) + COALESCE(err_reset, 0) + COALESCE(err_timeout, 0)"
		" + COALESCE(err_parse, 0) + COALESCE(err_other, 0) + COALESCE(dropped, 0),"
		" COALESCE(s2xx, 0) + COALESCE(s3xx, 0)"
		" FROM windows WHERE run_id = ? AND impl = ? AND state = 'done'"
		" AND status IN ('accepted', 'failed')"
		" AND (stage IN ('confirm', 'refine') OR (stage = 'ladder' AND (?3 < 0 OR rung <= ?3)))"
		" ORDER BY id");
	struct knee_window *w = NULL;
	struct hist h;
	size_t alloc = 0;
	int col = pct_column(percentile), rc, ret = -1;

	*out = NULL;
	*n = 0;
	if (!s)
		return -1;
	hist_init(&h);
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, impl, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, max_ladder_rung);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct knee_window *x;
		const void *blob = sqlite3_column_blob(s, 2);

		XGROW(w, alloc, *n + 1);
		x = &w[(*n)++];
		x->rate = store_col_real(s, 0);
		x->failed = !strcmp(store_col_text(s, 1), "failed");
		x->pct_ms = col >= 0 ? store_col_real(s, 3 + col) : NAN;
		if (blob) {
			if (hist_deserialize(&h, blob, (size_t)sqlite3_column_bytes(s, 2))) {
				error("%s: run %s: a window of %s has a corrupt latency histogram",
				      st->path, run_id, impl);
				goto out;
			}
			x->pct_ms = h.total ? hist_percentile_ms(&h, percentile) : NAN;
		}
		x->requests = (double)store_col_int(s, 7);
		x->bad = knee_window_bad(x->failed, x->requests, (double)store_col_int(s, 8),
					 (double)store_col_int(s, 9));
	}
	if (rc != SQLITE_DONE) {
		error("%s: %s", st->path, sqlite3_errmsg(st->db));
		goto out;
	}
	*out = w;
	w = NULL;
	ret = 0;
out:
	if (ret)
		*n = 0;
	free(w);
	hist_release(&h);
	sqlite3_finalize(s);
	return ret;
}

int knee_for_impl(struct store *st, const char *run_id, const char *impl,
		  const struct spec *spec, int max_ladder_rung, size_t nboot,
		  struct knee_result *out)
{
	struct knee_params p;
	struct knee_window *w = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	knee_params_from_spec(&p, spec);
	p.nboot = nboot;
	if (knee_run_windows(st, run_id, impl, p.percentile, max_ladder_rung, &w, &n))
		return -1;
	knee_fit(w, n, &p, out);
	free(w);
	return 0;
}
