/* history: a spec's runs over time, and the steps between them (history.h). */
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/history.h"
#include "model/view.h"
#include "base/rate.h"
#include "stat/stat.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

#define LEVEL 0.95

const char *history_metric_name(enum hist_metric m)
{
	switch (m) {
	case HM_KNEE: return "knee";
	case HM_COST: return "cost";
	case HM_MEMORY: return "memory";
	case HM_LATENCY: return "latency";
	}
	return "?";
}

/* ------------------------------------------------------------- the rule */

static const struct hval *next_with_ci(const struct hval *const *v, size_t i, size_t n)
{
	for (i++; i < n; i++)
		if (v[i] && v[i]->has_ci)
			return v[i];
	return NULL;
}

/*
 * A step lands on run i when its interval and the reference run's do not
 * overlap, and the next run (when there is one) is on the same side of the
 * reference's interval: a lasting change, not one odd run (asv reports a
 * regression where its step fit moves to a new level; here each point
 * carries its own interval, so "beyond the noise" is "beyond both
 * intervals"). The reference is the previous run, except that an odd run
 * (beyond it, the next one back) never becomes the reference: the run
 * after it is compared with the level before it. The last run's step is
 * reported unconfirmed.
 */
void history_steps(struct hist_impl *im, enum hist_metric m, size_t rate,
		   const struct hval *const *v, size_t n, double margin)
{
	const struct hval *a = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct hval *b = v[i], *c;
		struct hist_step *s;
		int up;

		if (!b || !b->has_ci)
			continue;
		if (!a || (!(b->lo > a->hi) && !(b->hi < a->lo))) {
			a = b;      /* the same level */
			continue;
		}
		/* Beyond the noise but within the margin compare would call
		 * "no change": a level moving by less than it is not a step. */
		if (!(fabs(b->v - a->v) > margin * fabs(a->v)))
			continue;
		up = b->lo > a->hi;
		c = next_with_ci(v, i, n);
		if (c && !(up ? c->lo > a->hi : c->hi < a->lo))
			continue;   /* back where it was: one odd run, not a step */
		XGROW(im->steps, im->asteps, im->nsteps + 1);
		s = &im->steps[im->nsteps++];
		s->run = i;
		s->metric = m;
		s->rate = rate;
		s->from = a->v;
		s->to = b->v;
		s->regression = m == HM_KNEE ? !up : up;
		s->confirmed = c != NULL;
		a = b;
	}
}

/* ----------------------------------------------------------- intervals */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * scale * sum(num) / sum(den) over the n windows, with a t interval at
 * LEVEL on the log of the windows' own ratios (mean +- t(n-1) s / sqrt(n)
 * of the logs, as a factor around the ratio of sums): a cost or a memory
 * is positive, and an interval on its own scale went below zero for a
 * spread-out handful of windows ("246 [-69.5, 562]" µs per request, issue
 * 29); on the log scale it is a ratio, never below zero, and wider above
 * than below as a positive quantity's noise is. A bootstrap of three
 * windows has ten distinct resamples and an interval far too narrow:
 * tests/slow/history_noise.sh measured it flagging 14% of unchanged
 * series; the t interval is the honest width for a handful of windows.
 */
static void ratio_interval(const double *num, const double *den, size_t n, double scale,
			   struct hval *out)
{
	double sn = 0, sd = 0, mean = 0, ss = 0, r, half;
	size_t k, m = 0;

	memset(out, 0, sizeof(*out));
	out->v = out->lo = out->hi = NAN;
	out->n = n;
	for (k = 0; k < n; k++) {
		sn += num[k];
		sd += den[k];
	}
	if (!n || !(sd > 0))
		return;
	out->v = scale * sn / sd;
	for (k = 0; k < n; k++)
		if (den[k] > 0 && num[k] > 0) {
			mean += log(scale * num[k] / den[k]);
			m++;
		}
	if (m < 2 || !(out->v > 0))
		return;
	mean /= (double)m;
	for (k = 0; k < n; k++)
		if (den[k] > 0 && num[k] > 0) {
			r = log(scale * num[k] / den[k]) - mean;
			ss += r * r;
		}
	half = stat_t_quantile((1 + LEVEL) / 2, (double)(m - 1)) * sqrt(ss / (double)(m - 1)) /
	       sqrt((double)m);
	if (!isfinite(half))
		return;
	out->lo = out->v * exp(-half);
	out->hi = out->v * exp(half);
	out->has_ci = 1;
}

