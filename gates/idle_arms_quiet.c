/*
 * idle_arms_quiet: while one arm is measured, every other arm (and every
 * dependency only other arms use) stood still. The runner freezes them
 * (runner_freeze.c); where it cannot (procfs accounting, no freezer, an
 * arm on another host) it leaves them running and measures their CPU
 * over the measured part. One that used more than max_cpu_pct of a core
 * could have taken the CPU, caches or memory bandwidth the measured arm
 * needed (a branch that leaves busy loops behind makes the base look
 * slow): the measurement is void through no fault of the measured
 * implementation, validity class, the window is rejected and replaced.
 * A frozen one is held to the same bound (its CPU is ~0 by
 * construction; more would say the freezer did not hold). Passes with
 * evidence "no idle arms" when there are none (one arm, one window).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gate/gate.h"

extern const struct gate_def gate_idle_arms_quiet;

static const struct gate_param params[] = {
	{ "max_cpu_pct", GP_NUM, 2, 0, 100, 0,
	  "CPU an idle arm or unused dependency may use over the window, in % of one core" },
	{ .name = NULL },
};

/* Append one idle arm's figures to ev at *len; 0 when it did not fit. */
static int describe(char *ev, size_t size, size_t *len, const struct gate_idle *g, double pct,
		    int first)
{
	int n = snprintf(ev + *len, size - *len, "%s%s %s %.1f%% (%.3f cpu-s in %.1f s)",
			 first ? "" : "; ", g->name, g->freezer ? "frozen," : "running,",
			 pct, g->cpu_s, g->duration_s);

	if (n < 0 || (size_t)n >= size - *len)
		return 0;
	*len += (size_t)n;
	return 1;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max_pct = gate_param_num(cfg, &gate_idle_arms_quiet, "max_cpu_pct");
	char ev[sizeof(out->evidence)];
	size_t i, len = 0;
	double worst = 0;
	int bad = 0, unknown = 0, shown = 0;

	if (!in->nidle) {
		gate_resultf(out, GATE_PASS, "idle_cpu_pct", NAN, max_pct, "no idle arms");
		return;
	}
	ev[0] = 0;
	/* the offenders first: they are what the evidence is for */
	for (i = 0; i < in->nidle; i++) {
		const struct gate_idle *g = &in->idle[i];
		double pct = g->duration_s > 0 && isfinite(g->cpu_s)
			? 100.0 * g->cpu_s / g->duration_s : NAN;

		if (!isfinite(pct)) {
			unknown |= !g->freezer;  /* frozen: held still all the same */
			continue;
		}
		if (pct > worst)
			worst = pct;
		if (pct > max_pct) {
			bad = 1;
			shown += describe(ev, sizeof(ev), &len, g, pct, !shown);
		}
	}
	for (i = 0; !bad && i < in->nidle; i++) {
		const struct gate_idle *g = &in->idle[i];
		double pct = g->duration_s > 0 && isfinite(g->cpu_s)
			? 100.0 * g->cpu_s / g->duration_s : NAN;

		if (isfinite(pct))
			shown += describe(ev, sizeof(ev), &len, g, pct, !shown);
		else if (snprintf(ev + len, sizeof(ev) - len, "%s%s: CPU unknown", shown++ ? "; " : "",
				  g->name) > 0)
			len = strlen(ev);
	}
	gate_resultf(out, bad ? GATE_FAIL : unknown ? GATE_NOT_EVALUABLE : GATE_PASS,
		     "idle_cpu_pct", worst, max_pct, "%s (max %g%% of a core)", ev, max_pct);
}

const struct gate_def gate_idle_arms_quiet = {
	.name = "idle_arms_quiet",
	.help = "every other arm, and every dependency only other arms use, was frozen or used <= max_cpu_pct (default 2) of a core over the window; passes with none",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
