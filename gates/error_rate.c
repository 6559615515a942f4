/*
 * error_rate: (transport errors + 5xx responses + dropped requests) /
 * (completed + errors + dropped) <= max. Dropped requests (backlog full)
 * count as errors: a request the generator could not send is never silent.
 * `completed` counts responses of any status, so 5xx are inside it.
 */
#include <math.h>

#include "gate.h"

extern const struct gate_def gate_error_rate;

static const struct gate_param params[] = {
	{ "max", GP_NUM, NAN, 0, 1, 0,
	  "highest error rate allowed, 0..1 (default: slo.error_rate_max)" },
	{ .name = NULL },
};

static void eval(const struct spec_gate *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max = gate_param_num(cfg, &gate_error_rate, "max");
	double bad, all, rate;

	if (isnan(max))
		max = in->spec ? in->spec->slo.error_rate_max : NAN;
	if (isnan(max)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "error_rate", NAN, NAN,
			     "no max given and no spec slo.error_rate_max");
		return;
	}
	bad = (double)in->errors + (double)in->status[ST_5XX] + (double)in->dropped;
	all = (double)in->completed + (double)in->errors + (double)in->dropped;
	if (all <= 0) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "error_rate", NAN, max,
			     "no request completed, failed or was dropped");
		return;
	}
	rate = bad / all;
	gate_resultf(out, rate <= max ? GATE_PASS : GATE_FAIL, "error_rate", rate, max,
		     "%.6g = (%llu errors + %llu 5xx + %llu dropped) / %.0f (max %g)",
		     rate, (unsigned long long)in->errors,
		     (unsigned long long)in->status[ST_5XX],
		     (unsigned long long)in->dropped, all, max);
}

const struct gate_def gate_error_rate = {
	.name = "error_rate",
	.help = "(transport errors + 5xx + dropped) / all requests <= max (default slo.error_rate_max)",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.params = params,
	.eval = eval,
};