static void knee_hval(const struct knee_result *k, struct hval *out)
{
	memset(out, 0, sizeof(*out));
	out->v = out->lo = out->hi = NAN;
	out->n = k->nvalid;
	switch (k->kind) {
	case KNEE_NONE:
		return;
	case KNEE_FLOOR:
		out->v = out->lo = k->highest_rung_rps;
		out->hi = INFINITY;
		out->has_ci = 1;
		return;
	case KNEE_POINT:
	case KNEE_BRACKET:
		out->v = k->knee_rps;
		if (k->has_ci) {
			out->lo = k->ci_lo;
			out->hi = k->ci_hi;
		} else if (k->kind == KNEE_BRACKET || k->at_first_rung) {
			out->lo = isfinite(k->lo_rps) && !k->at_first_rung ? k->lo_rps : 0;
			out->hi = k->kind == KNEE_BRACKET ? k->hi_rps : k->knee_rps;
		} else {
			return;
		}
		out->has_ci = 1;
		return;
	}
}

/* ------------------------------------------------------------- loading */

/* A window history reads: an accepted ladder window of impl. The latency
 * at the knee's rung reads these too (not refine's or confirm's). */
static int hist_window(const struct view_window *w, const char *impl)
{
	return w->accepted && !strcmp(w->impl, impl) && !strcmp(w->stage, "ladder");
}

static int impl_index(struct history *h, const char *name, int add)
{
	size_t i;

	for (i = 0; i < h->nimpls; i++)
		if (!strcmp(h->impls[i].name, name))
			return (int)i;
	if (!add)
		return -1;
	h->impls = xrealloc(h->impls, (h->nimpls + 1) * sizeof(*h->impls));
	memset(&h->impls[h->nimpls], 0, sizeof(*h->impls));
	h->impls[h->nimpls].name = xstrdup(name);
	return (int)h->nimpls++;
}

/* The rate of the highest rung the knee rests on as holding: a point's
 * or a bracket's lower rung, a floor's highest; NAN when none held. */
static double held_rung(const struct knee_result *k)
{
	switch (k->kind) {
	case KNEE_POINT:
		return k->at_first_rung || k->lo >= k->nrungs ? NAN : k->rungs[k->lo].rate;
	case KNEE_BRACKET:
		return k->lo_rps;
	case KNEE_FLOOR:
		return k->highest_rung_rps;
	case KNEE_NONE:
		break;
	}
	return NAN;
}

/* Run ri's view (lean: numbers, no histograms) into views[ri], and its
 * knees into points[ri]. */
static int load_run(struct history *h, size_t ri, const struct run_entry *e)
{
	struct store st = { 0 };
	struct sbuf db = SBUF_INIT;
	struct view *v = &h->views[ri];
	size_t k;
	int ret = -1;

	sbuf_addf(&db, "%s/run.db", e->dir);
	if (store_open(&st, db.buf, 0) || store_check(&st) ||
	    view_load_flags(v, &st, e->rec.id, VIEW_LEAN))
		goto out;
	if (v->spec) {
		/* the newest run's win: runs are loaded oldest first */
		h->margin_pct = v->spec->compare.margin_pct;
		h->percentile = v->spec->slo.percentile;
	} else {
		warning("history: run %s: its stored spec does not parse here: no knee", e->rec.id);
	}
	for (k = 0; k < h->nimpls; k++) {
		struct hist_point *p = &h->impls[k].points[ri];
		const struct view_impl *vi = view_impl(v, h->impls[k].name);

		p->knee.v = p->knee.lo = p->knee.hi = NAN;
		p->held_rps = NAN;
		if (!run_record_impl(&e->rec, h->impls[k].name))
			continue;
		p->present = 1;
		if (!v->spec || !vi)
			continue;
		p->knee_kind = vi->knee.kind;
		knee_hval(&vi->knee, &p->knee);
		p->held_rps = held_rung(&vi->knee);
	}
	ret = 0;
out:
	store_close(&st);
	sbuf_release(&db);
	return ret;
}

static int has_rate(const struct view *v, const char *impl, double rate)
{
	size_t i;

	for (i = 0; i < v->nwindows; i++)
		if (hist_window(&v->windows[i], impl) && rate_same(v->windows[i].rate, rate))
			return 1;
	return 0;
}

/* The fixed rates of implementation k: measured in every run that has it
 * (every rate seen when none is common). */
static void fixed_rates(struct history *h, size_t k)
{
	struct hist_impl *im = &h->impls[k];
	double *all = NULL;
	size_t nall = 0, aall = 0, i, j, r;
	int common_only;

	for (r = 0; r < h->nruns; r++) {
		const struct view *x = &h->views[r];

		for (i = 0; i < x->nwindows; i++) {
			if (!hist_window(&x->windows[i], im->name))
				continue;
			for (j = 0; j < nall && !rate_same(all[j], x->windows[i].rate); j++)
				;
			if (j == nall) {
				XGROW(all, aall, nall + 1);
				all[nall++] = x->windows[i].rate;
			}
		}
	}
	if (nall)
		qsort(all, nall, sizeof(*all), cmp_dbl);
	for (common_only = 1; common_only >= 0; common_only--) {
		im->nrates = 0;
		for (j = 0; j < nall; j++) {
			for (r = 0; r < h->nruns; r++)
				if (im->points[r].present && !has_rate(&h->views[r], im->name, all[j]))
					break;
			if (!common_only || r == h->nruns)
				all[im->nrates++] = all[j];
		}
		if (im->nrates)
			break;
	}
	im->rates = all;
}

