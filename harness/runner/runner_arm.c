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

#include "account/account.h"
#include "sut/bind.h"
#include "sandbox/quota.h"
#include "sut/rsut.h"
#include "sut/rsut_fetch.h"
#include "store/store_run.h"
#include "sut/rtstats.h"
#include "sandbox/sandbox.h"
#include "runner/runner_internal.h"
#include "sut/sut.h"
#include "base/util.h"

void runner_arm_stop(struct arm *a)
{
	if (a->rts) {
		rtstats_free(a->rts);
		a->rts = NULL;
	}
	if (a->rsut) {
		rsut_free(a->rsut);
		a->rsut = NULL;
	}
	if (!a->sut)
		return;
	sut_stop(a->sut);
	sut_free(a->sut);
	a->sut = NULL;
}

struct rtstats *runner_arm_rts(struct arm *a)
{
	return a->rsut ? rsut_stats(a->rsut) : a->rts;
}

int runner_arm_up(const struct arm *a)
{
	return a->sut || a->rsut;
}

int runner_arm_exited(struct arm *a)
{
	if (a->rsut)
		return rsut_exited(a->rsut);
	return a->sut && sut_exited(a->sut);
}

int runner_arm_lost(const struct arm *a, const char **why)
{
	if (!a->rsut || !rsut_lost(a->rsut))
		return 0;
	*why = rsut_exit_desc(a->rsut);
	return 1;
}

const char *runner_arm_url(const struct arm *a)
{
	return a->rsut ? rsut_url(a->rsut) : sut_url(a->sut);
}

int runner_arm_port(const struct arm *a)
{
	return a->rsut ? rsut_port(a->rsut) : sut_port(a->sut);
}

int runner_arm_netns(const struct arm *a)
{
	return a->sut ? sut_netns(a->sut) : -1;
}

int runner_arm_acct_begin(struct arm *a)
{
	if (a->rsut)
		return rsut_window_begin(a->rsut);
	return a->sut ? account_window_begin(sut_account(a->sut)) : -1;
}

int runner_arm_acct_end(struct arm *a, struct account_window *out)
{
	if (a->rsut)
		return rsut_window_end(a->rsut, out);
	return a->sut ? account_window_end(sut_account(a->sut), out) : -1;
}

void runner_stop_all(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		runner_arm_stop(&rc->arms[i]);
}

/* The sandbox an arm's code runs in: a jail and its own uid for
 * untrusted code (a rerun's fetched commit) and for sandbox: always, none
 * for the spec's own otherwise. */
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
	if (a->impl.host) {
		/* There (runner_remote_sandbox): its group is the sandbox
		 * user's on that host; a fetched checkout's parent is its
		 * agent's own directory, shown empty; this host's dependency
		 * relays are not that host's loopback. */
		sb->gid = -1;
		sb->jail.hide = NULL;
		sb->forward_ports = NULL;
		sb->nforward = 0;
	}
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
			    const struct arm_limit_hits *hp)
{
	const struct account_limit_hits *k = &hp->kernel;
	struct sbuf ev = SBUF_INIT;
	int n = 0;

	if (!(k->has_pids && k->pids_refused) && !(k->has_oom && k->oom_kill) &&
	    !hp->relay_refused && !hp->disk_full[0])
		return 0;
	sbuf_addf(&ev, "%s hit its sandbox limits:", a->name);
	if (k->has_pids && k->pids_refused)
		clause(&ev, &n, "%" PRIu64 " forks refused at pids.max %" PRIu64 " (pids.events max)",
		       k->pids_refused, a->impl.pids_max ? a->impl.pids_max : rc->spec->sandbox.pids_max);
	if (k->has_oom && k->oom_kill)
		clause(&ev, &n, "%" PRIu64 " process%s OOM-killed at %" PRIu64 " MiB (oom_kill)",
		       k->oom_kill, k->oom_kill == 1 ? "" : "es",
		       (a->impl.memory_max_bytes ? a->impl.memory_max_bytes
						 : rc->spec->sandbox.memory_max_bytes) >> 20);
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
	struct arm_limit_hits h;

	if (!a->jailed)
		return 0;
	memset(&h, 0, sizeof(h));
	if (a->rsut)
		rsut_limit_hits(a->rsut, &h.kernel);   /* as of its last window's end there */
	else if (a->sut && sut_account(a->sut))
		account_limit_hits(sut_account(a->sut), &h.kernel);
	if (a->sut)
		h.relay_refused = sut_relay_refused(a->sut);
	runner_arm_disk_check(a, &h);
	return runner_arm_limit_record(rc, a, window_id, &h);
}

