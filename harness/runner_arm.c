/*
 * runner_arm: an arm's implementation over the run: built once, started
 * (with its runtime-stats poller) when a window needs it and it is not up,
 * restarted after it exited or when its restart policy says so, stopped.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "rtstats.h"
#include "runner_internal.h"
#include "sut.h"
#include "util.h"

void runner_arm_stop(struct arm *a)
{
	if (a->rts) {
		rtstats_free(a->rts);
		a->rts = NULL;
	}
	if (!a->sut)
		return;
	sut_stop(a->sut);
	sut_free(a->sut);
	a->sut = NULL;
}

void runner_stop_all(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		runner_arm_stop(&rc->arms[i]);
}

/* The sandbox an arm's code runs in: the sandbox user for untrusted code
 * (a rerun's fetched commit), none for the spec's own. */
static const struct bind_sandbox *arm_sandbox(const struct run_ctx *rc, const struct arm *a,
					      struct bind_sandbox *sb)
{
	if (!a->untrusted)
		return NULL;
	sb->uid = rc->sandbox_uid;
	sb->gid = rc->sandbox_gid;
	return sb;
}

int runner_arm_start(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct sut_config cfg;
	struct bind_sandbox sb;
	struct sbuf label = SBUF_INIT;
	int ret = -1;

	if (a->sut && sut_exited(a->sut)) {
		store_event(&rc->st, rc->run_id, wp->id, "sut_restart",
			    "%s had exited; restarting it", a->name);
		runner_arm_stop(a);
	}
	if (a->sut && a->impl.restart == RESTART_PER_BLOCK && a->last_block != wp->block)
		runner_arm_stop(a);
	if (a->sut)
		return 0;
	sbuf_addf(&label, "harness.%s.%s", rc->run_id, a->name);
	bind_sut(&cfg, rc->spec, &a->impl, a->workdir, rc->logs_dir, label.buf,
		 arm_sandbox(rc, a, &sb));
	cfg.stop = &runner_stop;
	a->sut = sut_start(&cfg);
	if (!a->sut)
		goto out;
	if (sut_wait_healthy(a->sut, a->impl.health_timeout_s)) {
		/* It was started, and exited or never answered healthy: the
		 * implementation's doing (sut_start failing is the host's). */
		if (!a->starts && !rc->fail_kind && !runner_stop) {
			store_event(&rc->st, rc->run_id, wp->id, "start_failed",
				    "%s never came up healthy (see its log)", a->name);
			rc->fail_kind = "start";
			rc->fail_impl = a->name;
		}
		runner_arm_stop(a);
		goto out;
	}
	if (sut_stats_url(a->sut))
		a->rts = rtstats_start_fmt(sut_stats_url(a->sut), a->impl.stats_poll_hz,
					   a->impl.signals, a->impl.nsignals, a->impl.stats_format,
					   0);
	a->starts++;
	store_event(&rc->st, rc->run_id, wp->id, "sut_start",
		    "%s started on %s (start %u); cpus %s (%s)", a->name, sut_url(a->sut),
		    a->starts, sut_cpus(a->sut) ? sut_cpus(a->sut) : "?",
		    sut_cpus_method(a->sut) ? sut_cpus_method(a->sut) : "none");
	ret = 0;
out:
	sbuf_release(&label);
	return ret;
}

/* ------------------------------------------------------------- knee */

double runner_arm_hold_rps(const struct arm *a)
{
	if (!a->knee_known || a->knee.kind == KNEE_NONE)
		return NAN;
	if (isfinite(a->knee.hold_rps))
		return a->knee.hold_rps;
	return isfinite(a->knee.knee_rps) ? a->knee.knee_rps : a->knee.highest_rung_rps;
}

/* ------------------------------------------------------------- builds */

int runner_build_all(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < rc->narms && !ret; i++) {
		struct arm *a = &rc->arms[i];
		struct sut_build_config bo;
		struct bind_sandbox sb;

		if (!a->impl.build)
			continue;
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/build-%s.log", rc->logs_dir, a->name);
		bind_build(&bo, rc->spec, &a->impl, a->workdir, log.buf, arm_sandbox(rc, a, &sb));
		bo.stop = &runner_stop;
		fprintf(stderr, "harness: building %s\n", a->name);
		if (sut_build(&bo)) {
			if (runner_stop) {
				store_event(&rc->st, rc->run_id, -1, "build_interrupted", "%s", a->name);
			} else {
				store_event(&rc->st, rc->run_id, -1, "build_failed", "%s: see %s",
					    a->name, log.buf);
				rc->fail_kind = "build";
				rc->fail_impl = a->name;
			}
			ret = -1;
		}
	}
	sbuf_release(&log);
	return ret;
}

/* ------------------------------------------------------------ versions */

void runner_arm_versions(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT;
	size_t i;

	for (i = 0; i < rc->narms && !runner_stop; i++) {
		struct arm *a = &rc->arms[i];
		struct spec_impl im;
		struct sut_build_config bc;
		struct bind_sandbox sb;
		int ok;

		if (!a->impl.version)
			continue;
		im = a->impl;
		im.build = a->impl.version;
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/version-%s.log", rc->logs_dir, a->name);
		unlink(log.buf);
		bind_build(&bc, rc->spec, &im, a->workdir, log.buf, arm_sandbox(rc, a, &sb));
		bc.timeout_s = 30;
		bc.stop = &runner_stop;
		ok = sut_build(&bc) == 0;
		runner_store_version(rc, "impl_version", a->name, log.buf, ok);
	}
	sbuf_release(&log);
}
