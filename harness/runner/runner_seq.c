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
 * Everything is read from the stored windows, so a resumed run takes the
 * same decisions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/rate.h"
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

/* The pairs of arms a and b at rate: values of the same block, both
 * accepted. Returns their count; xa/xb sized by the caller (wins->n). */
static size_t pair_values(const struct window_rows *wins, const char *a, const char *b,
			  double rate, const struct spec *s, int cpu, double *xa, double *xb)
{
	size_t i, j, n = 0;

	for (i = 0; i < wins->n; i++) {
		const struct window_row *w = &wins->v[i];
		if (!w->impl || strcmp(w->impl, a) || !rate_same(w->rate, rate))
			continue;
		for (j = 0; j < wins->n; j++) {
			const struct window_row *x = &wins->v[j];
			if (!x->impl || strcmp(x->impl, b) || x->block != w->block ||
			    !rate_same(x->rate, rate))
				continue;
			xa[n] = runner_seq_value(w, s, cpu);
			xb[n] = runner_seq_value(x, s, cpu);
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
	struct window_query q = { .stage = "confirm", .done_only = 1, .with_hists = 1 };
	struct window_rows wins = { NULL, 0 };
	double *xa = NULL, *xb = NULL, worst = -1;
	size_t a, b;
	int cpu, narrow = 1;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		return -1;
	xa = xcalloc(wins.n + 1, sizeof(*xa));
	xb = xcalloc(wins.n + 1, sizeof(*xb));
	for (a = 0; a < rc->narms; a++)
		for (b = a + 1; b < rc->narms; b++)
			for (cpu = 0; cpu < 2; cpu++) {
				size_t n, i;
				double sa = 0, sb = 0, half, mean, sd, m = 0, ss = 0, rel;

				if (!(s->compare.metrics & (cpu ? CMP_CPU_PER_REQUEST : CMP_P99)))
					continue;
				n = pair_values(&wins, rc->arms[a].name, rc->arms[b].name, rate, s,
						cpu, xa, xb);
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
	window_rows_release(&wins);
	return narrow;
}
