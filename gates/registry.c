/*
 * registry: every gate, one line each. Adding a gate is one file
 * gates/<name>.c defining `const struct gate_def gate_<name>` and one line
 * here (plus its extern below).
 */
#include "gate.h"

#include "util.h"

extern const struct gate_def gate_p99_flat, gate_p999_flat, gate_gc_steady,
	gate_pools_warm, gate_min_calls, gate_hot_set_touched,
	gate_major_faults_equal, gate_error_rate, gate_achieved_vs_offered,
	gate_stationarity, gate_throttled, gate_oom, gate_generator, gate_sut_alive;

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
};

const size_t gate_registry_count = ARRAY_SIZE(gate_registry);
