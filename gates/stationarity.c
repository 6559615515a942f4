/*
 * stationarity: window: no upward trend in the per-second p99 over the measured window (Mann-Kendall + Theil-Sen).
 * Fails only when the one-sided Mann-Kendall p < alpha AND the Theil-Sen
 * slope exceeds min_slope_ms_per_min (docs/DESIGN.md); a trend too small to
 * matter, or a slope that is not significant, passes.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_stationarity;

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	gate_eval_trend(cfg, &gate_stationarity, in->p99_ms, in->nsec, 1.0, "per-second p99", out);
}

const struct gate_def gate_stationarity = {
	.name = "stationarity",
	.help = "window: no upward trend in the per-second p99 over the measured window (Mann-Kendall + Theil-Sen)",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = gate_trend_params,
	.eval = eval,
	.points = GATE_POINTS_SECONDS,
};