/* Cost, memory and latency of impl's windows in one run at rate; a NULL
 * output is skipped. */
static void values_at(const struct view *x, const char *impl, double rate, struct hval *cost,
		      struct hval *mem, struct hval *lat)
{
	size_t m = x->nwindows + 1;
	double *a = xcalloc(3 * m, sizeof(*a)), *b = xcalloc(3 * m, sizeof(*b));
	double *ma = a + m, *mb = b + m, *la = ma + m, *lb = mb + m;
	size_t i, n = 0, nm = 0, nl = 0;

	for (i = 0; i < x->nwindows; i++) {
		const struct view_window *w = &x->windows[i];

		double pct = w->pslo_ms;   /* the view's one rule (view.h) */

		if (!hist_window(w, impl) || !rate_same(w->rate, rate))
			continue;
		if (isfinite(w->cpu_s) && w->completed > 0) {
			a[n] = w->cpu_s;
			b[n++] = (double)w->completed;
		}
		if (isfinite(w->anon_p50)) {
			ma[nm] = w->anon_p50;
			mb[nm++] = 1;
		}
		if (isfinite(pct) && w->due > 0) {
			la[nl] = pct * (double)w->due;   /* request-weighted, as the knee's rung */
			lb[nl++] = (double)w->due;
		}
	}
	if (cost)
		ratio_interval(a, b, n, 1e6, cost);
	if (mem)
		ratio_interval(ma, mb, nm, 1.0 / (1024 * 1024), mem);
	if (lat)
		ratio_interval(la, lb, nl, 1, lat);
	free(a);
	free(b);
}

static void rate_values(struct history *h, size_t k)
{
	struct hist_impl *im = &h->impls[k];
	size_t r, j;

	for (r = 0; r < h->nruns; r++) {
		const struct view *x = &h->views[r];
		struct hist_point *p = &im->points[r];

		p->cost = xcalloc(im->nrates + 1, sizeof(*p->cost));
		p->mem = xcalloc(im->nrates + 1, sizeof(*p->mem));
		p->lat = xcalloc(im->nrates + 1, sizeof(*p->lat));
		for (j = 0; j < im->nrates; j++)
			values_at(x, im->name, im->rates[j], &p->cost[j], &p->mem[j], &p->lat[j]);
		values_at(x, im->name, p->held_rps, NULL, NULL, &p->knee_lat);
	}
}

static void find_steps(struct history *h)
{
	const struct hval **v = xcalloc(h->nruns + 1, sizeof(*v));
	size_t k, r, j;

	for (k = 0; k < h->nimpls; k++) {
		struct hist_impl *im = &h->impls[k];

		for (r = 0; r < h->nruns; r++)
			v[r] = im->points[r].present ? &im->points[r].knee : NULL;
		history_steps(im, HM_KNEE, 0, v, h->nruns, h->margin_pct / 100);
		for (j = 0; j < im->nrates; j++) {
			for (r = 0; r < h->nruns; r++)
				v[r] = im->points[r].present ? &im->points[r].cost[j] : NULL;
			history_steps(im, HM_COST, j, v, h->nruns, h->margin_pct / 100);
			for (r = 0; r < h->nruns; r++)
				v[r] = im->points[r].present ? &im->points[r].mem[j] : NULL;
			history_steps(im, HM_MEMORY, j, v, h->nruns, h->margin_pct / 100);
			for (r = 0; r < h->nruns; r++)
				v[r] = im->points[r].present ? &im->points[r].lat[j] : NULL;
			history_steps(im, HM_LATENCY, j, v, h->nruns, h->margin_pct / 100);
		}
	}
	free(v);
}

/* A run of the kind and branch asked: reruns (a parent run: pull
 * requests) apart from the runs made from the spec (nightly), by default
 * the latter; a branch is the spec's or an implementation's. */
static int run_wanted(const struct history_opts *o, const struct run_record *rec)
{
	int rerun = rec->parent_run && *rec->parent_run;
	size_t j;

	if (o->kind == HISTORY_RUNS ? rerun : o->kind == HISTORY_RERUNS ? !rerun : 0)
		return 0;
	if (!o->branch || (rec->spec_branch && !strcmp(rec->spec_branch, o->branch)))
		return 1;
	for (j = 0; j < rec->nimpls; j++)
		if (rec->impls[j].branch && !strcmp(rec->impls[j].branch, o->branch))
			return 1;
	return 0;
}

