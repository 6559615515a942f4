/*
 * report_depstudy: a dependency's own ceiling and costs. Its ceiling is
 * what its ladder measured before the run (table dep_ceiling: the most it
 * achieved, in its stats.demand unit when the demand was read at every
 * rung), beside the highest demand a window put on it (window_deps
 * demand_rps). Its costs are its stats command's counters read at each
 * window's start and end (window_dep_stats): the increase of "time:STMT"
 * and "calls:STMT" over an implementation's windows is the database's
 * time per statement for that implementation (each window measures one:
 * the others are frozen or idle); any other counter (a key that rose
 * and never fell: not a gauge) is summed per implementation and rung over
 * valid windows.
 */
#include "report/report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "base/util.h"
#include "report/report.h"
#include "report/report_doc.h"
#include "store/store_dep.h"


static const char *dep_name(struct report_study *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ndepnames; i++)
		if (!strcmp(s->depnames[i], name))
			return s->depnames[i];
	s->depnames = xrealloc(s->depnames, (s->ndepnames + 1) * sizeof(*s->depnames));
	return s->depnames[s->ndepnames++] = xstrdup(name);
}

static struct report_depceil *ceil_for(struct report_study *s, const char *dep)
{
	struct report_depceil *c;
	size_t i;

	for (i = 0; i < s->ndepceil; i++)
		if (!strcmp(s->depceil[i].dep, dep))
			return &s->depceil[i];
	s->depceil = xrealloc(s->depceil, (s->ndepceil + 1) * sizeof(*s->depceil));
	c = &s->depceil[s->ndepceil++];
	memset(c, 0, sizeof(*c));
	c->dep = xstrdup(dep);
	c->ceiling = c->kept_rate = c->peak_demand = c->peak_rate = NAN;
	c->peak_impl = -1;
	return c;
}

static void load_ceilings(struct report *r, const struct dep_ceiling_rows *rows)
{
	size_t k;

	for (k = 0; k < rows->n; k++) {
		const struct dep_ceiling_row *w = &rows->v[k];
		struct report_depceil *c = ceil_for(r->study, w->name);

		if (!c->rungs)
			c->in_demand = 1;
		c->rungs++;
		c->closed_loop = isnan(w->rate);
		if (w->kept_up && isfinite(w->rate) && !(w->rate <= c->kept_rate))
			c->kept_rate = w->rate;
		if (!isfinite(w->demand_rps))
			c->in_demand = 0;
	}
	for (k = 0; k < r->study->ndepceil; k++) {    /* the most achieved, in one unit */
		struct report_depceil *c = &r->study->depceil[k];
		size_t j;

		for (j = 0; j < rows->n; j++) {
			double v = c->in_demand ? rows->v[j].demand_rps : rows->v[j].throughput;

			if (!strcmp(rows->v[j].name, c->dep) && isfinite(v) && !(v <= c->ceiling))
				c->ceiling = v;
		}
	}
}

/* The highest demand a window put on each dependency with a ceiling. */
static void load_demand(struct report *r)
{
	const struct window_dep_rows *rows = &r->view.deps;
	size_t k;

	for (k = 0; k < rows->n; k++) {
		const struct window_dep_row *d = &rows->v[k];
		const struct view_window *w = view_window_by_id(&r->view, d->window_id);
		struct report_depceil *c;

		if (!isfinite(d->demand_rps) || !w)
			continue;
		c = ceil_for(r->study, d->name);
		c->windows++;
		if (!(d->demand_rps <= c->peak_demand)) {
			c->peak_demand = d->demand_rps;
			c->peak_stage = w->stage;
			c->peak_rate = w->rate;
			c->peak_impl = w->impl_idx;
		}
	}
}

static void add_stmt(struct report_study *s, const char *dep, int impl, const char *stmt,
		     int is_time, double v)
{
	struct report_depstmt *m = NULL;
	size_t i;

	for (i = 0; i < s->ndepstmt && !m; i++)
		if (s->depstmt[i].impl == impl && !strcmp(s->depstmt[i].dep, dep) &&
		    !strcmp(s->depstmt[i].stmt, stmt))
			m = &s->depstmt[i];
	if (!m) {
		s->depstmt = xrealloc(s->depstmt, (s->ndepstmt + 1) * sizeof(*s->depstmt));
		m = &s->depstmt[s->ndepstmt++];
		memset(m, 0, sizeof(*m));
		m->dep = dep_name(s, dep);
		m->impl = impl;
		m->stmt = xstrdup(stmt);
	}
	if (is_time) {
		m->ms += v;
		m->windows++;
	} else
		m->calls += v;
}

static void add_counter(struct report_study *s, const char *dep, const struct view_window *w,
			const char *key, double v)
{
	struct report_depcounter *c = NULL;
	size_t i;

	for (i = 0; i < s->ndepctr && !c; i++)
		if (s->depctr[i].impl == w->impl_idx && !strcmp(s->depctr[i].dep, dep) &&
		    !strcmp(s->depctr[i].stage, w->stage) && rate_same(s->depctr[i].rate, w->rate) &&
		    !strcmp(s->depctr[i].key, key))
			c = &s->depctr[i];
	if (!c) {
		s->depctr = xrealloc(s->depctr, (s->ndepctr + 1) * sizeof(*s->depctr));
		c = &s->depctr[s->ndepctr++];
		memset(c, 0, sizeof(*c));
		c->dep = dep_name(s, dep);
		c->impl = w->impl_idx;
		c->stage = w->stage;
		c->rate = w->rate;
		c->key = xstrdup(key);
	}
	c->delta += v;
	c->windows++;
}

