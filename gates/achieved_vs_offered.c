/*
 * achieved_vs_offered: the implementation answered the requests that were
 * due. One-sided: it fails when the requests answered within the phase's
 * seconds fall more than tolerance_pct below the requests the schedule
 * made due in them:
 *
 *     shortfall_pct = (due - answered) / due * 100 <= tolerance_pct.
 *
 * `due` is the realized schedule (Poisson or constant), each request
 * counted in the second it was due in however late the generator got to
 * it (load.h), so the comparison is free of the schedule's own randomness:
 * a Poisson window's count is never judged against rate x seconds (at 300
 * req/s over 2 s its standard deviation is 4% of the rate). A generator
 * that did not keep its schedule is a validity matter, for the generator
 * gate; answering more than was due (requests due in the head answered in
 * the window) is not a failure. An outcome gate: under-delivery is the
 * implementation's.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_achieved_vs_offered;

static const struct gate_param params[] = {
	{ "tolerance_pct", GP_NUM, 2.0, 0, 100, 0,
	  "how far the requests answered may fall below the requests due, percent of due" },
	{ .name = NULL },
};

/* Rates as every table prints them: whole requests from 100 req/s. */
static int rate_prec(double rps)
{
	return rps >= 100 ? 0 : 1;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double tol = gate_param_num(cfg, &gate_achieved_vs_offered, "tolerance_pct");
	double due = (double)in->due, ans = (double)in->answered, short_pct;

	if (!in->due || !(in->duration_s > 0)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "shortfall_pct", NAN, tol,
			     "%llu requests due, %llu answered over %.1fs: nothing to compare",
			     (unsigned long long)in->due, (unsigned long long)in->answered,
			     in->duration_s);
		return;
	}
	short_pct = (due - ans) / due * 100.0;
	gate_resultf(out, short_pct <= tol ? GATE_PASS : GATE_FAIL, "shortfall_pct", short_pct, tol,
		     "answered %llu of %llu requests due (%.*f of %.*f req/s; offered %.*f): "
		     "%.2f%% short (tolerance %g%%)",
		     (unsigned long long)in->answered, (unsigned long long)in->due,
		     rate_prec(ans / in->duration_s), ans / in->duration_s,
		     rate_prec(due / in->duration_s), due / in->duration_s,
		     rate_prec(in->offered_rps), in->offered_rps,
		     short_pct > 0 ? short_pct : 0.0, tol);
}

const struct gate_def gate_achieved_vs_offered = {
	.name = "achieved_vs_offered",
	.help = "requests answered no more than tolerance_pct percent below the requests due (one-sided)",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_OUTCOME,
	.params = params,
	.eval = eval,
};
