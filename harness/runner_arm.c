/*
 * runner_arm: an arm's implementation over the run: built once, started
 * (with its runtime-stats poller) when a window needs it and it is not up,
 * restarted after it exited or when its restart policy says so, stopped.
 */
#include <stdio.h>
#include <string.h>

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

int runner_arm_start(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct sut_config cfg;
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
	memset(&cfg, 0, sizeof(cfg));
	sbuf_addf(&label, "harness.%s.%s", rc->run_id, a->name);
	cfg.impl = &a->impl;
	cfg.workdir = a->workdir;
	cfg.log_dir = rc->logs_dir;
	cfg.cgroup_name = label.buf;
	cfg.backend = rc->spec->accounting.backend;
	cfg.sample_ms = rc->spec->accounting.sample_ms;
	cfg.run_as_uid = a->untrusted ? rc->sandbox_uid : -1;
	cfg.run_as_gid = a->untrusted ? rc->sandbox_gid : -1;
	cfg.memory_max_bytes = a->untrusted && !a->impl.memory_max_bytes
				       ? rc->spec->sandbox.memory_max_bytes : a->impl.memory_max_bytes;
	cfg.pids_max = a->untrusted && !a->impl.pids_max ? rc->spec->sandbox.pids_max
							   : a->impl.pids_max;
	a->sut = sut_start(&cfg);
	if (!a->sut)
		goto out;
	if (sut_wait_healthy(a->sut, a->impl.health_timeout_s)) {
		runner_arm_stop(a);
		goto out;
	}
	if (sut_stats_url(a->sut))
		a->rts = rtstats_start(sut_stats_url(a->sut), a->impl.stats_poll_hz,
				       a->impl.signals, a->impl.nsignals);
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

/* ------------------------------------------------------------- builds */

int runner_build_all(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < rc->narms && !ret; i++) {
		struct arm *a = &rc->arms[i];
		struct sut_build_config bo;

		if (!a->impl.build)
			continue;
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/build-%s.log", rc->logs_dir, a->name);
		memset(&bo, 0, sizeof(bo));
		bo.impl = &a->impl;
		bo.backend = rc->spec->accounting.backend;
		bo.workdir = a->workdir;
		bo.log_path = log.buf;
		bo.timeout_s = a->untrusted ? rc->spec->sandbox.build_timeout_s : 0;
		bo.uid = a->untrusted ? rc->sandbox_uid : -1;
		bo.gid = a->untrusted ? rc->sandbox_gid : -1;
		bo.memory_max_bytes = a->untrusted ? rc->spec->sandbox.memory_max_bytes : 0;
		bo.pids_max = a->untrusted ? rc->spec->sandbox.pids_max : 0;
		fprintf(stderr, "harness: building %s\n", a->name);
		if (sut_build(&bo)) {
			store_event(&rc->st, rc->run_id, -1, "build_failed", "%s: see %s", a->name, log.buf);
			ret = -1;
		}
	}
	sbuf_release(&log);
	return ret;
}
