/*
 * dependency_headroom: every dependency (spec dependencies:) had headroom
 * over the measured window: its CPU stayed at or under max_cpu_pct of the
 * cores it may use (its cpus: as the kernel reported them, else every
 * online cpu), it was not CPU-throttled more than max_throttled periods,
 * and it did not exit; and, where its ceiling was measured before the
 * run (dependencies[].ladder) and its demand read each window
 * (dependencies[].stats.demand), the demand stayed at or under
 * max_demand_pct of that ceiling (a ceiling and no demand read in the
 * window: not evaluable). A saturated database measures the database, not
 * the implementation: validity class, the window is rejected (and
 * replaced), never failed. A spec without dependencies passes with
 * evidence "no dependencies": nothing shared can have run out.
 */
#include <math.h>
#include <stdio.h>

#include "gate/gate.h"

extern const struct gate_def gate_dependency_headroom;

static const struct gate_param params[] = {
	{ "max_cpu_pct", GP_NUM, 90, 1, 100, 0,
	  "CPU a dependency may use over the window, in % of the cores it may use" },
	{ "max_throttled", GP_NUM, 0, 0, 1e15, 0, "throttled CFS periods allowed per dependency" },
	{ "max_demand_pct", GP_NUM, 90, 1, 1000, 0,
	  "demand a dependency may see over the window, in % of the ceiling its ladder measured (when both are known)" },
	{ .name = NULL },
};

static int ceiling_known(const struct gate_dep *d)
{
	return isfinite(d->ceiling_rps) && d->ceiling_rps > 0;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max_pct = gate_param_num(cfg, &gate_dependency_headroom, "max_cpu_pct");
	double max_thr = gate_param_num(cfg, &gate_dependency_headroom, "max_throttled");
	double max_dem = gate_param_num(cfg, &gate_dependency_headroom, "max_demand_pct");
	char ev[sizeof(out->evidence)];
	size_t i, len = 0;
	double worst = 0;
	int bad = 0, unknown = 0;

	if (!in->ndeps) {
		gate_resultf(out, GATE_PASS, "dep_cpu_pct", NAN, max_pct, "no dependencies");
		return;
	}
	ev[0] = 0;
	for (i = 0; i < in->ndeps; i++) {
		const struct gate_dep *d = &in->deps[i];
		double pct = d->ncpus > 0 && d->duration_s > 0 && isfinite(d->cpu_s)
			? 100.0 * d->cpu_s / (d->duration_s * d->ncpus) : NAN;
		int n;

		if (d->exited) {
			bad = 1;
			n = snprintf(ev + len, sizeof(ev) - len, "%s%s exited during the window",
				     i ? "; " : "", d->name);
		} else {
			if (!isfinite(pct))
				unknown = 1;
			else if (pct > worst)
				worst = pct;
			if ((isfinite(pct) && pct > max_pct) ||
			    (d->has_throttle && (double)d->nr_throttled > max_thr))
				bad = 1;
			n = snprintf(ev + len, sizeof(ev) - len,
				     "%s%s used %.1f%% of %g core%s (%.2f cpu-s in %.1f s)",
				     i ? "; " : "", d->name, pct, d->ncpus, d->ncpus == 1 ? "" : "s",
				     d->cpu_s, d->duration_s);
			if (n > 0 && (size_t)n < sizeof(ev) - len && d->has_throttle)
				n += snprintf(ev + len + n, sizeof(ev) - len - n, ", %llu throttled",
					      (unsigned long long)d->nr_throttled);
			if (n > 0 && (size_t)n < sizeof(ev) - len && ceiling_known(d) &&
			    isfinite(d->demand_rps)) {
				double dp = 100.0 * d->demand_rps / d->ceiling_rps;
				if (dp > max_dem)
					bad = 1;
				n += snprintf(ev + len + n, sizeof(ev) - len - n,
					      ", demand %.0f/s = %.1f%% of its ceiling %.0f/s",
					      d->demand_rps, dp, d->ceiling_rps);
			} else if (n > 0 && (size_t)n < sizeof(ev) - len && ceiling_known(d)) {
				/* a ceiling to judge against and no demand read:
				 * not evaluable, never a silent pass */
				unknown = 1;
				n += snprintf(ev + len + n, sizeof(ev) - len - n,
					      ", demand unknown (its stats not read) against its ceiling %.0f/s",
					      d->ceiling_rps);
			}
		}
		if (n < 0 || (size_t)n >= sizeof(ev) - len)
			break;
		len += (size_t)n;
	}
	gate_resultf(out, bad ? GATE_FAIL : unknown ? GATE_NOT_EVALUABLE : GATE_PASS,
		     "dep_cpu_pct", worst, max_pct, "%s (max %.0f%%)", ev, max_pct);
}

const struct gate_def gate_dependency_headroom = {
	.name = "dependency_headroom",
	.help = "every dependency used <= max_cpu_pct (default 90) of the cores it may use, was not throttled, did not exit, and saw <= max_demand_pct (default 90) of its measured ceiling; passes with no dependencies",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
