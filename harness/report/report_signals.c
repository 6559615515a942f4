/*
 * report_signals: derived signals per implementation per rung. Each valid
 * window's value (accepted or failed: a failed window is a valid
 * measurement over the SLO; a rejected one is void) is computed by
 * sigexpr.h from
 *   - an implementation's stats.signals "= EXPR": the polls stored for
 *     its measured part (table rtstats), the same rows and the same code
 *     the gates used (evidence_derived.c);
 *   - a dependency's stats.signals "= EXPR" (named DEP.SIGNAL): its stats
 *     command's two readings around the window's load (table
 *     window_dep_stats), for the implementation the window measured (the
 *     others were frozen or idle), e.g. Redis's own hit rate;
 * a rung gives the mean and the range (lowest, highest) across its valid
 * windows, with how many of them had a value and, when one had none, why.
 */
#include "report/report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "report/report.h"
#include "report/report_doc.h"
#include "base/sigexpr.h"
#include "store/store.h"
#include "store/store_dep.h"
#include "store/store_window.h"
#include "base/util.h"

/* The first declaration of a signal named name: the table's order. */
static int def_rank(const struct report_study *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nsigdefs && strcmp(s->sigdefs[i].name, name); i++)
		;
	return (int)i;
}

static struct report_sigrung *rung_for(struct report_study *s, int impl, const char *stage,
				       double rate, const char *name)
{
	struct report_sigrung *g;
	size_t i;

	for (i = 0; i < s->nsigrungs; i++) {
		g = &s->sigrungs[i];
		if (g->impl == impl && !strcmp(g->stage, stage) && rate_same(g->rate, rate) &&
		    !strcmp(g->name, name))
			return g;
	}
	s->sigrungs = xrealloc(s->sigrungs, (s->nsigrungs + 1) * sizeof(*s->sigrungs));
	g = &s->sigrungs[s->nsigrungs++];
	memset(g, 0, sizeof(*g));
	g->impl = impl;
	g->stage = stage;
	g->rate = rate;
	g->name = name;
	g->ord = def_rank(s, name);
	g->mean = g->lo = g->hi = NAN;
	return g;
}

static void add_value(struct report_sigrung *g, const struct view_window *w, double v,
		      const char *why)
{
	g->windows++;
	g->accepted += !!w->accepted;
	g->failed += !!w->failed;
	if (!isfinite(v)) {
		if (!g->why && why)
			g->why = xstrdup(why);
		return;
	}
	g->mean = g->computed ? g->mean + v : v;    /* a sum until the end */
	if (!g->computed || v < g->lo)
		g->lo = v;
	if (!g->computed || v > g->hi)
		g->hi = v;
	g->computed++;
}

/* Dependency dep's readings around window wid's load as sigexpr rows:
 * every counter before it (t 0), then after it (t 1). x holds 2 * ds->n. */
static size_t dep_rows(const struct window_dep_stat_rows *ds, int64_t wid, const char *dep,
		       struct sigexpr_row *x)
{
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ds->n; i++) {
			const struct window_dep_stat_row *g = &ds->v[i];

			if (g->window_id != wid || strcmp(g->name, dep))
				continue;
			x[n].t = pass;
			x[n].signal = g->key;
			x[n].key = NULL;
			x[n++].value = pass ? g->last : g->first;
		}
	return n;
}

static void one_signal(struct report_study *s, const struct view_window *w,
		       const struct report_sigdef *d, const struct sigexpr_row *x, size_t n)
{
	struct sigexpr *e;
	const char *why = NULL;
	char *err = NULL;
	double v = NAN;

	if (sigexpr_parse(d->expr, d->dep ? NULL : (const char *const *)d->polled, d->npolled,
			  &e, &err))
		why = "not a valid expression";
	else
		v = sigexpr_window(e, x, n, &why);
	add_value(rung_for(s, w->impl_idx, w->stage, w->rate, d->name), w, v, why);
	sigexpr_free(e);
	free(err);
}

