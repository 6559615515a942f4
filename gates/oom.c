/*
 * oom: no out-of-memory event or kill in the implementation's cgroup during
 * the phase (memory.events oom + oom_kill, or the v1 equivalents).
 */
#include <math.h>

#include "gate/gate.h"

static const struct gate_param params[] = {
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double n = (double)in->oom_kills + (double)in->oom_events;

	if (!in->has_oom) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "oom", NAN, 0,
			     "accounting backend %s gives no OOM counts",
			     in->acct_backend ? in->acct_backend : "(none)");
		return;
	}
	gate_resultf(out, n == 0 ? GATE_PASS : GATE_FAIL, "oom", n, 0,
		     "%llu oom events, %llu oom kills",
		     (unsigned long long)in->oom_events, (unsigned long long)in->oom_kills);
}

const struct gate_def gate_oom = {
	.name = "oom",
	.help = "no OOM event or OOM kill in the implementation's cgroup",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = params,
	.eval = eval,
};
