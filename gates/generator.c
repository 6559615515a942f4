/*
 * generator: the load generator itself kept its schedule: its own
 * lateness p99 (intended send -> the engine handling the request; waiting
 * for a free connection is the server's backpressure and not counted)
 * <= lateness_p99_ms AND its CPU per generator thread <= cpu_max_pct. A
 * saturated generator sends late, which looks exactly like a slow server;
 * this gate is what stops that from passing, without rejecting every
 * window past a server's wall.
 *
 * The lateness limit is relative to the promise by default: latency is
 * timed from the intended send, so a generator d ms late adds at most d
 * to the latencies the SLO judges. LATE_SLO_SHARE (a tenth) of the
 * tightest latency promise keeps the instrument's share of a verdict at
 * the threshold within a tenth of it (3 ms late does not void a 50 ms
 * promise; 8 ms would), never under LATE_FLOOR_MS: below a millisecond a
 * shared host's timer slack and scheduling, not the generator, decide.
 *
 * Requests the host held back (a real-time generator thread not run at
 * all while it waited for them: a stall of the VM; load.h host_void_ms,
 * set to this gate's lateness limit) are void: their lag is not in the
 * p99 judged here and their latency is in no histogram. They are the
 * host's noise, not the generator's failure, so they do not void the
 * window while they are few: at most host_void_max_pct of the requests
 * due (5%); beyond that too much of the window is missing and it is void.
 */
#include <math.h>
#include <stdio.h>

#include "gate/gate.h"

extern const struct gate_def gate_generator;

#define LATE_SLO_SHARE 0.1
#define LATE_FLOOR_MS 1.0

static const struct gate_param params[] = {
	{ "lateness_p99_ms", GP_NUM, NAN, 0, 1e6, 0,
	  "p99 of the generator's own lateness (intended send -> handled, without connection waits) allowed, ms "
	  "(default: a tenth of the tightest latency promise, slo.threshold_ms or a request's slo_ms, at least 1)" },
	{ "cpu_max_pct", GP_NUM, 90, 1, 100, 0,
	  "generator CPU allowed, percent of one core per generator thread" },
	{ "host_void_max_pct", GP_NUM, 5, 0, 100, 0,
	  "requests the host held back (void: a real-time generator thread not run while it waited "
	  "for them, later than lateness_p99_ms) allowed, percent of the requests due" },
	{ .name = NULL },
};

/* "; N requests held back by the host (void, x%)" when there were any. */
static const char *void_note(const struct gate_input *in, double vpct)
{
	static __thread char buf[96];

	if (!in->host_void)
		return "";
	snprintf(buf, sizeof(buf), "; %llu requests held back by the host (void, %.2f%%)",
		 (unsigned long long)in->host_void, vpct);
	return buf;
}

double gate_generator_lateness_ms(const struct gate_params *cfg, double slo_ms)
{
	double lmax = gate_param_num(cfg, &gate_generator, "lateness_p99_ms");

	if (isnan(lmax))
		lmax = isfinite(slo_ms) && slo_ms * LATE_SLO_SHARE > LATE_FLOOR_MS ?
		       slo_ms * LATE_SLO_SHARE : LATE_FLOOR_MS;
	return lmax;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	double lmax = gate_generator_lateness_ms(cfg, in->slo_ms);
	double cmax = gate_param_num(cfg, &gate_generator, "cpu_max_pct");
	double vmax = gate_param_num(cfg, &gate_generator, "host_void_max_pct");
	int threads = in->generator_threads > 0 ? in->generator_threads : 1;
	double cpu = in->generator_cpu_pct / threads;
	double vpct = in->due ? 100.0 * (double)in->host_void / (double)in->due : 0;
	int late, busy;

	if (!isfinite(in->lateness_p99_ms) || !isfinite(in->generator_cpu_pct)) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "lateness_p99_ms", NAN, lmax,
			     "generator lateness p99 %g ms, CPU %g%%: not measured",
			     in->lateness_p99_ms, in->generator_cpu_pct);
		return;
	}
	late = in->lateness_p99_ms > lmax;
	busy = cpu > cmax;
	if (!late && !busy && vpct > vmax)
		gate_resultf(out, GATE_FAIL, "host_void_pct", vpct, vmax,
			     "%llu of %llu requests due (%.2f%%) held back by the host (void) > %g%%; "
			     "lateness p99 %.3f ms (max %g) without them",
			     (unsigned long long)in->host_void, (unsigned long long)in->due, vpct, vmax,
			     in->lateness_p99_ms, lmax);
	else if (busy && !late)
		gate_resultf(out, GATE_FAIL, "generator_cpu_pct", cpu, cmax,
			     "generator CPU %.1f%% per thread (%d threads) > %g%%; lateness p99 %.3f ms (max %g)",
			     cpu, threads, cmax, in->lateness_p99_ms, lmax);
	else
		gate_resultf(out, late ? GATE_FAIL : GATE_PASS, "lateness_p99_ms",
			     in->lateness_p99_ms, lmax,
			     "lateness p99 %.3f ms (max %g); generator CPU %.1f%% per thread (%d threads, max %g%%)%s",
			     in->lateness_p99_ms, lmax, cpu, threads, cmax, void_note(in, vpct));
}

const struct gate_def gate_generator = {
	.name = "generator",
	.help = "the generator kept its schedule: lateness p99 and CPU per thread within bounds",
	.phases = GATE_PHASE_WARMUP | GATE_PHASE_WINDOW,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