void runner_arm_disk_check(const struct arm *a, struct arm_limit_hits *h)
{
	h->disk_full[0] = '\0';
	if (a->untrusted && !a->impl.host)
		quota_full(a->workdir, h->disk_full, sizeof(h->disk_full));
}

void runner_arm_disk_release(struct run_ctx *rc, int over)
{
	size_t i;

	for (i = 0; i < rc->narms; i++) {
		if (!rc->arms[i].untrusted || rc->arms[i].impl.host)
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

/* The facts of the host an arm runs on, as host_facts rows
 * "remote.<arm>.<key>" beside this host's, with its destination and
 * address. */
static void record_remote_facts(struct run_ctx *rc, struct arm *a)
{
	const struct hostfacts *h = rsut_facts(a->rsut);
	struct sbuf key = SBUF_INIT;
	size_t i;

	for (i = 0; i < h->n + 2; i++) {
		struct host_fact f = { rc->run_id, NULL, NULL };

		sbuf_reset(&key);
		sbuf_addf(&key, "remote.%s.%s", a->name,
			  i < h->n ? h->keys[i] : i == h->n ? "dest" : "address");
		f.key = key.buf;
		f.value = i < h->n ? h->values[i] : i == h->n ? (char *)rsut_dest(a->rsut)
							       : (char *)rsut_address(a->rsut);
		store_host_fact_upsert(&rc->st, &f);
	}
	sbuf_release(&key);
}

/* How to reach an arm's impl.host and run it there (rsut.h); o and
 * label are the caller's, alive as long as cfg. */
static void remote_config(struct run_ctx *rc, struct arm *a, struct rsut_config *cfg,
			  struct agent_opts *o, const char *label)
{
	runner_agent_opts(rc, a->impl.host_binary, o);
	memset(cfg, 0, sizeof(*cfg));
	cfg->dest = a->impl.host;
	cfg->opts = o;
	cfg->impl = &a->impl;
	cfg->workdir = a->workdir;
	cfg->label = label;
	cfg->backend = rc->spec->accounting.backend;
	cfg->sample_ms = rc->spec->accounting.sample_ms;
	cfg->https = rc->spec->workload.tls.present;
	cfg->insecure = rc->spec->workload.tls.insecure;
	cfg->ca_file = rc->spec->workload.tls.cacert;
	cfg->stop = &runner_stop;
}

/* runner_arm_start for an implementation on impl.host: through an agent
 * in its --sut role (rsut.h). */
static int start_remote(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct rsut_config cfg;
	struct agent_opts o;
	struct bind_sandbox sb;
	struct sut_wire_sandbox rs;
	struct sut_config sc;
	struct account_limit_hits hits;
	struct sbuf label = SBUF_INIT;
	char hide[4096];
	int unhealthy = 0, ret = -1;

	sbuf_addf(&label, "harness.%s.%s", rc->run_id, a->name);
	remote_config(rc, a, &cfg, &o, label.buf);
	cfg.log_dir = rc->logs_dir;
	if (runner_arm_sandbox(rc, a, &sb)) {
		/* with the limits bind_sut sets for a jailed start here */
		bind_sut(&sc, rc->spec, &a->impl, a->workdir, NULL, label.buf, &sb);
		runner_remote_sandbox(rc, a, sb.uid, sb.jail.frozen, &rs, hide, sizeof(hide));
		rs.cpu_max = sc.cpu_max;
		cfg.sandbox = &rs;
		cfg.memory_max_bytes = sc.memory_max_bytes;
		cfg.pids_max = sc.pids_max;
	}
	memset(&hits, 0, sizeof(hits));
	cfg.failed_hits = &hits;
	a->rsut = rsut_start(&cfg, &unhealthy);
	if (!a->rsut) {
		/* as a local start: its sandbox limits first, when it hit any */
		if (unhealthy && !a->starts && !runner_stop && a->jailed)
			runner_arm_limit_record(rc, a, wp->id,
						&(struct arm_limit_hits){ .kernel = hits });
		if (unhealthy)
			start_failed(rc, a, wp);
		goto out;
	}
	a->starts++;
	record_remote_facts(rc, a);
	store_event(&rc->st, rc->run_id, wp->id, "sut_start",
		    "%s started on %s (%s, host %s) at %s (start %u); cpus %s (%s); accounting %s"
		    " there; the end of its logs comes back when it stops", a->name, a->impl.host, rsut_address(a->rsut),
		    rsut_host(a->rsut) ? rsut_host(a->rsut) : "?", rsut_url(a->rsut), a->starts,
		    rsut_cpus(a->rsut) ? rsut_cpus(a->rsut) : "?",
		    rsut_cpus_method(a->rsut) ? rsut_cpus_method(a->rsut) : "none",
		    rsut_backend(a->rsut) ? rsut_backend(a->rsut) : "?");
	ret = 0;
out:
	sbuf_release(&label);
	return ret;
}

int runner_arm_start(struct run_ctx *rc, struct arm *a, const struct window_plan *wp)
{
	struct sut_config cfg;
	struct bind_sandbox sb;
	struct sbuf label = SBUF_INIT;
	int ret = -1;

	if (runner_arm_exited(a)) {
		store_event(&rc->st, rc->run_id, wp->id, "sut_restart",
			    "%s had exited; restarting it", a->name);
		runner_arm_stop(a);
	}
	if (runner_arm_up(a) && a->impl.restart == RESTART_PER_BLOCK && a->last_block != wp->block)
		runner_arm_stop(a);
	if (runner_arm_up(a))
		return 0;
	if (a->impl.host)
		return start_remote(rc, a, wp);
	sbuf_addf(&label, "harness.%s.%s", rc->run_id, a->name);
	bind_sut(&cfg, rc->spec, &a->impl, a->workdir, rc->logs_dir, label.buf,
		 runner_arm_sandbox(rc, a, &sb));
	cfg.stop = &runner_stop;
	a->sut = sut_start(&cfg);
	if (!a->sut)
		goto out;
	if (sut_wait_healthy(a->sut, a->impl.health_timeout_s)) {
		/* It was started, and exited or never answered healthy: the
		 * implementation's doing (sut_start failing is the host's). */
		if (!a->starts && !runner_stop)
			runner_arm_limit_hit(rc, a, wp->id);
		start_failed(rc, a, wp);
		runner_arm_stop(a);
		goto out;
	}
	if (sut_stats_url(a->sut))
		a->rts = rtstats_start_in(sut_netns(a->sut), sut_stats_url(a->sut),
					  a->impl.stats_poll_hz, a->impl.signals,
					  a->impl.nsignals, a->impl.stats_format,
					  rc->spec->workload.tls.cacert,
					  rc->spec->workload.tls.insecure);
	if (a->jailed && !a->argv_recorded) {
		store_event(&rc->st, rc->run_id, wp->id, "sandbox_argv", "%s start: %s", a->name,
			    sut_argv_text(a->sut));
		a->argv_recorded = 1;
	}
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

/* An @base control, once built: its tree becomes root's (the arm then
 * runs with it bound read-only), before any commit under test runs. */
static int freeze(struct run_ctx *rc, struct arm *a)
{
	if (a->src ? rsut_src_give(a->src, rc->spec->sandbox.user, 0)
		   : sandbox_give(a->workdir, 0, 0, 1))
		return -1;
	a->built = 1;
	store_event(&rc->st, rc->run_id, -1, "sandbox_frozen", "%s: %s is root's and read-only to it",
		    a->name, a->workdir);
	return 0;
}

int runner_build_all(struct run_ctx *rc)
{
	struct sbuf log = SBUF_INIT;
	size_t i, pass;
	int ret = 0;

	/* pass 0: the frozen controls (then frozen); pass 1: everything else */
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < rc->narms && !ret; i++) {
		struct arm *a = &rc->arms[i];
		struct sut_build_config bo;
		struct bind_sandbox sb;
		struct arm_limit_hits hits;
		char *argv_text = NULL;
		int failed, limited = 0;

		if ((pass == 0) != (a->frozen != 0))
			continue;
		if (!a->impl.build) {
			if (a->frozen && freeze(rc, a))
				ret = -1;
			continue;
		}
		sbuf_reset(&log);
		sbuf_addf(&log, "%s/build-%s.log", rc->logs_dir, a->name);
		bind_build(&bo, rc->spec, &a->impl, a->workdir, log.buf, runner_arm_sandbox(rc, a, &sb));
		bo.stop = &runner_stop;
		if (a->jailed)
			bo.argv_text = &argv_text;
		memset(&hits, 0, sizeof(hits));
		bo.hits = &hits.kernel;
		fprintf(stderr, "harness: building %s%s%s\n", a->name, a->impl.host ? " on " : "",
			a->impl.host ? a->impl.host : "");
		failed = runner_command(rc, &bo) != 0;
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
		bind_build(&bc, rc->spec, &im, a->workdir, log.buf, runner_arm_sandbox(rc, a, &sb));
		bc.timeout_s = 30;
		bc.stop = &runner_stop;
		ok = runner_command(rc, &bc) == 0;
		runner_store_version(rc, "impl_version", a->name, log.buf, ok);
	}
	sbuf_release(&log);
}
