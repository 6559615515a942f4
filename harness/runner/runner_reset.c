/*
 * runner_reset: the reset commands (implementations[].reset,
 * dependencies[].reset; docs/DESIGN.md, "State between windows"). Before
 * a window, each dependency whose reset is due runs it (in declared
 * order), then, once the window's implementation is up and healthy, the
 * implementation's own. Due: `reset_every: window` before every window
 * (a dependency: every window of any arm; an implementation: its own),
 * `block` before the first window of each block (stage and block number),
 * `run` once per invocation, before the first window. Each run is one row
 * of window_resets (duration, exit code); a reset that does not exit 0
 * rejects the window (judge.h, reason reset_failed) and is an event.
 *
 * A reset runs as a build does (sut_build): argv, never a shell string,
 * in the implementation's or dependency's work tree with its environment,
 * {port} substituted, its own process group and cgroup, killed after
 * its reset_timeout_s (default 300; a reset killed so is a failed one); a
 * jailed arm's (untrusted code, sandbox: always) in a jail of its own as
 * the arm's builds are, so it reaches the arm's files but not its network
 * namespace. A jailed arm's reset that hits its sandbox's limits (forks
 * refused, an OOM kill, its disk quota full) is the arm's doing, as in a
 * build or a window: the run ends failed, kind limit (runner_reset_arm
 * returns -1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sut/armops.h"
#include "sut/bind.h"
#include "runner/runner_internal.h"
#include "store/store_window.h"
#include "sut/sut.h"
#include "base/util.h"

/* Is a reset with this policy due before wp, given where it last ran? */
static int due(enum reset_every every, const struct window_plan *wp, struct reset_state *rs)
{
	int d;

	switch (every) {
	case RESET_RUN:
		d = !rs->done;
		break;
	case RESET_BLOCK:
		d = !rs->done || rs->block != wp->block || strcmp(rs->stage, wp->stage);
		break;
	default:
		d = 1;
	}
	return d;
}

/* Run one reset to completion and append its row; 1 when it failed. */
static int run_reset(struct run_ctx *rc, const struct window_plan *wp, const char *name,
		     const char *kind, const struct armops_site *site, const struct spec_impl *impl,
		     const char *workdir, int port, const struct bind_sandbox *sb,
		     struct armops_hits *hits, struct reset_state *rs,
		     struct window_reset_rows *out)
{
	struct sut_build_config bc;
	struct spec_impl im = *impl;
	struct sbuf log = SBUF_INIT, label = SBUF_INIT;
	struct window_reset_row *r;
	double t0 = runner_now(rc);
	int code = -1, ret;

	im.build = spec_subst_port_argv(impl->reset, port);
	sbuf_addf(&log, "%s/reset-%s%s.log", rc->logs_dir, strcmp(kind, "dependency") ? "" : "dep-",
		  name);
	sbuf_addf(&label, "harness.%s.%s.reset", rc->run_id, name);
	bind_build(&bc, rc->spec, &im, workdir, log.buf, sb);
	bc.cgroup_name = label.buf;
	bc.timeout_s = impl->reset_timeout_s;
	bc.quiet = 1;
	bc.stop = &runner_stop;
	bc.exit_code = &code;
	bc.hits = hits ? &hits->kernel : NULL;
	bc.disk_full = hits ? hits->disk_full : NULL;
	ret = armops_command(site, &bc);
	out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	r = &out->v[out->n++];
	memset(r, 0, sizeof(*r));
	r->window_id = wp->id;
	r->name = xstrdup(name);
	r->kind = xstrdup(kind);
	r->duration_s = runner_now(rc) - t0;
	r->exit_code = code;
	rs->done = 1;
	rs->block = wp->block;
	snprintf(rs->stage, sizeof(rs->stage), "%s", wp->stage);
	if (ret && !runner_stop) {
		struct sbuf d = SBUF_INIT;

		if (code >= 0)
			sbuf_addf(&d, "exited %d after %.2f s", code, r->duration_s);
		else
			sbuf_addf(&d, "did not exit on its own (killed or timed out after %.2f s)",
				  r->duration_s);
		sbuf_addf(&d, "; see %s", log.buf);
		r->detail = sbuf_detach(&d, NULL);
		warning("%s %s: reset %s; the window is void", kind, name, r->detail);
		store_event(&rc->st, rc->run_id, wp->id, "reset_failed", "%s %s: reset %s", kind,
			    name, r->detail);
	}
	strv_free(im.build);
	sbuf_release(&log);
	sbuf_release(&label);
	return ret != 0;
}

int runner_reset_deps(struct run_ctx *rc, const struct window_plan *wp,
		      struct window_reset_rows *out)
{
	size_t i;
	int failed = 0;

	if (!rc->dep_resets && rc->ndeps)
		rc->dep_resets = xcalloc(rc->ndeps, sizeof(*rc->dep_resets));
	for (i = 0; i < rc->ndeps && !runner_stop; i++) {
		struct dep_run *d = &rc->deps[i];
		const struct spec_impl *im = &d->spec->impl;

		if (!im->reset || !due(im->reset_every, wp, &rc->dep_resets[i]))
			continue;
		failed |= run_reset(rc, wp, im->name, "dependency", runner_dep_site(rc, d), &d->impl, NULL,
				    rc->dep_ports[i], NULL, NULL, &rc->dep_resets[i], out);
	}
	return failed;
}

int runner_reset_arm(struct run_ctx *rc, const struct window_plan *wp,
		     struct window_reset_rows *out)
{
	struct arm *a = wp->arm;
	struct bind_sandbox sb;
	struct armops_hits hits;
	int failed;

	if (!a->impl.reset || !runner_arm_up(a) || runner_stop || !due(a->impl.reset_every, wp, &a->reset))
		return 0;
	memset(&hits, 0, sizeof(hits));
	failed = run_reset(rc, wp, a->name, "implementation", runner_arm_site(rc, a), &a->impl,
			   a->workdir, runner_arm_port(a), runner_arm_sandbox(rc, a, &sb),
			   &hits, &a->reset, out);
	if (!a->jailed || runner_stop)
		return failed;
	/* its own cgroup's hits (the reset's), its disk quota */
	runner_arm_disk_check(a, &hits);
	return runner_arm_limit_record(rc, a, wp->id, &hits) ? -1 : failed;
}