/* One window: each of its implementation's derived signals, then each
 * dependency's (ds: every window's dependency readings). */
static int window_signals(struct report *r, struct store *st, const struct view_window *w,
			  const struct window_dep_stat_rows *ds)
{
	struct report_study *s = r->study;
	struct rtstat_rows rows;
	struct sigexpr_row *x;
	size_t i, n = 0;

	if (store_rtstats_load(st, w->id, "measured", &rows))
		return -1;
	x = xcalloc(rows.n + 2 * ds->n + 1, sizeof(*x));
	for (i = 0; i < rows.n; i++) {
		if (!rows.v[i].signal || !*rows.v[i].signal)
			continue;
		x[n].t = rows.v[i].t_s;
		x[n].signal = rows.v[i].signal;
		x[n].key = rows.v[i].key;
		x[n++].value = rows.v[i].value;
	}
	for (i = 0; i < s->nsigdefs; i++) {
		const struct report_sigdef *d = &s->sigdefs[i];

		if (d->impl && !strcmp(d->impl, w->impl))
			one_signal(s, w, d, x, n);
		else if (d->dep)    /* after the polls: x[n..] is the dependency's */
			one_signal(s, w, d, x + n, dep_rows(ds, w->id, d->dep, x + n));
	}
	free(x);
	rtstat_rows_release(&rows);
	return 0;
}

static int stage_rank(const char *s)
{
	static const char *const order[] = { "ladder", "refine", "confirm", "soak" };
	int i;

	for (i = 0; i < 4 && strcmp(order[i], s); i++)
		;
	return i;
}

/* By signal (declaration order), implementation, stage, rate. */
static int rung_cmp(const void *pa, const void *pb)
{
	const struct report_sigrung *a = pa, *b = pb;
	int d = a->ord - b->ord;

	if (!d)
		d = a->impl - b->impl;
	if (!d)
		d = stage_rank(a->stage) - stage_rank(b->stage);
	return d ? d : (a->rate > b->rate) - (a->rate < b->rate);
}

int report_signals_load(struct report *r, struct store *st)
{
	struct report_study *s = r->study;
	struct window_dep_stat_rows ds = { NULL, 0 };
	size_t i;
	int has_dep = 0;

	if (!s->nsigdefs)
		return 0;
	for (i = 0; i < s->nsigdefs; i++)
		has_dep |= !!s->sigdefs[i].dep;
	if (has_dep && store_window_dep_stats_load(st, r->run_id, &ds))
		return -1;
	for (i = 0; i < r->nwindows; i++)
		if (r->windows[i].valid && r->windows[i].impl_idx >= 0 &&
		    window_signals(r, st, &r->windows[i], &ds)) {
			window_dep_stat_rows_release(&ds);
			return -1;
		}
	window_dep_stat_rows_release(&ds);
	for (i = 0; i < s->nsigrungs; i++)
		if (s->sigrungs[i].computed)
			s->sigrungs[i].mean /= (double)s->sigrungs[i].computed;
	qsort(s->sigrungs, s->nsigrungs, sizeof(*s->sigrungs), rung_cmp);
	return 0;
}

/* ------------------------------------------------------------- formats */

