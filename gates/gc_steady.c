/*
 * gc_steady: the runtime's garbage collector has settled. Two runtime-stats
 * signals: the cumulative GC count (its per-interval rate, increments over
 * the poll interval, must show no upward trend: one-sided Mann-Kendall
 * p >= alpha) AND the committed heap (fails only when Mann-Kendall p <
 * alpha AND its Theil-Sen slope exceeds committed_slope_pct_per_min percent
 * of its median per minute). A warming JIT or a growing heap fails it.
 */
#include <math.h>
#include <stdlib.h>

#include "gate/gate.h"
#include "stat/stat.h"
#include "base/util.h"

extern const struct gate_def gate_gc_steady;

static const struct gate_param params[] = {
	{ "count", GP_SIGNAL, 0, 0, 0, 1,
	  "runtime-stats signal with the cumulative GC count" },
	{ "committed", GP_SIGNAL, 0, 0, 0, 1,
	  "runtime-stats signal with the committed heap (bytes)" },
	{ "alpha", GP_NUM, 0.05, 1e-9, 0.5, 0,
	  "significance level of both one-sided Mann-Kendall tests" },
	{ "committed_slope_pct_per_min", GP_NUM, 1.0, 0, 1e6, 0,
	  "a significant heap trend fails only above this slope, % of the median heap per minute" },
	{ "min_points", GP_NUM, 5, 3, 1e9, 0,
	  "polls of each signal needed to judge (fewer: not_evaluable)" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	const char *cname = gate_param_str(cfg, "count");
	const char *hname = gate_param_str(cfg, "committed");
	double alpha = gate_param_num(cfg, &gate_gc_steady, "alpha");
	double bound = gate_param_num(cfg, &gate_gc_steady, "committed_slope_pct_per_min");
	double min_points = gate_param_num(cfg, &gate_gc_steady, "min_points");
	const struct gate_series *sc = gate_input_series(in, cname);
	const struct gate_series *sh = gate_input_series(in, hname);
	struct mk_result mkc, mkh;
	double *rate = NULL, slope, med, pct;
	size_t i, k = 0;
	int gc_bad, heap_bad;

	if (!sc || !sh || (double)sc->n < min_points || (double)sh->n < min_points) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "mk_p", NAN, alpha,
			     "%s: %zu polls, %s: %zu polls, need %.0f of each",
			     cname ? cname : "count", sc ? sc->n : 0,
			     hname ? hname : "committed", sh ? sh->n : 0, min_points);
		return;
	}
	rate = xmalloc(sc->n * sizeof(*rate));
	for (i = 1; i < sc->n; i++) {
		double dt = sc->t[i] - sc->t[i - 1], dv = sc->v[i] - sc->v[i - 1];

		if (dt <= 0)
			continue;
		if (dv < 0) {
			gate_resultf(out, GATE_NOT_EVALUABLE, "mk_p", NAN, alpha,
				     "%s went backwards (%.0f -> %.0f at t=%.1fs): restarted?",
				     cname, sc->v[i - 1], sc->v[i], sc->t[i]);
			goto out;
		}
		rate[k++] = dv / dt;
	}
	if (stat_mann_kendall(rate, k, &mkc) < 0) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "mk_p", NAN, alpha,
			     "%s: %zu intervals, need 3", cname, k);
		goto out;
	}
	stat_mann_kendall(sh->v, sh->n, &mkh);
	slope = stat_theil_sen(sh->t, sh->v, sh->n) * 60.0;
	med = stat_median(sh->v, sh->n);
	pct = med > 0 ? slope / med * 100.0 : (slope > 0 ? INFINITY : 0);
	gc_bad = mkc.p < alpha;
	heap_bad = mkh.p < alpha && pct > bound;
	gate_resultf(out, gc_bad || heap_bad ? GATE_FAIL : GATE_PASS, "mk_p",
		     gc_bad || !heap_bad ? mkc.p : mkh.p, alpha,
		     "GC rate (%s): n=%zu S=%.0f p=%.4g; heap (%s): n=%zu S=%.0f p=%.4g "
		     "Theil-Sen %+.3f%%/min of median %.0f (bound %g%%); alpha %g",
		     cname, mkc.n, mkc.s, mkc.p, hname, mkh.n, mkh.s, mkh.p, pct, med,
		     bound, alpha);
out:
	free(rate);
}

const struct gate_def gate_gc_steady = {
	.name = "gc_steady",
	.help = "warm-up: GC cadence (rate of the GC count) shows no upward trend AND the committed heap is flat",
	.phases = GATE_PHASE_WARMUP,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
	.points = GATE_POINTS_POLLS,
};
