/*
 * compare_plan: what compare can decide from a plan (compare_plan.h).
 * The pooled test's floor is exact (its smallest p is 2^-n); the smallest
 * callable shift is an estimate: the normal-theory MDE of the pooled test
 * from a base run's window-to-window spread (a pair's difference taken as
 * two independent windows, so blocks that share the host's state only
 * make it smaller), or the margin, whichever is larger.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare_cells.h"
#include "report/compare_plan.h"
#include "base/jout.h"
#include "base/rate.h"
#include "base/util.h"

static double win_value(const struct cmp_run *r, const struct view_window *w, int cpu, int req)
{
	if (!w->accepted)
		return NAN;
	if (req >= 0)
		return cmp_win_req_pslo(r, w, req);
	if (cpu)
		return isfinite(w->cpu_s) && w->completed > 0 ? w->cpu_s * 1e6 / (double)w->completed
							      : NAN;
	return w->pslo_ms;
}

/* Spread of impl's windows in base (metric cpu / request req, -1: the
 * mix); rates counts the rates with a value. */
static void spread_of(const struct cmp_run *base, const char *impl, int cpu, int req,
		      struct cmp_plan_spread *sp, size_t *rates)
{
	double *lv = xcalloc(base->nw + 1, sizeof(*lv)), *dev = xcalloc(base->nw + 1, sizeof(*dev));
	double *rt = xcalloc(base->nw + 1, sizeof(*rt)), sum = 0;
	size_t i, j, n = 0, nd = 0;

	*rates = 0;
	for (i = 0; i < base->nw; i++) {
		double v = win_value(base, base->w[i], cpu, req);
		if (strcmp(base->w[i]->impl, impl) || !(v > 0) || !isfinite(v))
			continue;
		lv[n] = log(v);
		rt[n++] = base->w[i]->rate;
		sum += log(v);
	}
	sp->windows = n;
	sp->base = n ? exp(sum / (double)n) : NAN;
	for (i = 0; i < n; i++) {  /* each rate once: its median, deviations */
		double *g = xcalloc(n, sizeof(*g)), med;
		size_t k = 0;
		for (j = 0; j < i && !rate_same(rt[j], rt[i]); j++)
			;
		if (j < i) {
			free(g);
			continue;
		}
		for (j = i; j < n; j++)
			if (rate_same(rt[j], rt[i]))
				g[k++] = lv[j];
		med = stat_median(g, k);
		for (j = 0; j < k; j++)
			dev[nd++] = fabs(g[j] - med);
		(*rates)++;
		free(g);
	}
	sp->sd_log = nd > *rates ? M_SQRT2 * 1.4826 * stat_median(dev, nd) : NAN;
	free(lv);
	free(dev);
	free(rt);
}

static void metric_spreads(struct cmp_plan *p, struct cmp_plan_metric *m, const struct spec *s,
			   const struct cmp_run *base, int req)
{
	size_t i, rates;
	int k = -1;
	double floor = m->cpu ? s->compare.margin_cpu_us : s->compare.margin_ms;

	for (i = 0; req >= 0 && i < base->nreqs; i++)
		if (!strcmp(base->reqs[i], s->workload.requests[req].name))
			k = (int)i;
	if (req >= 0 && k < 0)
		return;
	m->spread = xcalloc(base->nimpls + 1, sizeof(*m->spread));
	for (i = 0; i < base->nimpls; i++) {
		struct cmp_plan_spread *sp = &m->spread[m->nspread];
		size_t n;
		double mde;

		if (strchr(base->impls[i], '@'))
			continue;  /* a control arm: its implementation speaks */
		spread_of(base, base->impls[i], m->cpu, k, sp, &rates);
		if (!sp->windows)
			continue;
		sp->impl = xstrdup(base->impls[i]);
		n = rates * p->reps + p->confirm;
		if (n > p->pairs)
			n = p->pairs;
		mde = stat_strat_mde(sp->sd_log, n, m->level, STAT_MDE_POWER);
		sp->mde_pct = isnan(mde) ? NAN : 100 * expm1(mde);
		sp->margin_pct = cmp_margin_of(s->compare.margin_pct, floor, sp->base) / sp->base * 100;
		sp->call_pct = isnan(sp->mde_pct) || sp->mde_pct < sp->margin_pct ? sp->margin_pct
										 : sp->mde_pct;
		m->nspread++;
	}
}

