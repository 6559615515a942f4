/*
 * p999_flat: warm-up: no upward trend in the per-second p99.9 over the trailing seconds (Mann-Kendall + Theil-Sen).
 * Fails only when the one-sided Mann-Kendall p < alpha AND the Theil-Sen
 * slope exceeds min_slope_ms_per_min (docs/DESIGN.md); a trend too small to
 * matter, or a slope that is not significant, passes.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_p999_flat;

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	gate_eval_trend(cfg, &gate_p999_flat, in->p999_ms, in->nsec, 1.0, "per-second p99.9", out);
}

const struct gate_def gate_p999_flat = {
	.name = "p999_flat",
	.help = "warm-up: no upward trend in the per-second p99.9 over the trailing seconds (Mann-Kendall + Theil-Sen)",
	.phases = GATE_PHASE_WARMUP,
	.class = GATE_VALIDITY,
	.params = gate_trend_params,
	.eval = eval,
	.points = GATE_POINTS_SECONDS,
};
