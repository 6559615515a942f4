/*
 * sut_alive: the implementation did not exit during the phase. A window in
 * which it crashed (and was restarted) measured a restart, not the code.
 */
#include "gate/gate.h"

static const struct gate_param params[] = {
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	if (in->sut_exited)
		gate_resultf(out, GATE_FAIL, "sut_exited", 1, 0,
			     "implementation %s exited during the phase",
			     in->impl_name ? in->impl_name : "?");
	else
		gate_resultf(out, GATE_PASS, "sut_exited", 0, 0,
			     "implementation %s alive for %.1fs",
			     in->impl_name ? in->impl_name : "?", in->duration_s);
}

const struct gate_def gate_sut_alive = {
	.name = "sut_alive",
	.help = "the implementation did not exit during the phase",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = params,
	.eval = eval,
};
