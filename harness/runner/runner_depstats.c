/*
 * runner_depstats: each dependency's own statistics (dependencies[].stats)
 * over every window: its command run before the window's load starts
 * (its discard seconds included: a command can take longer than they
 * last on a busy host) and after the load's drain, the output read as
 * named counters (base/depstats.h). The
 * demand counter's increase per second between the two readings is the
 * window's demand, judged by dependency_headroom against the ceiling its
 * ladder measured (runner_depladder.c); every counter's two readings are
 * stored (window_dep_stats), so the report attributes the database's time
 * per statement to the implementation the window measured (the others
 * were frozen or idle).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/depstats.h"
#include "base/util.h"
#include "gate/gate.h"
#include "model/evidence.h"
#include "sut/armops.h"
#include "sut/bind.h"
#include "runner/runner_internal.h"
#include "store/store_dep.h"

#define STATS_OUT_MAX (1u << 20)

struct dep_study {
	double ceiling;              /* NAN: none measured */
	struct depstats first, last;
	double t_first[2], t_last[2];  /* wall seconds: each reading's command start, end */
	int have_first, have_last;
	size_t readings, failures;   /* a window's, by its stats command */
};

static struct dep_study *study(struct run_ctx *rc)
{
	size_t i;

	if (!rc->dep_study && rc->ndeps) {
		rc->dep_study = xcalloc(rc->ndeps, sizeof(*rc->dep_study));
		for (i = 0; i < rc->ndeps; i++)
			rc->dep_study[i].ceiling = NAN;
	}
	return rc->dep_study;
}

/* Window wid's reading of dependency i failed: one line the first time
 * (the count at the run's end), an event each time (dep_stats_failed: the
 * report and audit count them), the command's output kept beside. */
static void read_failed(struct run_ctx *rc, size_t i, int64_t wid, const char *log, int code)
{
	const struct spec_dep *sd = rc->deps[i].spec;
	struct sbuf kept = SBUF_INIT;

	sbuf_addf(&kept, "%s.failed", log);
	if (rename(log, kept.buf))
		sbuf_reset(&kept), sbuf_adds(&kept, log);
	if (study(rc) && !rc->dep_study[i].failures++)
		warning("dependency %s: stats command (%s) %s at window %lld: its counters for that"
			" window are missing, no demand, statement cost or signal from it (output: %s;"
			" every failure is counted: events dep_stats_failed)", sd->impl.name,
			sd->stats_cmd[0], code < 0 ? "did not finish" : "failed (non-zero exit)",
			(long long)wid, kept.buf);
	store_event(&rc->st, rc->run_id, wid, "dep_stats_failed", "%s: %s %s (output: %s)",
		    sd->impl.name, sd->stats_cmd[0], code < 0 ? "did not finish" : "non-zero exit",
		    kept.buf);
	sbuf_release(&kept);
}

int runner_depstats_read(struct run_ctx *rc, size_t i, int64_t wid, struct depstats *out,
			 double t[2])
{
	struct dep_run *d = &rc->deps[i];
	const struct spec_dep *sd = d->spec;
	struct sbuf log = SBUF_INIT, text = SBUF_INIT;
	int ret = -1, code;

	memset(out, 0, sizeof(*out));
	if (!sd->stats_cmd || !d->inst)
		goto out;
	sbuf_addf(&log, "%s/%s.stats.out", rc->logs_dir, d->sut_name);
	unlink(log.buf);
	t[0] = t[1] = now_wall();
	if (wid >= 0 && study(rc))
		rc->dep_study[i].readings++;
	code = runner_dep_command(rc, d, sd->stats_cmd, "stats",
				  sd->stats_timeout_s > 0 ? sd->stats_timeout_s : 10, 1, log.buf);
	if (code) {
		if (wid >= 0 && !runner_stop)
			read_failed(rc, i, wid, log.buf, code);
		goto out;
	}
	t[1] = now_wall();           /* the snapshot lies in [t[0], t[1]] */
	if (read_file(log.buf, &text, STATS_OUT_MAX))
		goto out;
	depstats_parse(text.buf, text.len, out);
	ret = 0;
out:
	sbuf_release(&log);
	sbuf_release(&text);
	return ret;
}

