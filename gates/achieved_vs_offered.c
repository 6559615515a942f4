/*
 * achieved_vs_offered: the server kept up with the open-loop schedule:
 * |achieved - offered| / offered * 100 <= tolerance_pct. A window where the
 * server (or the generator) fell behind measured a different rate than its
 * rung says.
 */
#include <math.h>

#include "gate.h"

extern const struct gate_def gate_achieved_vs_offered;

static const struct gate_param params[] = {
	{ "tolerance_pct", GP_NUM, 2.0, 0, 100, 0,
	  "allowed deviation of the achieved rate from the offered rate, percent" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double tol = gate_param_num(cfg, &gate_achieved_vs_offered, "tolerance_pct");
	double dev;

	if (!(in->offered_rps > 0) || !isfinite(in->achieved_rps) || !(in->duration_s > 0)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "rate_dev_pct", NAN, tol,
			     "offered %.1f req/s, achieved %.1f req/s over %.1fs: nothing to compare",
			     in->offered_rps, in->achieved_rps, in->duration_s);
		return;
	}
	dev = fabs(in->achieved_rps - in->offered_rps) / in->offered_rps * 100.0;
	gate_resultf(out, dev <= tol ? GATE_PASS : GATE_FAIL, "rate_dev_pct", dev, tol,
		     "achieved %.1f req/s vs offered %.1f req/s: %.2f%% off (tolerance %g%%)",
		     in->achieved_rps, in->offered_rps, dev, tol);
}

const struct gate_def gate_achieved_vs_offered = {
	.name = "achieved_vs_offered",
	.help = "|achieved - offered| / offered within tolerance_pct percent",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = params,
	.eval = eval,
};
