/*
 * host_held: the host did not hold the arm beyond what it holds it in
 * every window. The accounting sampler (harness/account/account_held.c)
 * counts, per sample interval, the arm's threads' run-queue wait in the
 * share of the busy CPU that went to work outside the arm and the harness
 * (other processes, other harnesses' arms, interrupts, the hypervisor's
 * steal). The statistic is the
 * window's sum, host_held_ms: the wait the host added to the arm's
 * requests.
 *
 * The window is void (validity: rejected and replaced) when that sum is
 * above both
 *   - the floor: for the SLO percentile p to move by the generator's
 *     lateness limit L (a tenth of the SLO), at least (100 - p) % of the
 *     requests due must each wait L: due x (100 - p) / 100 x L; below it
 *     the host cannot have moved the percentile judged by L (max_ms
 *     replaces the computed floor), and
 *   - ratio (3) x the arm's usual: the median held wait per request due
 *     over the arm's last three windows in the run (voided or not), times
 *     this window's due (harness/runner/runner_held.c). The arm's first window
 *     has none and passes: a busy host holds a light arm above the floor
 *     in every window, and another arm's usual is not its own. A host that holds the arm alike in every
 *     window is a condition of the comparison, judged in every window;
 *     only a window held well beyond its arm's usual measured the host.
 *
 *   - and the host's share of the arm's whole wait (held / the threads'
 *     wait as the same sampler saw it) is above min_share (a half): the
 *     host, not the arm's own threads, is what kept it waiting.
 *
 * An implementation cannot void its windows this way: a thread that waits
 * for the arm's own other threads (busy loops, more runnable threads than
 * cores) waits while the arm's own CPU is what ran, so the foreign share
 * is small, and what a busy host adds to such an arm it adds in every
 * window, which its usual absorbs; where a busy host's share of it varies
 * (as its load does), the host's share of that arm's wait stays under a
 * half unless the host took most of the CPU. Foreign CPU is evidence the arm does
 * not control; the usual is the arm's own, never another arm's
 * (docs/DESIGN.md "Host-held windows").
 */
#include <math.h>

#include "gate/gate.h"

extern const struct gate_def gate_host_held;

static const struct gate_param params[] = {
	{ "max_ms", GP_NUM, NAN, 0, 1e9, 0,
	  "host-held wait of the arm's threads (summed) a window may have whatever the arm's usual, ms "
	  "(default: requests due x (100 - slo.percentile) % x the generator's lateness limit)" },
	{ "ratio", GP_NUM, 3, 1, 1e6, 0,
	  "and a window may have this many times the arm's usual (its median held wait per request "
	  "due over its last three windows in the run, times this window's due; its first window "
	  "has none and passes)" },
	{ "min_share", GP_NUM, 0.5, 0, 1, 0,
	  "and the host's share of what the arm's threads waited (held / all their wait) is above "
	  "this: the host, not the arm's own threads, kept it waiting" },
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double max = gate_param_num(cfg, &gate_host_held, "max_ms");
	double ratio = gate_param_num(cfg, &gate_host_held, "ratio");
	double min_share = gate_param_num(cfg, &gate_host_held, "min_share");
	double pct = isfinite(in->slo_percentile) ? in->slo_percentile : 99;
	double late = gate_generator_lateness_ms(NULL, in->slo_ms);
	double held, ref = in->host_held_ref_s * 1000, lim, share;

	if (isnan(max))
		max = (double)in->due * (100 - pct) / 100 * late;
	lim = isfinite(ref) && ratio * ref > max ? ratio * ref : max;
	if (!isfinite(in->host_held_s)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "host_held_ms", NAN, lim,
			     "host-held wait not known (backend %s)",
			     in->acct_backend ? in->acct_backend : "(none)");
		return;
	}
	if (!isfinite(ref)) {
		/* The arm's first window: its usual is not known, and another
		 * arm's is not its own. A busy host holds a light arm above
		 * the floor in every window: the floor alone would void it. */
		gate_resultf(out, GATE_PASS, "host_held_ms", in->host_held_s * 1000, NAN,
			     "the arm's first window: no usual to judge %.1f ms held by (floor %.1f)",
			     in->host_held_s * 1000, max);
		return;
	}
	held = in->host_held_s * 1000;
	share = in->host_wait_s > 0 ? in->host_held_s / in->host_wait_s : 0;
	gate_resultf(out, held > lim && share > min_share ? GATE_FAIL : GATE_PASS, "host_held_ms",
		     held, lim,
		     "the host held the arm's threads %.1f ms (limit %.1f ms: floor %.1f, %g x the "
		     "arm's usual %.1f), %.0f%% of their wait (min %.0f%%); one thread %.1f ms at "
		     "most within a sample; %.2f cpu-s given to others in %.2f s",
		     held, lim, max, ratio, ref, 100 * share, 100 * min_share,
		     in->host_held_max_s * 1000, in->foreign_cpu_s, in->acct_span_s);
}

const struct gate_def gate_host_held = {
	.name = "host_held",
	.help = "the wait the host (work outside the arm and the harness) added to the arm's threads is within max_ms (default: due x (100 - percentile) % x the generator's lateness limit) or ratio (3) x the arm's usual, or is at most min_share (0.5) of their wait",
	.phases = GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
