/*
 * error_rate: requests that did not get the answer they expected, over the
 * requests the schedule made due, <= max.
 *
 * Unexpected: every completed response that is not what its request
 * expects (workload.requests[].expect: status, body; default any 2xx or
 * 3xx, so every 4xx, 5xx and status outside 200..599), every
 * transport error (connect, reset, timeout, parse, other) and every
 * dropped request (backlog full: a request the generator could not send is
 * never silent). The denominator is `due` (what was asked of the
 * implementation); data without it (0) falls back to completed + errors +
 * dropped. An outcome gate: the implementation did not keep the promise.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_error_rate;

static const struct gate_param params[] = {
	{ "max", GP_NUM, NAN, 0, 1, 0,
	  "highest error rate allowed, 0..1 (default: slo.error_rate_max)" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max = gate_param_num(cfg, &gate_error_rate, "max");
	double bad, all, rate;

	if (isnan(max))
		max = in->error_rate_max;  /* NaN when the spec gives none */
	if (isnan(max)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "error_rate", NAN, NAN,
			     "no max given and no spec slo.error_rate_max");
		return;
	}
	bad = (double)in->errors + (double)in->unexpected + (double)in->dropped;
	all = in->due ? (double)in->due
		      : (double)in->completed + (double)in->errors + (double)in->dropped;
	if (all <= 0) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "error_rate", NAN, max,
			     "no request was due, completed, failed or was dropped");
		return;
	}
	rate = bad / all;
	gate_resultf(out, rate <= max ? GATE_PASS : GATE_FAIL, "error_rate", rate, max,
		     "%.6g = (%llu transport errors + %llu unexpected responses (%llu 4xx,"
		     " %llu 5xx, %llu other status) + %llu dropped) / %.0f %s (max %g)",
		     rate, (unsigned long long)in->errors,
		     (unsigned long long)in->unexpected,
		     (unsigned long long)in->status[ST_4XX],
		     (unsigned long long)in->status[ST_5XX],
		     (unsigned long long)in->status_other,
		     (unsigned long long)in->dropped, all, in->due ? "due" : "answered",
		     max);
}

const struct gate_def gate_error_rate = {
	.name = "error_rate",
	.help = "(transport errors + unexpected responses + dropped) / requests due <= max (default slo.error_rate_max); unexpected: not what the request's expect says (default: not 2xx/3xx)",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = params,
	.eval = eval,
};