/* The runs of the spec, oldest first, and the implementations they name. */
static int pick_runs(struct history *h, const struct history_opts *o,
		     const struct run_entry *e, size_t n, const struct run_entry ***picked)
{
	const char *spec = o->spec;
	size_t i, j;

	*picked = xcalloc(n + 1, sizeof(**picked));
	for (i = n; !spec && i-- > 0;)
		if (e[i].readable && e[i].rec.spec_name)
			spec = e[i].rec.spec_name;
	if (!spec)
		return error("history: no readable run under %s", h->runs_dir);
	h->spec = xstrdup(spec);
	for (i = 0; i < n; i++) {
		if (!e[i].readable || !e[i].rec.spec_name || strcmp(e[i].rec.spec_name, spec) ||
		    !run_wanted(o, &e[i].rec))
			continue;
		(*picked)[h->nruns++] = &e[i];
		for (j = 0; j < e[i].rec.nimpls; j++)
			if (e[i].rec.impls[j].name &&
			    (!o->impl || !strcmp(o->impl, e[i].rec.impls[j].name)))
				impl_index(h, e[i].rec.impls[j].name, 1);
	}
	if (!h->nruns)
		return error("history: no %s of spec '%s'%s%s under %s",
			     o->kind == HISTORY_RERUNS ? "rerun" : o->kind == HISTORY_ALL ? "run or rerun"
							 : "run (reruns: --kind rerun)",
			     spec, o->branch ? " on branch " : "", o->branch ? o->branch : "", h->runs_dir);
	if (!h->nimpls)
		return error("history: --impl %s: no run of spec '%s' has it", o->impl, spec);
	return 0;
}

int history_load(struct history *h, const struct history_opts *o)
{
	struct run_entry *e = NULL;
	const struct run_entry **picked = NULL;
	size_t n = 0, r, k;
	int ret = -1;

	memset(h, 0, sizeof(*h));
	h->runs_dir = xstrdup(o->runs_dir);
	h->margin_pct = 5;
	h->percentile = 99;
	if (store_runs_list(o->runs_dir, &e, &n, NULL))
		goto out;
	run_entries_show_abandoned(e, n);   /* a dead run is not running */
	if (pick_runs(h, o, e, n, &picked))
		goto out;
	h->runs = xcalloc(h->nruns, sizeof(*h->runs));
	for (k = 0; k < h->nimpls; k++)
		h->impls[k].points = xcalloc(h->nruns, sizeof(*h->impls[k].points));
	h->views = xcalloc(h->nruns, sizeof(*h->views));
	for (r = 0; r < h->nruns; r++) {
		const struct run_record *rec = &picked[r]->rec;
		struct hist_run *hr = &h->runs[r];

		hr->id = xstrdup(rec->id);
		hr->dir = xstrdup(picked[r]->dir);
		hr->status = xstrdup(rec->status ? rec->status : "?");
		hr->created_at = rec->created_at;
		hr->commits = xcalloc(h->nimpls, sizeof(*hr->commits));
		for (k = 0; k < h->nimpls; k++) {
			const struct run_impl *im = run_record_impl(rec, h->impls[k].name);

			if (im && im->commit_id)
				hr->commits[k] = xstrdup(im->commit_id);
		}
		if (load_run(h, r, picked[r]))
			goto out;
	}
	for (k = 0; k < h->nimpls; k++) {
		fixed_rates(h, k);
		rate_values(h, k);
	}
	find_steps(h);
	ret = 0;
out:
	free(picked);
	run_entries_free(e, n);
	return ret;
}

void history_release(struct history *h)
{
	size_t i, k;

	for (k = 0; k < h->nimpls; k++) {
		struct hist_impl *im = &h->impls[k];

		for (i = 0; im->points && i < h->nruns; i++) {
			free(im->points[i].cost);
			free(im->points[i].mem);
			free(im->points[i].lat);
		}
		free(im->points);
		free(im->rates);
		free(im->steps);
		free(im->name);
	}
	free(h->impls);
	for (i = 0; h->runs && i < h->nruns; i++) {
		for (k = 0; h->runs[i].commits && k < h->nimpls; k++)
			free(h->runs[i].commits[k]);
		free(h->runs[i].commits);
		free(h->runs[i].id);
		free(h->runs[i].dir);
		free(h->runs[i].status);
	}
	free(h->runs);
	for (i = 0; h->views && i < h->nruns; i++)
		view_release(&h->views[i]);
	free(h->views);
	free(h->spec);
	free(h->runs_dir);
	memset(h, 0, sizeof(*h));
}
