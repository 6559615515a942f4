/*
 * report_signals: derived signals (stats.signals "= EXPR", sigexpr.h) per
 * implementation per rung. Each valid window's value (accepted or failed:
 * a failed window is a valid measurement over the SLO; a rejected one is
 * void) is computed from the polls stored for its measured part (table
 * rtstats), the same rows and the same code the gates used
 * (evidence_derived.c); a rung gives the mean and the range (lowest,
 * highest) across its valid windows,
 * with how many of them had a value and, when one had none, why.
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

static void add_value(struct report_sigrung *g, double v, const char *why)
{
	g->windows++;
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

/* One window: each of its implementation's derived signals. */
static int window_signals(struct report *r, struct store *st, const struct view_window *w)
{
	struct report_study *s = r->study;
	struct rtstat_rows rows;
	struct sigexpr_row *x;
	size_t i, n = 0;

	if (store_rtstats_load(st, w->id, "measured", &rows))
		return -1;
	x = xcalloc(rows.n + 1, sizeof(*x));
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
		struct sigexpr *e;
		const char *why = NULL;
		char *err = NULL;
		double v = NAN;

		if (strcmp(d->impl, w->impl))
			continue;
		if (sigexpr_parse(d->expr, (const char *const *)d->polled, d->npolled, &e, &err))
			why = "not a valid expression";
		else
			v = sigexpr_window(e, x, n, &why);
		add_value(rung_for(s, w->impl_idx, w->stage, w->rate, d->name), v, why);
		sigexpr_free(e);
		free(err);
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
	size_t i;

	if (!s->nsigdefs)
		return 0;
	for (i = 0; i < r->nwindows; i++)
		if (r->windows[i].valid && r->windows[i].impl_idx >= 0 &&
		    window_signals(r, st, &r->windows[i]))
			return -1;
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
	sbuf_adds(&c, "Derived from the runtime statistics each implementation serves, per valid "
		      "window (accepted or failed) over its measured part, then across the rung's valid "
		      "windows: the mean and the range (lowest - highest). Declared as:");
	for (i = 0; i < s->nsigdefs; i++)
		sbuf_addf(&c, "%s %s.%s = %s", i ? ";" : "", s->sigdefs[i].impl, s->sigdefs[i].name,
			  s->sigdefs[i].expr);
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
		sbuf_addf(&c, "%zu of %zu", g->computed, g->windows);
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

/* {"<signal>": {"expr": ..., "impls": {"<impl>": [rungs]}}} */
json_t *report_signals_json(const struct report *r)
{
	const struct report_study *s = r->study;
	json_t *o = json_object();
	size_t i;

	for (i = 0; s && i < s->nsigdefs; i++) {
		const struct report_sigdef *d = &s->sigdefs[i];
		json_t *sig = json_object_get(o, d->name), *impls;

		if (!sig) {
			sig = json_pack("{s:s, s:{}}", "expr", d->expr, "impls");
			json_object_set_new(o, d->name, sig);
		}
		impls = json_object_get(sig, "impls");
		json_object_set_new(impls, d->impl, json_array());
	}
	for (i = 0; s && i < s->nsigrungs; i++) {
		const struct report_sigrung *g = &s->sigrungs[i];
		json_t *arr = json_object_get(json_object_get(json_object_get(o, g->name), "impls"),
					      r->impls[g->impl].name);

		if (arr)
			json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:o}",
				"stage", g->stage, "rate_rps", jnum(g->rate), "mean", jnum(g->mean),
				"min", jnum(g->lo), "max", jnum(g->hi), "windows", (json_int_t)g->windows,
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
