/* knee_run: a run's windows as knee input (contract in knee_run.h). */
#include "model/knee_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "spec/spec.h"
#include "store/store_window.h"
#include "base/util.h"

/* The stored percentile column for p, or NAN when the windows table keeps
 * none for it. */
static double pct_column(const struct window_row *w, double p)
{
	if (fabs(p - 50) < 1e-9)
		return w->p50_ms;
	if (fabs(p - 90) < 1e-9)
		return w->p90_ms;
	if (fabs(p - 99) < 1e-9)
		return w->p99_ms;
	if (fabs(p - 99.9) < 1e-9)
		return w->p999_ms;
	return NAN;
}

int knee_row_percentile(const struct window_row *w, double percentile, double *out)
{
	struct hist h;
	int ret = 0;

	*out = pct_column(w, percentile);
	if (!w->latency_hist.p)
		return 0;
	hist_init(&h);
	if (hist_deserialize(&h, w->latency_hist.p, w->latency_hist.len))
		ret = -1;
	else
		*out = h.total ? hist_percentile_ms(&h, percentile) : NAN;
	hist_release(&h);
	return ret;
}

/* A valid window of the knee's stages (knee_run.h). */
static int knee_input(const struct window_row *w, int max_ladder_rung)
{
	const char *stage = w->stage ? w->stage : "";

	if (w->status != WINDOW_ACCEPTED && w->status != WINDOW_FAILED)
		return 0;
	if (!strcmp(stage, "confirm") || !strcmp(stage, "refine"))
		return 1;
	return !strcmp(stage, "ladder") && (max_ladder_rung < 0 || w->rung <= max_ladder_rung);
}

double knee_window_bad(int failed, double due, double errors, double ok)
{
	double bad = errors > 0 ? errors : 0;

	if (failed && due - ok > bad)
		bad = due - ok;
	return bad;
}

int knee_has_request_slos(const struct spec *spec)
{
	size_t i;

	for (i = 0; spec && i < spec->workload.nrequests; i++)
		if (spec->workload.requests[i].slo_ms > 0)
			return 1;
	return 0;
}

int knee_request_ratio(struct store *st, int64_t wid, const struct spec *spec, double *ratio,
		       int *worst)
{
	struct window_requests reqs;
	struct hist h;
	size_t i, k;
	int ret = -1;

	*ratio = 0;
	if (worst)
		*worst = -1;
	if (!knee_has_request_slos(spec))
		return 0;
	if (store_requests_load(st, wid, "measured", &reqs))
		return -1;
	hist_init(&h);
	for (i = 0; i < reqs.n; i++) {
		const struct window_request *q = &reqs.v[i];
		double pct, x;

		for (k = 0; k < spec->workload.nrequests; k++)
			if (q->name && !strcmp(spec->workload.requests[k].name, q->name))
				break;
		if (k == spec->workload.nrequests || !(spec->workload.requests[k].slo_ms > 0) ||
		    !q->hist.p)
			continue;
		if (hist_deserialize(&h, q->hist.p, q->hist.len)) {
			error("%s: window %lld: request %s has a corrupt histogram", st->path,
			      (long long)wid, q->name);
			goto out;
		}
		if (!h.total)
			continue;
		pct = hist_percentile_ms(&h, spec->slo.percentile);
		x = pct / spec->workload.requests[k].slo_ms;
		if (x > *ratio) {
			*ratio = x;
			if (worst)
				*worst = (int)k;
		}
	}
	ret = 0;
out:
	hist_release(&h);
	window_requests_release(&reqs);
	return ret;
}

double knee_apply_ratio(double pct_ms, double threshold_ms, double ratio)
{
	if (isnan(pct_ms) || !(ratio > 0) || !isfinite(threshold_ms))
		return pct_ms;
	return pct_ms > threshold_ms * ratio ? pct_ms : threshold_ms * ratio;
}

int knee_run_windows(struct store *st, const char *run_id, const char *impl,
		     const struct spec *spec, int max_ladder_rung, struct knee_window **out,
		     size_t *n)
{
	double percentile = spec->slo.percentile, ratio;
	struct window_query q = { .impl = impl, .done_only = 1, .with_hists = 1 };
	struct window_rows rows;
	struct knee_window *w = NULL;
	size_t i;
	int ret = -1;

	*out = NULL;
	*n = 0;
	if (store_windows_load(st, run_id, &q, &rows))
		return -1;
	w = xcalloc(rows.n + 1, sizeof(*w));
	for (i = 0; i < rows.n; i++) {
		const struct window_row *r = &rows.v[i];
		struct knee_window *x;

		if (!knee_input(r, max_ladder_rung))
			continue;
		x = &w[(*n)++];
		x->rate = r->rate;
		x->failed = r->status == WINDOW_FAILED;
		if (knee_row_percentile(r, percentile, &x->pct_ms)) {
			error("%s: run %s: a window of %s has a corrupt latency histogram",
			      st->path, run_id, impl);
			goto out;
		}
		if (knee_request_ratio(st, r->id, spec, &ratio, NULL))
			goto out;
		x->pct_ms = knee_apply_ratio(x->pct_ms, spec->slo.threshold_ms, ratio);
		x->requests = (double)r->due;
		x->bad = knee_window_bad(x->failed, x->requests,
					 (double)(r->err_unexpected + r->err_connect +
						  r->err_reset + r->err_timeout + r->err_parse +
						  r->err_other + r->dropped),
					 (double)(r->completed - r->err_unexpected));
	}
	*out = w;
	w = NULL;
	ret = 0;
out:
	if (ret)
		*n = 0;
	free(w);
	window_rows_release(&rows);
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
	if (knee_run_windows(st, run_id, impl, spec, max_ladder_rung, &w, &n))
		return -1;
	knee_fit(w, n, &p, out);
	free(w);
	return 0;
}
