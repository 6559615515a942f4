/*
 * throttled: the implementation's cgroup was not CPU-throttled (cpu.stat
 * nr_throttled) more than max_periods times: a throttled window measures
 * the quota, not the code.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_throttled;

static const struct gate_param params[] = {
	{ "max_periods", GP_NUM, 0, 0, 1e15, 0, "throttled CFS periods allowed in the phase" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max = gate_param_num(cfg, &gate_throttled, "max_periods");

	if (!in->has_throttle) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "nr_throttled", NAN, max,
			     "accounting backend %s gives no throttling count",
			     in->acct_backend ? in->acct_backend : "(none)");
		return;
	}
	gate_resultf(out, (double)in->nr_throttled <= max ? GATE_PASS : GATE_FAIL,
		     "nr_throttled", (double)in->nr_throttled, max,
		     "%llu throttled periods, %.1f ms throttled (max %.0f periods)",
		     (unsigned long long)in->nr_throttled, in->throttled_usec / 1000.0, max);
}

const struct gate_def gate_throttled = {
	.name = "throttled",
	.help = "CPU throttled periods (cgroup cpu.stat nr_throttled) <= max_periods (default 0)",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
