/*
 * signal_range: a runtime-stats signal stayed within [min, max] over the
 * phase: a derived signal's value (stats.signals "= EXPR", sigexpr.h: a
 * cache hit rate over the window, a GC pause p99), or a polled signal's
 * mean. Validity class: a window whose cache is cold, or whose runtime is
 * in a state the study does not describe, did not measure what the spec
 * declares; it is void and replaced, not failed. In warm-up it waits for
 * the condition (a cache reaching its hit rate). A signal that cannot be
 * computed is not_evaluable, never a pass.
 */
#include <math.h>
#include <stdio.h>

#include "gate/gate.h"

extern const struct gate_def gate_signal_range;

static const struct gate_param params[] = {
	{ "signal", GP_SIGNAL, 0, 0, 0, 1, "the signal judged (derived or polled)" },
	{ "min", GP_NUM, NAN, -1e300, 1e300, 0, "lowest value allowed (default: none)" },
	{ "max", GP_NUM, NAN, -1e300, 1e300, 0, "highest value allowed (default: none)" },
	{ .name = NULL },
};

/* The value of sig over the phase, or NAN with *why. */
static double value_of(const struct gate_input *in, const char *sig, const char **why)
{
	const struct gate_derived *d = gate_input_derived(in, sig);
	const struct gate_series *s;
	double sum = 0;
	size_t i;

	if (d) {
		*why = d->why ? d->why : "not a number";
		return d->value;
	}
	s = gate_input_series(in, sig);
	if (!s) {
		*why = "not a signal of this implementation";
		return NAN;
	}
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	*why = "never read in the phase";
	return s->n ? sum / (double)s->n : NAN;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	const char *sig = gate_param_str(cfg, "signal"), *why = NULL;
	double lo = gate_param_num(cfg, &gate_signal_range, "min");
	double hi = gate_param_num(cfg, &gate_signal_range, "max");
	double v = value_of(in, sig, &why);
	int below = isfinite(lo) && v < lo, above = isfinite(hi) && v > hi;

	if (!isfinite(v)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, sig, NAN, isfinite(lo) ? lo : hi,
			     "%s: %s", sig, why);
		return;
	}
	gate_resultf(out, below || above ? GATE_FAIL : GATE_PASS, sig, v,
		     below || !isfinite(hi) ? lo : hi, "%s = %.6g (allowed [%s%.6g, %.6g%s])",
		     sig, v, isfinite(lo) ? "" : "-", isfinite(lo) ? lo : INFINITY,
		     isfinite(hi) ? hi : INFINITY, isfinite(hi) ? "" : "");
}

const struct gate_def gate_signal_range = {
	.name = "signal_range",
	.help = "a runtime-stats signal (a derived one's window value, a polled one's mean) within [min, max]",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
