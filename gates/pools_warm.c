/*
 * pools_warm: a connection/thread pool has grown to its maximum, so the
 * window does not pay for pool growth: the last polled `total` equals the
 * last polled `max` (two runtime-stats signals).
 */
#include <math.h>

#include "gate/gate.h"

static const struct gate_param params[] = {
	{ "total", GP_SIGNAL, 0, 0, 0, 1, "runtime-stats signal with the pool's current size" },
	{ "max", GP_SIGNAL, 0, 0, 0, 1, "runtime-stats signal with the pool's maximum size" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	const char *tn = gate_param_str(cfg, "total"), *mn = gate_param_str(cfg, "max");
	const struct gate_series *st = gate_input_series(in, tn);
	const struct gate_series *sm = gate_input_series(in, mn);
	double total, max;

	if (!st || !sm || !st->n || !sm->n) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "pool_total", NAN, NAN,
			     "%s: %zu polls, %s: %zu polls (need one of each)",
			     tn ? tn : "total", st ? st->n : 0, mn ? mn : "max", sm ? sm->n : 0);
		return;
	}
	total = st->v[st->n - 1];
	max = sm->v[sm->n - 1];
	gate_resultf(out, total == max ? GATE_PASS : GATE_FAIL, "pool_total", total, max,
		     "last %s=%.0f at t=%.1fs, last %s=%.0f at t=%.1fs", tn, total,
		     st->t[st->n - 1], mn, max, sm->t[sm->n - 1]);
}

const struct gate_def gate_pools_warm = {
	.name = "pools_warm",
	.help = "warm-up: the pool has reached its maximum (last total == last max)",
	.phases = GATE_PHASE_WARMUP,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