void cmp_plan_init(struct cmp_plan *p, const struct spec *s, const struct cmp_run *base)
{
	double *rungs = NULL, alpha = s->compare.alpha;
	size_t i, k = 0, nreq = s->workload.nrequests;

	memset(p, 0, sizeof(*p));
	p->rates = spec_ladder_rungs(s, &rungs);
	free(rungs);
	p->reps = (size_t)s->ladder.reps;
	p->alpha = alpha;
	p->confirm = s->confirm.present ? 2 * (size_t)s->confirm.reps : 0;
	p->pairs = p->rates * p->reps + p->confirm;
	p->base_id = base ? base->id : NULL;
	p->compare_setup = s->compare.present;
	p->sequential = s->compare.sequential.present;
	{
		/* an unpaired cell: reps against reps at one rate, Holm over
		 * the cells (no pooled test), the first step */
		size_t cells = p->rates * (size_t)(!!(s->compare.metrics & CMP_P99) +
						   !!(s->compare.metrics & CMP_CPU_PER_REQUEST));
		double lvl = s->compare.correction == CMP_CORRECT_HOLM && cells
			? alpha / (double)cells : alpha;
		p->unpaired_can = stat_mann_whitney_min_p(p->reps, p->reps) <= lvl;
	}
	p->m = xcalloc(2 + nreq, sizeof(*p->m));
	if (s->compare.metrics & CMP_P99) {
		snprintf(p->m[k].name, sizeof(p->m[0].name), "latency");
		p->m[k++].req = -1;
	}
	if (s->compare.metrics & CMP_CPU_PER_REQUEST) {
		snprintf(p->m[k].name, sizeof(p->m[0].name), "cpu_per_request");
		p->m[k].req = -1;
		p->m[k++].cpu = 1;
	}
	for (i = 0; i < nreq; i++)
		if (s->workload.requests[i].slo_ms > 0) {
			snprintf(p->m[k].name, sizeof(p->m[0].name), "request %s's latency",
				 s->workload.requests[i].name);
			p->m[k++].req = (int)i;
		}
	p->nm = k;
	for (i = 0; i < p->nm; i++) {
		struct cmp_plan_metric *m = &p->m[i];
		m->level = s->compare.correction == CMP_CORRECT_HOLM
			? alpha * (1 - CMP_CELL_SHARE) / (double)p->nm : alpha;
		m->floor = stat_strat_floor(m->level);
		p->never |= !m->floor || p->pairs < m->floor;
		if (base)
			metric_spreads(p, m, s, base, m->req);
	}
	cmp_plan_seq_init(p, s, base);
}

void cmp_plan_release(struct cmp_plan *p)
{
	size_t i, j;

	for (i = 0; i < p->nm; i++) {
		for (j = 0; j < p->m[i].nspread; j++)
			free(p->m[i].spread[j].impl);
		free(p->m[i].spread);
	}
	free(p->m);
	memset(p, 0, sizeof(*p));
}

int cmp_plan_refusal(const struct cmp_plan *p, const char *path, char *buf, size_t len)
{
	const struct cmp_plan_metric *m = p->nm ? &p->m[0] : NULL;
	char what[96];

	if (!p->compare_setup || !p->never || p->unpaired_can || p->sequential || !m)
		return 0;
	if (m->level < p->alpha)
		snprintf(what, sizeof(what), "alpha x %.2g over %zu pooled metric%s, weighted Holm",
			 1 - CMP_CELL_SHARE, p->nm, p->nm == 1 ? "" : "s");
	else
		snprintf(what, sizeof(what), "alpha, no correction");
	snprintf(buf, len, "%s: compare: %zu pairs a metric at most (%zu rate%s x %zu reps%s) can "
		 "never decide: the pooled test's smallest p, 2^-%zu = %.3g, is above its first "
		 "step %.3g (%s), and no unpaired cell can either; plan at least %zu pairs "
		 "(more stages.ladder.reps or rungs), or set compare.sequential and rerun "
		 "--until-decided\n",
		 path, p->pairs, p->rates, p->rates == 1 ? "" : "s", p->reps,
		 p->confirm ? " + confirm" : "", p->pairs, stat_strat_min_p(p->pairs), m->level,
		 what, m->floor);
	return 1;
}