void runner_depstats_set_ceiling(struct run_ctx *rc, size_t i, double ceiling)
{
	if (study(rc))
		rc->dep_study[i].ceiling = ceiling;
}

void runner_depstats_begin(struct run_ctx *rc, int64_t wid)
{
	size_t i;

	if (!study(rc))
		return;
	for (i = 0; i < rc->ndeps; i++) {
		struct dep_study *s = &rc->dep_study[i];

		depstats_release(&s->first);
		depstats_release(&s->last);
		s->have_last = 0;
		s->have_first = rc->deps[i].spec->stats_cmd &&
				!runner_depstats_read(rc, i, wid, &s->first, s->t_first);
	}
}

static void dep_end(struct run_ctx *rc, size_t i, int64_t wid, struct gate_dep *g)
{
	struct dep_study *s = study(rc) ? &rc->dep_study[i] : NULL;
	const char *demand = rc->deps[i].spec->stats_demand;
	double a, b, span, *t = rc->deps[i].stats_t;

	g->demand_rps = g->ceiling_rps = NAN;
	t[0] = t[1] = t[2] = t[3] = NAN;
	if (!s)
		return;
	g->ceiling_rps = s->ceiling;
	s->have_last = s->have_first && !runner_depstats_read(rc, i, wid, &s->last, s->t_last);
	if (s->have_first) {
		t[0] = s->t_first[0];
		t[1] = s->t_first[1];
	}
	if (s->have_last) {
		t[2] = s->t_last[0];
		t[3] = s->t_last[1];
	}
	/* the two snapshots' times, each known within its command's run:
	 * their middles (the bounds are stored, runner_depstats_times) */
	span = (s->t_last[0] + s->t_last[1]) / 2 - (s->t_first[0] + s->t_first[1]) / 2;
	if (!s->have_last || !demand || !(span > 0))
		return;
	a = depstats_get(&s->first, demand);
	b = depstats_get(&s->last, demand);
	if (isfinite(a) && isfinite(b) && b >= a)
		g->demand_rps = (b - a) / span;
}

void runner_depstats_end(struct run_ctx *rc, int64_t wid, struct evidence *e)
{
	size_t i;

	for (i = 0; i < e->ndeps && i < rc->ndeps; i++)
		dep_end(rc, i, wid, &e->deps[i]);
}

int runner_depstats_store(struct run_ctx *rc, int64_t wid)
{
	size_t i, k;

	for (i = 0; rc->dep_study && i < rc->ndeps; i++) {
		const struct dep_study *s = &rc->dep_study[i];

		if (!s->have_first)
			continue;
		for (k = 0; k < s->first.n; k++) {
			struct window_dep_stat_row r;

			r.window_id = wid;
			r.name = rc->deps[i].spec->impl.name;
			r.key = s->first.keys[k];
			r.first = s->first.vals[k];
			r.last = s->have_last ? depstats_get(&s->last, r.key) : NAN;
			if (store_window_dep_stat_insert(&rc->st, &r))
				return -1;
		}
	}
	return 0;
}

void runner_depstats_release(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; rc->dep_study && i < rc->ndeps; i++) {
		if (rc->dep_study[i].failures > 1)
			warning("dependency %s: stats command (%s) failed %zu of %zu readings (events"
				" dep_stats_failed)", rc->deps[i].spec->impl.name,
				rc->deps[i].spec->stats_cmd[0], rc->dep_study[i].failures,
				rc->dep_study[i].readings);
		depstats_release(&rc->dep_study[i].first);
		depstats_release(&rc->dep_study[i].last);
	}
	free(rc->dep_study);
	rc->dep_study = NULL;
}
