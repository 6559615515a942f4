/*
 * major_faults_equal: the window's major page faults (from the kernel
 * accounting: cgroup memory.stat pgmajfault, or /proc/<pid>/stat) stay
 * within a declared bound, so no arm pays for disk reads the other does not.
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_major_faults_equal;

static const struct gate_param params[] = {
	{ "max", GP_NUM, 0, 0, 1e15, 0, "major page faults allowed in the phase" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max = gate_param_num(cfg, &gate_major_faults_equal, "max");

	if (!in->has_majfault) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "major_faults", NAN, max,
			     "accounting backend %s gives no major-fault count",
			     in->acct_backend ? in->acct_backend : "(none)");
		return;
	}
	gate_resultf(out, (double)in->major_faults <= max ? GATE_PASS : GATE_FAIL,
		     "major_faults", (double)in->major_faults, max,
		     "%llu major faults in %.1fs (max %.0f, %s)",
		     (unsigned long long)in->major_faults, in->duration_s, max,
		     in->acct_backend ? in->acct_backend : "?");
}

const struct gate_def gate_major_faults_equal = {
	.name = "major_faults_equal",
	.help = "window: major page faults within a declared bound (default 0)",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