void cmp_plan_print(const struct cmp_plan *p, const struct spec *s)
{
	size_t i, j;

	printf("\ncompare (harness compare of a rerun --with-baseline, docs/STATISTICS.md):\n");
	printf("  pairs a metric at most: %zu (%zu rate%s x %zu reps%s; rungs past the knee "
	       "and rejected windows give fewer)\n", p->pairs, p->rates, p->rates == 1 ? "" : "s",
	       p->reps, p->confirm ? " + confirm" : "");
	for (i = 0; i < p->nm; i++) {
		const struct cmp_plan_metric *m = &p->m[i];

		printf("  %s: pooled signed-rank test at %.3g first (weighted Holm), needs %zu "
		       "pairs: %s\n", m->name, m->level, m->floor,
		       p->pairs >= m->floor && m->floor ? "can decide"
		       : p->sequential ? "cannot at the plan's n (compare.sequential: reruns add "
					 "blocks --until-decided)"
		       : "can NEVER decide");
		if (m->floor && p->pairs >= m->floor && p->pairs < m->floor + 2)
			printf("    (at the floor: one pair lost to rejected windows the "
			       "replacements could not bring back (retries) leaves %zu pairs; more "
			       "reps keep a margin)\n", p->pairs - 1);
		if (!p->base_id)
			continue;
		for (j = 0; j < m->nspread; j++) {
			const struct cmp_plan_spread *sp = &m->spread[j];
			printf("    %s (base run %s, %zu windows): smallest shift compare could call "
			       "%.1f%% (MDE %.1f%%, margin %.1f%% of %.4g %s)\n", sp->impl, p->base_id,
			       sp->windows, sp->call_pct, sp->mde_pct, sp->margin_pct, sp->base,
			       m->cpu ? "us" : "ms");
		}
		if (!m->nspread)
			printf("    (no accepted window of it in base run %s)\n", p->base_id);
	}
	if (!p->base_id)
		printf("  smallest shift compare could call: needs a base run's spread "
		       "(harness check %s --base RUN)\n", s->path ? s->path : "SPEC");
	cmp_plan_seq_print(p);
}

json_t *cmp_plan_json(const struct cmp_plan *p)
{
	json_t *o = json_object(), *a = json_array();
	size_t i, j;

	jout_set(o, "pairs_max", json_integer((json_int_t)p->pairs),
		 "can_decide", json_boolean(!p->never), "base_run", jout_str(p->base_id), NULL);
	for (i = 0; i < p->nm; i++) {
		json_t *m = json_object(), *sp = json_array();
		jout_set(m, "metric", jout_str(p->m[i].name),
			 "first_level", jout_num(p->m[i].level),
			 "pairs_needed", json_integer((json_int_t)p->m[i].floor), NULL);
		for (j = 0; j < p->m[i].nspread; j++) {
			const struct cmp_plan_spread *s = &p->m[i].spread[j];
			json_t *x = json_object();
			jout_set(x, "impl", jout_str(s->impl),
				 "windows", json_integer((json_int_t)s->windows),
				 "base", jout_num(s->base), "mde_pct", jout_num(s->mde_pct),
				 "margin_pct", jout_num(s->margin_pct),
				 "smallest_call_pct", jout_num(s->call_pct), NULL);
			json_array_append_new(sp, x);
		}
		json_object_set_new(m, "from_base", sp);
		json_array_append_new(a, m);
	}
	json_object_set_new(o, "metrics", a);
	json_object_set_new(o, "sequential_plan", cmp_plan_seq_json(p));
	return o;
}
