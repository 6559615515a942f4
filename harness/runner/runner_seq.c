/*
 * runner_seq: the stopping rule of sequential confirm (stages.confirm.until;
 * docs/STATISTICS.md "Sequential confirm").
 *
 * At one confirm rate, every pair of implementations (a before b in spec
 * order) and every metric of compare.metric: the per-block differences of
 * their accepted windows; Robbins' normal-mixture confidence sequence of
 * their mean (stat.h) at compare.alpha, tuned for confirm.reps. The rate
 * is done when every sequence rests on 3 pairs or more and its half-width
 * is under half_width_pct % of the pair's mean value. The sequence covers at every block count at once,
 * so looking after each block and stopping when narrow keeps its error
 * rate; a fixed-n interval would not.
 *
 * Everything is read from the stored windows through the run view
 * (view.h, runner_view), so a resumed run takes the same decisions: a
 * window's latency is its pslo_ms, its CPU its cpu_ms_per_req.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/rate.h"
#include "model/view.h"
#include "runner/runner_internal.h"
#include "stat/stat.h"
#include "store/store_window.h"
#include "base/util.h"

double runner_seq_value(const struct window_row *w, const struct spec *s, int cpu)
{
	struct hist h;
	double v = NAN;

	if (w->status != WINDOW_ACCEPTED)
		return NAN;
	if (cpu)
		return isfinite(w->cpu_s) && w->completed > 0 ? w->cpu_s * 1e3 / (double)w->completed
							      : NAN;
	hist_init(&h);
	if (w->latency_hist.p && !hist_deserialize(&h, w->latency_hist.p, w->latency_hist.len) &&
	    h.total)
		v = hist_percentile_ms(&h, s->slo.percentile);
	else if (!w->latency_hist.p)
		v = w->p99_ms;
	hist_release(&h);
	return v;
}

/* A done confirm window of the view: what the sequence reads. */
static int confirm_done(const struct view_window *w)
{
	return w->done && !strcmp(w->stage, "confirm");
}

/* An accepted window's value: its SLO percentile, or its CPU per request
 * (ms); NAN for any other window. */
static double seq_value(const struct view_window *w, int cpu)
{
	if (!w->accepted)
		return NAN;
	return cpu ? w->cpu_ms_per_req : w->pslo_ms;
}

/* The pairs of arms a and b at rate: values of the same confirm block,
 * both accepted. Returns their count; xa/xb sized by the caller
 * (v->nwindows). */
static size_t pair_values(const struct view *v, const char *a, const char *b, double rate,
			  int cpu, double *xa, double *xb)
{
	size_t i, j, n = 0;

	for (i = 0; i < v->nwindows; i++) {
		const struct view_window *w = &v->windows[i];
		if (!confirm_done(w) || strcmp(w->impl, a) || !rate_same(w->rate, rate))
			continue;
		for (j = 0; j < v->nwindows; j++) {
			const struct view_window *x = &v->windows[j];
			if (!confirm_done(x) || strcmp(x->impl, b) || x->block != w->block ||
			    !rate_same(x->rate, rate))
				continue;
			xa[n] = seq_value(w, cpu);
			xb[n] = seq_value(x, cpu);
			if (isfinite(xa[n]) && isfinite(xb[n]))
				n++;
			break;
		}
	}
	return n;
}

int runner_seq_narrow(struct run_ctx *rc, double rate, struct sbuf *why)
{
	const struct spec *s = rc->spec;
	struct view v;
	double *xa = NULL, *xb = NULL, worst = -1;
	size_t a, b;
	int cpu, narrow = 1;

	if (runner_view(rc, &v))
		return -1;
	xa = xcalloc(v.nwindows + 1, sizeof(*xa));
	xb = xcalloc(v.nwindows + 1, sizeof(*xb));
	for (a = 0; a < rc->narms; a++)
		for (b = a + 1; b < rc->narms; b++)
			for (cpu = 0; cpu < 2; cpu++) {
				size_t n, i;
				double sa = 0, sb = 0, half, mean, sd, m = 0, ss = 0, rel;

				if (!(s->compare.metrics & (cpu ? CMP_CPU_PER_REQUEST : CMP_P99)))
					continue;
				n = pair_values(&v, rc->arms[a].name, rc->arms[b].name, rate, cpu,
						xa, xb);
				for (i = 0; i < n; i++) {
					sa += xa[i];
					sb += xb[i];
					m += xa[i] - xb[i];
				}
				m = n ? m / (double)n : NAN;
				for (i = 0; i < n; i++)
					ss += (xa[i] - xb[i] - m) * (xa[i] - xb[i] - m);
				sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
				half = stat_cs_half_width(sd, n, s->compare.alpha,
							  (double)s->confirm.reps);
				mean = n ? (sa + sb) / (2.0 * (double)n) : NAN;
				rel = isfinite(half) && mean > 0 ? half / mean * 100 : INFINITY;
				/* a standard deviation from fewer than 3 pairs
				 * says nothing: never narrow */
				if (n < 3 || !(rel < s->confirm.until.half_width_pct))
					narrow = 0;
				if (rel > worst) {
					worst = rel;
					sbuf_reset(why);
					sbuf_addf(why, "widest: %s - %s %s, half-width ", rc->arms[a].name,
						  rc->arms[b].name, cpu ? "cpu_per_request" : "latency");
					if (isfinite(rel))
						sbuf_addf(why, "%.1f%% of the mean over %zu pairs", rel, n);
					else
						sbuf_addf(why, "unknown (%zu pairs)", n);
				}
			}
	free(xa);
	free(xb);
	view_release(&v);
	return narrow;
}
