/*
 * runner_arm: an arm's implementation over the run: built once, started
 * (with its runtime-stats poller) when a window needs it and it is not up,
 * restarted after it exited or when its restart policy says so, stopped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sut/armops.h"
#include "sut/bind.h"
#include "sut/ctr.h"
#include "sandbox/quota.h"
#include "store/store_run.h"
#include "runner/runner_internal.h"
#include "sut/sut.h"
#include "base/util.h"

struct armops_site *runner_arm_site(struct run_ctx *rc, struct arm *a)
{
	struct armops_site *s = &a->site;
	struct sbuf label = SBUF_INIT;

	if (s->label)
		return s;
	if (!s->ops)
		s->ops = rc->seams && rc->seams->backend ? rc->seams->backend
							 : armops_pick(&a->impl);
	s->spec = rc->spec;
	s->impl = &a->impl;
	s->workdir = a->workdir;
	s->log_dir = rc->logs_dir;
	sbuf_addf(&label, "harness.%s.%s", rc->run_id, a->name);
	free(a->label);
	a->label = sbuf_detach(&label, NULL);
	s->label = a->label;
	s->src = a->src;
	s->stop = &runner_stop;
	return s;
}

void runner_arm_stop(struct arm *a)
{
	armops_stop(a->inst);
	a->inst = NULL;
}

struct rtstats *runner_arm_rts(struct arm *a)
{
	return a->inst ? armops_stats(a->inst) : NULL;
}

int runner_arm_up(const struct arm *a)
{
	return a->inst != NULL;
}

int runner_arm_exited(struct arm *a)
{
	return a->inst && armops_exited(a->inst);
}

int runner_arm_lost(const struct arm *a, const char **why)
{
	return a->inst && armops_lost(a->inst, why);
}

const char *runner_arm_url(const struct arm *a)
{
	return armops_url(a->inst);
}

int runner_arm_port(const struct arm *a)
{
	return armops_port(a->inst);
}

int runner_arm_netns(const struct arm *a)
{
	return a->inst ? armops_netns(a->inst) : -1;
}

int runner_arm_acct_begin(struct arm *a)
{
	return a->inst ? armops_acct_begin(a->inst) : -1;
}

int runner_arm_acct_end(struct arm *a, struct account_window *out)
{
	return a->inst ? armops_acct_end(a->inst, out) : -1;
}

void runner_stop_all(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		runner_arm_stop(&rc->arms[i]);
}

/* The sandbox an arm's code runs in: a jail and its own uid for
 * untrusted code (a rerun's fetched commit) and for sandbox: always, none
 * for the spec's own otherwise; as for this host. */
const struct bind_sandbox *runner_arm_sandbox(const struct run_ctx *rc, const struct arm *a,
					     struct bind_sandbox *sb)
{
	if (!a->jailed)
		return NULL;
	memset(sb, 0, sizeof(*sb));
	sb->uid = a->uid;
	sb->gid = rc->sandbox_gid;
	sb->jail.hide = rc->hide_dir;
	sb->jail.frozen = a->ro || (a->frozen && a->built);
	/* the run's dependencies it is told about (bind_deps: its start,
	 * env, reset, health, stats or the requests name them), nothing else */
	sb->forward_ports = a->impl.dep_forward;
	sb->nforward = a->impl.ndep_forward;
	sb->quota_dir = a->quota ? a->workdir : NULL;
	/* each backend takes what applies where it runs (armops_agent.c:
	 * the uid and read-only, the limits; not this host's group, runs
	 * directory or relays) */
	return sb;
}


