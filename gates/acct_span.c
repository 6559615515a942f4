/*
 * acct_span: the arm's CPU accounting covered the window's measured
 * seconds. The accounting begins when the load's coordinator reports the
 * last discard second (runner_window.c meas_begin) and ends after the
 * drain; on a loaded host the coordinator can be held back, so the
 * accounting begins late while the request counts still cover every
 * measured second, and CPU per request comes out too small. A span below
 * min_fraction of the measured seconds voids the window (validity).
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_acct_span;

static const struct gate_param params[] = {
	{ "min_fraction", GP_NUM, 0.9, 0, 1, 0,
	  "smallest accounted span, as a fraction of the measured seconds" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double min = gate_param_num(cfg, &gate_acct_span, "min_fraction");
	double frac;

	if (!isfinite(in->acct_span_s) || !(in->duration_s > 0)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "acct_span_fraction", NAN, min,
			     "accounting span not known (backend %s, %.2f s measured)",
			     in->acct_backend ? in->acct_backend : "(none)", in->duration_s);
		return;
	}
	frac = in->acct_span_s / in->duration_s;
	gate_resultf(out, frac >= min ? GATE_PASS : GATE_FAIL, "acct_span_fraction", frac, min,
		     "CPU accounting covered %.2f s of %.2f s measured (%.0f%%, min %.0f%%)",
		     in->acct_span_s, in->duration_s, 100.0 * frac, 100.0 * min);
}

const struct gate_def gate_acct_span = {
	.name = "acct_span",
	.help = "CPU accounting span >= min_fraction (default 0.9) of the measured seconds",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