/* 1 when dep's key counts (a counter, not a gauge): it rose in some
 * valid window and fell in none. A stats command prints both (redis INFO:
 * keyspace_hits beside used_memory and arch_bits); the report shows the
 * counters only. */
static int counts(const struct report *r, const struct window_dep_stat_rows *rows,
		  const char *dep, const char *key)
{
	size_t k;
	int rose = 0;

	for (k = 0; k < rows->n; k++) {
		const struct window_dep_stat_row *x = &rows->v[k];
		const struct view_window *w;

		if (strcmp(x->key, key) || strcmp(x->name, dep) || !isfinite(x->last - x->first))
			continue;
		if (x->last < x->first)
			return 0;
		w = view_window_by_id(&r->view, x->window_id);
		rose |= x->last > x->first && w && w->valid;
	}
	return rose;
}

/* Per window: each statement's and each counter's increase, to its
 * implementation. */
static void load_stats(struct report *r, const struct window_dep_stat_rows *rows)
{
	size_t k;

	for (k = 0; k < rows->n; k++) {
		const struct window_dep_stat_row *x = &rows->v[k];
		const struct view_window *w = view_window_by_id(&r->view, x->window_id);
		double v = x->last - x->first;

		if (!w || !w->done || w->impl_idx < 0 || !isfinite(v) || v < 0)
			continue;
		if (!strncmp(x->key, "time:", 5))
			add_stmt(r->study, x->name, w->impl_idx, x->key + 5, 1, v);
		else if (!strncmp(x->key, "calls:", 6))
			add_stmt(r->study, x->name, w->impl_idx, x->key + 6, 0, v);
		else if (w->valid && counts(r, rows, x->name, x->key))
			add_counter(r->study, x->name, w, x->key, v);
	}
}

/* Each dependency's failed stats readings: events dep_stats_failed, whose
 * detail starts "NAME: " (runner_depstats.c). */
static void load_failures(struct report *r)
{
	const struct event_rows *ev = &r->view.events;
	struct report_study *s = r->study;
	size_t k, i;

	for (k = 0; k < ev->n; k++) {
		const struct event_row *e = &ev->v[k];
		const char *colon = e->detail ? strstr(e->detail, ": ") : NULL;
		struct report_depfail *f = NULL;
		const char *dep;
		char *name;
		int seen = 0;

		if (!e->kind || strcmp(e->kind, "dep_stats_failed") || !colon)
			continue;
		name = xstrndup(e->detail, (size_t)(colon - e->detail));
		dep = dep_name(s, name);
		free(name);
		for (i = 0; i < s->ndepfail && !f; i++)
			if (s->depfail[i].dep == dep)
				f = &s->depfail[i];
		if (!f) {
			s->depfail = xrealloc(s->depfail, (s->ndepfail + 1) * sizeof(*s->depfail));
			f = &s->depfail[s->ndepfail++];
			memset(f, 0, sizeof(*f));
			f->dep = dep;
		}
		/* a window's two readings may both fail: count it once */
		for (i = 0; i < k && !seen; i++)
			seen = ev->v[i].has_window && e->has_window &&
			       ev->v[i].window_id == e->window_id && ev->v[i].kind &&
			       !strcmp(ev->v[i].kind, "dep_stats_failed") && ev->v[i].detail &&
			       !strncmp(ev->v[i].detail, e->detail, (size_t)(colon - e->detail) + 2);
		f->failures++;
		f->windows += !seen;
	}
}

/* By dependency, implementation, then time, highest first. */
static int stmt_cmp(const void *pa, const void *pb)
{
	const struct report_depstmt *a = pa, *b = pb;
	int d = strcmp(a->dep, b->dep);

	if (!d)
		d = a->impl - b->impl;
	return d ? d : (a->ms < b->ms) - (a->ms > b->ms);
}

int report_depstudy_load(struct report *r, struct store *st)
{
	struct dep_ceiling_rows ceil;
	struct window_dep_stat_rows stats;

	if (store_dep_ceilings_load(st, r->run_id, NULL, &ceil))
		return -1;
	if (store_window_dep_stats_load(st, r->run_id, &stats)) {
		dep_ceiling_rows_release(&ceil);
		return -1;
	}
	load_ceilings(r, &ceil);
	load_demand(r);
	load_stats(r, &stats);
	load_failures(r);
	if (r->study->ndepstmt)     /* qsort's array may not be NULL, even empty */
		qsort(r->study->depstmt, r->study->ndepstmt, sizeof(*r->study->depstmt), stmt_cmp);
	dep_ceiling_rows_release(&ceil);
	window_dep_stat_rows_release(&stats);
	return 0;
}

void report_depstudy_free(struct report_study *s)
{
	size_t i;

	for (i = 0; i < s->ndepceil; i++)
		free(s->depceil[i].dep);
	free(s->depceil);
	for (i = 0; i < s->ndepstmt; i++)
		free(s->depstmt[i].stmt);
	free(s->depstmt);
	for (i = 0; i < s->ndepctr; i++)
		free(s->depctr[i].key);
	free(s->depctr);
	free(s->depfail);
	for (i = 0; i < s->ndepnames; i++)
		free(s->depnames[i]);
	free(s->depnames);
}