/* One clause of a sandbox_limit event ("; " between clauses). */
static void clause(struct sbuf *ev, int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void clause(struct sbuf *ev, int *n, const char *fmt, ...)
{
	va_list ap;

	sbuf_adds(ev, (*n)++ ? "; " : " ");
	va_start(ap, fmt);
	sbuf_vaddf(ev, fmt, ap);
	va_end(ap);
}

int runner_arm_limit_record(struct run_ctx *rc, struct arm *a, int64_t window_id,
			    const struct armops_hits *hp)
{
	const struct account_limit_hits *k = &hp->kernel;
	struct sbuf ev = SBUF_INIT;
	struct bind_sandbox jailed;
	struct sut_config lim;
	int n = 0;

	if (!(k->has_pids && k->pids_refused) && !(k->has_oom && k->oom_kill) &&
	    !hp->relay_refused && !hp->disk_full[0])
		return 0;
	/* the limits it ran under: bind_sut's for a jailed start */
	memset(&jailed, 0, sizeof(jailed));
	bind_sut(&lim, rc->spec, &a->impl, a->workdir, NULL, NULL, &jailed);
	sbuf_addf(&ev, "%s hit its sandbox limits:", a->name);
	if (k->has_pids && k->pids_refused)
		clause(&ev, &n, "%" PRIu64 " forks refused at pids.max %" PRIu64 " (pids.events max)",
		       k->pids_refused, lim.pids_max);
	if (k->has_oom && k->oom_kill)
		clause(&ev, &n, "%" PRIu64 " process%s OOM-killed at %" PRIu64 " MiB (oom_kill)",
		       k->oom_kill, k->oom_kill == 1 ? "" : "es", lim.memory_max_bytes >> 20);
	if (hp->disk_full[0])
		clause(&ev, &n, "its disk quota full at sandbox.disk_mb %" PRIu64 " (%s)",
		       rc->spec->sandbox.disk_max_bytes >> 20, hp->disk_full);
	if (hp->relay_refused)
		clause(&ev, &n, "%lu connection%s to the run's dependencies refused at "
		       "sandbox.relay_connections %" PRIu64 " (open at once)", hp->relay_refused,
		       hp->relay_refused == 1 ? "" : "s", rc->spec->sandbox.relay_connections);
	store_event(&rc->st, rc->run_id, window_id, "sandbox_limit", "%s", ev.buf);
	error("%s", ev.buf);
	sbuf_release(&ev);
	if (!rc->fail_kind) {
		rc->fail_kind = "limit";
		rc->fail_impl = a->name;
	}
	return 1;
}

int runner_arm_limit_hit(struct run_ctx *rc, struct arm *a, int64_t window_id)
{
	struct armops_hits h;

	if (!a->jailed)
		return 0;
	memset(&h, 0, sizeof(h));
	if (a->inst)
		armops_limits(a->inst, &h);
	runner_arm_disk_check(a, &h);
	return runner_arm_limit_record(rc, a, window_id, &h);
}

void runner_arm_disk_check(const struct arm *a, struct armops_hits *h)
{
	if (a->quota && !h->disk_full[0])
		quota_full(a->workdir, h->disk_full, sizeof(h->disk_full));
}

void runner_arm_disk_release(struct run_ctx *rc, int over)
{
	size_t i;

	for (i = 0; i < rc->narms; i++) {
		if (!rc->arms[i].quota)
			continue;
		if (over)
			quota_remove(rc->arms[i].workdir);
		else
			quota_detach(rc->arms[i].workdir);
	}
}

/* The arm's first start failed: whose fault (see runner_arm_start). */
static void start_failed(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	if (!a->starts && !rc->fail_kind && !runner_stop) {
		store_event(&rc->st, rc->run_id, wp->id, "start_failed",
			    "%s never came up healthy (see its log)", a->name);
		rc->fail_kind = "start";
		rc->fail_impl = a->name;
	}
}

/* One fact of the host an arm runs on, as a host_facts row
 * "<scope>.<arm>.<key>" beside this host's (armops facts). */
struct fact_ctx {
	struct run_ctx *rc;
	const struct arm *a;
	struct sbuf key;
};

static void put_fact(void *ctx, const char *scope, const char *key, const char *value)
{
	struct fact_ctx *c = ctx;
	struct host_fact f = { c->rc->run_id, NULL, (char *)value };

	sbuf_reset(&c->key);
	sbuf_addf(&c->key, "%s.%s.%s", scope, c->a->name, key);
	f.key = c->key.buf;
	store_host_fact_upsert(&c->rc->st, &f);
}

/* It did not come up healthy (unhealthy: the implementation's doing, hits
 * what it hit); a first start's sandbox limits, then whose fault. */
static void start_unhealthy(struct run_ctx *rc, struct arm *a, const struct window_plan *wp,
			    struct armops_hits *hits)
{
	if (!a->starts && !runner_stop && a->jailed) {
		if (a->inst)
			armops_limits(a->inst, hits);
		runner_arm_disk_check(a, hits);
		runner_arm_limit_record(rc, a, wp->id, hits);
	}
	start_failed(rc, a, wp);
}

/* Started and healthy: its events. */
static void started(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct fact_ctx fc = { rc, a, SBUF_INIT };
	struct sbuf ev = SBUF_INIT;

	if (a->jailed && !a->argv_recorded && armops_argv_text(a->inst)) {
		store_event(&rc->st, rc->run_id, wp->id, "sandbox_argv", "%s start: %s", a->name,
			    armops_argv_text(a->inst));
		a->argv_recorded = 1;
	}
	a->starts++;
	runner_footprint_note(rc, a, wp->id);
	armops_facts(a->inst, put_fact, &fc);
	sbuf_release(&fc.key);
	armops_describe(a->inst, a->name, a->starts, &ev);
	store_event(&rc->st, rc->run_id, wp->id, "sut_start", "%s", ev.buf);
	sbuf_release(&ev);
}

int runner_arm_start(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct bind_sandbox sb;
	struct armops_hits hits;
	int unhealthy;

	if (runner_arm_exited(a)) {
		store_event(&rc->st, rc->run_id, wp->id, "sut_restart",
			    "%s had exited; restarting it", a->name);
		runner_arm_stop(a);
	}
	if (runner_arm_up(a) && a->impl.restart == RESTART_PER_BLOCK && a->last_block != wp->block)
		runner_arm_stop(a);
	if (runner_arm_up(a))
		return 0;
	a->inst = armops_start(runner_arm_site(rc, a), runner_arm_sandbox(rc, a, &sb), &unhealthy,
			       &hits);
	if (!a->inst) {
		/* sut_start failing is the host's; started, then exited or
		 * never healthy, the implementation's */
		if (unhealthy)
			start_unhealthy(rc, a, wp, &hits);
		return -1;
	}
	if (armops_health(a->inst, a->impl.health_timeout_s)) {
		memset(&hits, 0, sizeof(hits));
		start_unhealthy(rc, a, wp, &hits);
		runner_arm_stop(a);
		return -1;
	}
	started(rc, a, wp);
	return 0;
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

/* An @base control, once built: its tree becomes root's (the arm then
 * runs with it bound read-only), before any commit under test runs. */
static int freeze(struct run_ctx *rc, struct arm *a)
{
	if (armops_tree_give(runner_arm_site(rc, a), 0, 0))
		return -1;
	a->built = 1;
	store_event(&rc->st, rc->run_id, -1, "sandbox_frozen", "%s: %s is root's and read-only to it",
		    a->name, a->workdir);
	return 0;
}

int runner_build_all(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT, where = SBUF_INIT;
	size_t i, pass;
	int ret = 0;

	/* pass 0: the frozen controls (then frozen); pass 1: everything else */
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < rc->narms && !ret; i++) {
		struct arm *a = &rc->arms[i];
		struct sut_build_config bo;
		struct bind_sandbox sb;
		struct armops_hits hits;
		char *argv_text = NULL;
		int failed, limited = 0;

		if ((pass == 0) != (a->frozen != 0))
			continue;
		if (!a->impl.build && !ctr_builds_image(&a->impl)) {
			if (a->frozen && freeze(rc, a))
				ret = -1;
			continue;
		}
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/build-%s.log", rc->logs_dir, a->name);
		bind_build(&bo, rc->spec, &a->impl, a->workdir, log.buf, runner_arm_sandbox(rc, a, &sb));
		bo.stop = &runner_stop;
		bo.build_step = 1;
		if (a->jailed)
			bo.argv_text = &argv_text;
		memset(&hits, 0, sizeof(hits));
		bo.hits = &hits.kernel;
		bo.disk_full = hits.disk_full;
		sbuf_reset(&where);
		armops_place(runner_arm_site(rc, a), &where);
		fprintf(stderr, "harness: building %s%s\n", a->name, where.buf ? where.buf : "");
		failed = armops_command(runner_arm_site(rc, a), &bo) != 0;
		runner_arm_disk_check(a, &hits);
		/* a limit hit fails its build, even one that exited 0: as in a
		 * window, the arm's own doing (limit before build: its kind) */
		if (a->jailed && !runner_stop && runner_arm_limit_record(rc, a, -1, &hits))
			failed = limited = 1;
		if (failed) {
			if (runner_stop) {
				store_event(&rc->st, rc->run_id, -1, "build_interrupted", "%s", a->name);
			} else {
				store_event(&rc->st, rc->run_id, -1, "build_failed", "%s: see %s",
					    a->name, log.buf);
				if (!limited) {
					rc->fail_kind = "build";
					rc->fail_impl = a->name;
				}
			}
			ret = -1;
		}
		if (argv_text)
			store_event(&rc->st, rc->run_id, -1, "sandbox_argv", "%s build: %s", a->name,
				    argv_text);
		free(argv_text);
		if (!ret && a->frozen && freeze(rc, a)) {
			rc->fatal = 1;
			ret = -1;
		}
	}
	sbuf_release(&log);
	sbuf_release(&where);
	return ret;
}

/* ------------------------------------------------------------ versions */

int runner_arm_versions(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < rc->narms && !runner_stop && !ret; i++) {
		struct arm *a = &rc->arms[i];
		struct spec_impl im;
		struct sut_build_config bc;
		struct bind_sandbox sb;
		struct armops_hits hits;
		int ok;

		runner_ctr_provenance(rc, 0, a->name, &a->impl, a->workdir);
		if (!a->impl.version)
			continue;
		im = a->impl;
		im.build = a->impl.version;
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/version-%s.log", rc->logs_dir, a->name);
		unlink(log.buf);
		bind_build(&bc, rc->spec, &im, a->workdir, log.buf, runner_arm_sandbox(rc, a, &sb));
		bc.timeout_s = 30;
		bc.stop = &runner_stop;
		memset(&hits, 0, sizeof(hits));
		bc.hits = &hits.kernel;
		bc.disk_full = hits.disk_full;
		ok = armops_command(runner_arm_site(rc, a), &bc) == 0;
		runner_store_version(rc, "impl_version", a->name, log.buf, ok);
		/* a probe past its sandbox's limits: the arm's doing, as a build's */
		if (a->jailed && !runner_stop) {
			runner_arm_disk_check(a, &hits);
			if (runner_arm_limit_record(rc, a, -1, &hits))
				ret = -1;
		}
	}
	sbuf_release(&log);
	return ret;
}
