/*
 * registry: every gate, one line each, and the module's entry on top of
 * them: lookup by name and evaluation with the spec's parameters. Adding a
 * gate is one file gates/<name>.c defining `const struct gate_def
 * gate_<name>` and one line here (plus its extern below).
 */
#include "gate/gate.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

extern const struct gate_def gate_p99_flat, gate_p999_flat, gate_gc_steady,
	gate_pools_warm, gate_min_calls, gate_hot_set_touched,
	gate_major_faults_equal, gate_error_rate, gate_achieved_vs_offered,
	gate_stationarity, gate_throttled, gate_oom, gate_generator, gate_sut_alive,
	gate_dependency_headroom, gate_idle_arms_quiet, gate_signal_range,
	gate_acct_span, gate_host_held;

const struct gate_def *const gate_registry[] = {
	/* warm-up */
	&gate_p99_flat,
	&gate_p999_flat,
	&gate_gc_steady,
	&gate_pools_warm,
	&gate_min_calls,
	&gate_hot_set_touched,
	/* window (some also in warm-up: see each gate's phases) */
	&gate_error_rate,
	&gate_achieved_vs_offered,
	&gate_stationarity,
	&gate_throttled,
	&gate_oom,
	&gate_generator,
	&gate_sut_alive,
	&gate_major_faults_equal,
	&gate_dependency_headroom,
	&gate_idle_arms_quiet,
	&gate_signal_range,
	&gate_acct_span,
	&gate_host_held,
};

const size_t gate_registry_count = ARRAY_SIZE(gate_registry);

const struct gate_def *gate_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < gate_registry_count; i++)
		if (!strcmp(gate_registry[i]->name, name))
			return gate_registry[i];
	return NULL;
}

void gate_eval(const struct gate_params *cfg, const char *name,
	       const struct gate_input *in, struct gate_result *out)
{
	const struct gate_def *def = gate_find(name);
	const struct gate_param *p;

	memset(out, 0, sizeof(*out));
	out->status = GATE_NOT_EVALUABLE;
	out->statistic = NAN;
	out->threshold = NAN;
	if (!def) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "", NAN, NAN,
			     "unknown gate '%s'", name ? name : "(null)");
		return;
	}
	for (p = def->params; p && p->name; p++) {
		if (p->required && !gate_param_value(cfg, p->name)) {
			gate_resultf(out, GATE_NOT_EVALUABLE, "", NAN, NAN,
				     "%s: required parameter '%s' not given", name, p->name);
			return;
		}
	}
	if (!in) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "", NAN, NAN, "%s: no input", name);
		return;
	}
	if (in->phase && !(def->phases & in->phase)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "", NAN, NAN, "%s is not a %s gate", name,
			     in->phase == GATE_PHASE_WARMUP ? "warm-up" : "window");
		return;
	}
	def->eval(cfg, in, out);
}
