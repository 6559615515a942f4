/*
 * runner_freeze: arms not being measured do not run (docs/DESIGN.md).
 * From the start of a window's warm-up to the end of its load, every
 * other arm that is up, and every dependency of other arms that the
 * window's implementation does not use (spec_impl.dep_used), is frozen
 * with its cgroup (account_freeze: v1 freezer or v2 cgroup.freeze). Where that is not
 * possible (procfs accounting, no freezer mounted, an arm or dependency
 * on another host) it is left running; either way its CPU over the
 * measured part goes into the window's evidence (table window_idle),
 * which the validity gate idle_arms_quiet judges. Everything is thawed
 * before the window returns, so an arm's own turn (restart, health,
 * reset, load) and its stop always find it running.
 *
 * Each is frozen and measured through its instance's ops (armops.h).
 * Dependencies whose CPU is read through their accounting window (on
 * another host: armops cpu_beside_window 0) are neither frozen nor
 * measured here: that window is already open for dependency_headroom.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sut/armops.h"
#include "model/evidence.h"
#include "runner/runner_internal.h"
#include "store/store.h"
#include "store/store_window.h"
#include "base/util.h"

struct idle_one {
	const char *name;            /* borrowed from the arm / dependency */
	const char *kind;            /* "implementation" | "dependency" */
	struct armops_inst *inst;    /* its running instance (armops.h), borrowed */
	const char *freezer;         /* frozen by it (static), NULL: running */
	int measuring;               /* armops_cpu_begin succeeded, _end due */
};

struct runner_idle {
	struct run_ctx *rc;
	int64_t wid;
	struct idle_one *v;
	size_t n;
	uint64_t t0_ns;
};

static void idle_add(struct runner_idle *ri, const char *name, const char *kind,
		     struct armops_inst *inst)
{
	struct idle_one *o;

	ri->v = xrealloc(ri->v, (ri->n + 1) * sizeof(*ri->v));
	o = &ri->v[ri->n++];
	memset(o, 0, sizeof(*o));
	o->name = name;
	o->kind = kind;
	o->inst = inst;
}

/* Freeze o where it can be; a freezer that refused is an event (the
 * window then judges its CPU like any running one's). */
static void idle_freeze(struct runner_idle *ri, struct idle_one *o)
{
	const char *freezer = NULL;
	int r;

	r = armops_freeze(o->inst, 1, &freezer);
	if (!r)
		o->freezer = freezer;
	else if (r != -ENOTSUP)
		store_event(&ri->rc->st, ri->rc->run_id, ri->wid, "freeze_failed",
			    "%s could not be frozen (%s); left running and measured", o->name,
			    freezer);
}

/* Dependency k is another arm's: the measured one does not use it and
 * some other arm does. One no arm uses is the spec's environment (a
 * sidecar, a noise source): it runs for every arm alike. */
static int others_dep(const struct run_ctx *rc, const struct arm *me, size_t k)
{
	size_t i;

	if (!me->impl.dep_used || me->impl.dep_used[k])
		return 0;
	for (i = 0; i < rc->narms; i++)
		if (&rc->arms[i] != me && rc->arms[i].impl.dep_used &&
		    rc->arms[i].impl.dep_used[k])
			return 1;
	return 0;
}

struct runner_idle *runner_idle_begin(struct run_ctx *rc, const struct window_plan *wp)
{
	struct runner_idle *ri = xcalloc(1, sizeof(*ri));
	size_t i;

	ri->rc = rc;
	ri->wid = wp->id;
	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];

		if (a == wp->arm || !runner_arm_up(a))
			continue;
		idle_add(ri, a->name, "implementation", a->inst);
	}
	/* a dependency whose CPU can only be read through its accounting
	 * window (open for dependency_headroom) is left out */
	for (i = 0; i < rc->ndeps; i++)
		if (rc->deps[i].inst && rc->deps[i].site.ops->cpu_beside_window &&
		    others_dep(rc, wp->arm, i))
			idle_add(ri, rc->deps[i].sut_name, "dependency", rc->deps[i].inst);
	for (i = 0; i < ri->n; i++)
		idle_freeze(ri, &ri->v[i]);
	return ri;
}

void runner_idle_meas_begin(struct runner_idle *ri)
{
	size_t i;

	if (!ri)
		return;
	ri->t0_ns = now_ns();
	for (i = 0; i < ri->n; i++) {
		struct idle_one *o = &ri->v[i];

		o->measuring = armops_cpu_begin(o->inst) == 0;
	}
}

void runner_idle_meas_end(struct runner_idle *ri, struct evidence *e)
{
	struct gate_idle g;
	size_t i;
	double cpu;

	if (!ri || !ri->t0_ns)
		return;
	for (i = 0; i < ri->n; i++) {
		struct idle_one *o = &ri->v[i];

		memset(&g, 0, sizeof(g));
		g.name = o->name;
		g.kind = o->kind;
		g.freezer = o->freezer;
		g.duration_s = (now_ns() - ri->t0_ns) / 1e9;
		g.cpu_s = NAN;
		if (o->measuring && !armops_cpu_end(o->inst, &cpu))
			g.cpu_s = cpu;
		o->measuring = 0;
		evidence_add_idle(e, &g);
	}
}

void runner_idle_end(struct runner_idle *ri)
{
	const char *freezer;
	double cpu;
	size_t i;

	if (!ri)
		return;
	for (i = 0; i < ri->n; i++) {
		if (ri->v[i].freezer)
			armops_freeze(ri->v[i].inst, 0, &freezer);
		if (ri->v[i].measuring)
			armops_cpu_end(ri->v[i].inst, &cpu);
	}
	free(ri->v);
	free(ri);
}

int runner_idle_store(struct run_ctx *rc, int64_t wid, const struct evidence *e)
{
	size_t i;

	for (i = 0; i < e->nidle; i++) {
		const struct gate_idle *g = &e->idle[i];
		struct window_idle_row r;

		memset(&r, 0, sizeof(r));
		r.window_id = wid;
		r.name = (char *)g->name;
		r.kind = (char *)g->kind;
		r.frozen = (char *)g->freezer;
		r.duration_s = g->duration_s;
		r.cpu_s = g->cpu_s;
		if (store_window_idle_insert(&rc->st, &r))
			return -1;
	}
	return 0;
}