void rdoc_signals(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (!s || !s->nsigdefs)
		return;
	rdoc_add(d, RDOC_H2, "Signals");
	sbuf_adds(&c, "Derived from the runtime statistics each implementation serves (over a "
		      "window's measured part) and from each dependency's own statistics (DEP.SIGNAL: "
		      "its stats command read before and after the window's load, for the "
		      "implementation that window measured), per valid window (accepted or failed: "
		      "a failed window is a valid measurement over the SLO; a rejected one is void), "
		      "then across the rung's valid windows: the mean and the range (lowest - "
		      "highest), over the windows the last column counts. Declared as:");
	for (i = 0; i < s->nsigdefs; i++) {
		const struct report_sigdef *g = &s->sigdefs[i];

		if (g->dep)
			sbuf_addf(&c, "%s %s = %s (dependency %s)", i ? ";" : "", g->name, g->expr,
				  g->dep);
		else
			sbuf_addf(&c, "%s %s.%s = %s", i ? ";" : "", g->impl, g->name, g->expr);
	}
	sbuf_adds(&c, ".");
	if (!s->nsigrungs)
		sbuf_adds(&c, " No valid window: no value to show.");
	rdoc_add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	if (!s->nsigrungs) {
		sbuf_release(&c);
		return;
	}
	t = rdoc_table(d, "signals", 7, "signal", "implementation", "stage", "rate", "mean",
		       "range", "windows with a value");
	for (i = 0; i < s->nsigrungs; i++) {
		const struct report_sigrung *g = &s->sigrungs[i];

		rdoc_cellf(t, "%s", g->name);
		rdoc_cellf(t, "%s", r->impls[g->impl].name);
		rdoc_cellf(t, "%s", g->stage);
		report_fmt_rate(&c, g->rate);
		rdoc_cell(t, &c);
		report_fmt_sig(&c, g->mean);
		rdoc_cell(t, &c);
		if (g->computed) {
			report_fmt_sig(&c, g->lo);
			sbuf_adds(&c, " - ");
			report_fmt_sig(&c, g->hi);
		} else
			sbuf_adds(&c, "-");
		rdoc_cell(t, &c);
		sbuf_addf(&c, "%zu of %zu valid (%zu accepted, %zu failed)", g->computed, g->windows,
			  g->accepted, g->failed);
		if (g->why)
			sbuf_addf(&c, " (%s)", g->why);
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* {"<signal>": {"expr": ..., "dependency": DEP or null, "impls": {"<impl>":
 * [rungs]}}}; a dependency's signal is named "DEP.SIGNAL". */
json_t *report_signals_json(const struct report *r)
{
	const struct report_study *s = r->study;
	json_t *o = json_object();
	size_t i;

	for (i = 0; s && i < s->nsigdefs; i++) {
		const struct report_sigdef *d = &s->sigdefs[i];
		json_t *sig = json_object_get(o, d->name), *impls;

		if (!sig) {
			sig = json_pack("{s:s, s:o, s:{}}", "expr", d->expr, "dependency",
					d->dep ? json_string(d->dep) : json_null(), "impls");
			json_object_set_new(o, d->name, sig);
		}
		impls = json_object_get(sig, "impls");
		if (d->impl)
			json_object_set_new(impls, d->impl, json_array());
		else              /* a dependency's: every implementation's windows */
			for (size_t k = 0; k < r->nimpls; k++)
				json_object_set_new(impls, r->impls[k].name, json_array());
	}
	for (i = 0; s && i < s->nsigrungs; i++) {
		const struct report_sigrung *g = &s->sigrungs[i];
		json_t *arr = json_object_get(json_object_get(json_object_get(o, g->name), "impls"),
					      r->impls[g->impl].name);

		if (arr)
			json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:o}",
				"stage", g->stage, "rate_rps", jnum(g->rate), "mean", jnum(g->mean),
				"min", jnum(g->lo), "max", jnum(g->hi), "windows", (json_int_t)g->windows,
				"accepted", (json_int_t)g->accepted, "failed", (json_int_t)g->failed,
				"computed", (json_int_t)g->computed,
				"why", g->why ? json_string(g->why) : json_null()));
	}
	return o;
}

void report_signals_csv(const struct report *r, struct sbuf *out)
{
	const struct report_study *s = r->study;
	size_t i;

	for (i = 0; s && i < s->nsigrungs; i++) {
		const struct report_sigrung *g = &s->sigrungs[i];

		report_study_csv_row(out, "signal", r->impls[g->impl].name, g->stage, g->rate, g->name,
				     g->mean, g->lo, g->hi, (long long)g->computed, g->why);
	}
}
