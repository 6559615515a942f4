/*
 * report_rollup: the numbers of a report, from the windows report.c read.
 *
 * Groups: (implementation, stage, rate). Only accepted windows feed a
 * number; every group keeps its counts and the reasons of its rejections.
 * Percentiles come from merged histograms (hist_merge), knees and
 * intervals from stat.c, so nothing here re-implements a statistic.
 */
#include "base/rate.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/knee_run.h"
#include "spec/spec.h"
#include "base/util.h"

static int stage_order(const char *s)
{
	if (!strcmp(s, "ladder"))
		return 0;
	if (!strcmp(s, "refine"))
		return 1;
	if (!strcmp(s, "confirm"))
		return 2;
	if (!strcmp(s, "soak"))
		return 3;
	return 4;
}

static const struct report *sort_ctx;

static int cmp_window(const void *pa, const void *pb)
{
	const struct view_window *a = &sort_ctx->windows[*(const size_t *)pa];
	const struct view_window *b = &sort_ctx->windows[*(const size_t *)pb];
	int d;

	if (a->impl_idx != b->impl_idx)
		return a->impl_idx - b->impl_idx;
	d = stage_order(a->stage) - stage_order(b->stage);
	if (d)
		return d;
	d = strcmp(a->stage, b->stage);
	if (d)
		return d;
	if (!rate_same(a->rate, b->rate))
		return a->rate < b->rate ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* kind: 0 a rejected window's reason, 1 a recorded-only failure, 2 a
 * failed window's reason. */
static void count_reason(struct report_reason **v, size_t *n, const char *name,
			 size_t len, int kind)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strlen((*v)[i].name) == len && !strncmp((*v)[i].name, name, len))
			break;
	if (i == *n) {
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[i].name = xstrndup(name, len);
		(*v)[i].rejected = (*v)[i].recorded = (*v)[i].failed = 0;
		(*n)++;
	}
	if (kind == 1)
		(*v)[i].recorded++;
	else if (kind == 2)
		(*v)[i].failed++;
	else
		(*v)[i].rejected++;
}

/* Count a window's reasons (failed and rejected windows apart) and its
 * recorded-only failures. */
static void count_window(struct report_reason **v, size_t *n, const struct view_window *w)
{
	const char *lists[2] = { w->done && !w->accepted ? w->reasons : NULL, w->recorded };
	int failed = w->done && !strcmp(w->status, "failed");
	int k;

	if (w->done && !w->accepted && !*w->reasons)
		count_reason(v, n, "unspecified", strlen("unspecified"), failed ? 2 : 0);
	for (k = 0; k < 2; k++) {
		const char *p = lists[k];

		while (p && *p) {
			size_t len;

			while (*p == ',' || *p == ' ')
				p++;
			len = strcspn(p, ",");
			while (len && p[len - 1] == ' ')
				len--;
			if (len)
				count_reason(v, n, p, len, k ? 1 : failed ? 2 : 0);
			p += strcspn(p, ",");
		}
	}
}

static void pct_from(const struct hist *h, double p, double level, struct report_pct *out)
{
	struct pct_ci ci;

	out->ms = out->lo_ms = out->hi_ms = out->coverage = NAN;
	if (!h->total || stat_hist_pct_ci(h, p, level, &ci))
		return;
	out->ms = ci.value_ns / 1e6;
	out->lo_ms = ci.lo_ns / 1e6;
	out->hi_ms = ci.hi_ns / 1e6;
	out->coverage = ci.coverage;
}

/* p99 (nearest rank) of the pooled anon samples; without samples, the
 * largest of the windows' stored anon_p99 (an upper bound, not a merge). */
static double pooled_anon_p99(const struct report *r, const size_t *idx, size_t n)
{
	double *all = NULL, worst = NAN, v;
	size_t i, k, m = 0, alloc = 0, rank;

	for (i = 0; i < n; i++) {
		const struct view_window *w = &r->windows[idx[i]];

		if (!w->accepted)
			continue;
		for (k = 0; k < w->nanon; k++) {
			XGROW(all, alloc, m + 1);
			all[m++] = w->anon[k];
		}
		if (isfinite(w->anon_p99) && !(w->anon_p99 <= worst))
			worst = w->anon_p99;
	}
	if (!m)
		return worst;
	qsort(all, m, sizeof(*all), cmp_double);
	rank = (size_t)ceil(0.99 * (double)m);
	v = all[rank ? rank - 1 : 0];
	free(all);
	return v;
}

/* Per request name over the group's accepted windows: merged
 * histograms, and how many windows missed the request's own slo_ms. */
static void rollup_requests(struct report *r, struct report_rung *g, const size_t *idx,
			    size_t n)
{
	struct hist *m = NULL;
	size_t i, k, j, alloc = 0, halloc = 0;

	for (i = 0; i < n; i++) {
		const struct view_window *w = &r->windows[idx[i]];

		if (!w->accepted)
			continue;
		for (k = 0; k < w->nreqs; k++) {
			const struct view_wreq *q = &w->reqs[k];
			struct report_rreq *x;

			for (j = 0; j < g->nreqs; j++)
				if (!strcmp(g->reqs[j].name, q->name))
					break;
			if (j == g->nreqs) {
				XGROW(g->reqs, alloc, g->nreqs + 1);
				XGROW(m, halloc, g->nreqs + 1);
				x = &g->reqs[g->nreqs];
				memset(x, 0, sizeof(*x));
				x->name = xstrdup(q->name);
				x->slo_ms = q->slo_ms;
				hist_init(&m[g->nreqs]);
				g->nreqs++;
			}
			x = &g->reqs[j];
			x->windows++;
			x->completed += (uint64_t)(q->completed > 0 ? q->completed : 0);
			x->unexpected += (uint64_t)(q->unexpected > 0 ? q->unexpected : 0);
			if (!q->has_hist)
				continue;
			hist_merge(&m[j], &q->h);
			if (x->slo_ms > 0 && q->h.total &&
			    hist_percentile_ms(&q->h, r->slo_pct) > x->slo_ms)
				x->over++;
		}
	}
	for (j = 0; j < g->nreqs; j++) {
		pct_from(&m[j], 50, r->level, &g->reqs[j].p50);
		pct_from(&m[j], 99, r->level, &g->reqs[j].p99);
		pct_from(&m[j], r->slo_pct, r->level, &g->reqs[j].pslo);
		hist_release(&m[j]);
	}
	free(m);
}

static void rollup_group(struct report *r, struct report_rung *g, const size_t *idx, size_t n)
{
	struct hist m;
	double cpu = 0, cpu_done = 0, wsum = 0, wp = 0;
	int have_cpu = 0;
	size_t i;

	hist_init(&m);
	g->worst_pslo_ms = NAN;
	g->fit_ms = NAN;
	for (i = 0; i < n; i++) {
		const struct view_window *w = &r->windows[idx[i]];

		count_window(&g->reasons, &g->nreasons, w);
		if (!w->done) {
			g->not_done++;
			continue;
		}
		g->total++;
		g->failed += !strcmp(w->status, "failed");
		if (!w->accepted)
			continue;
		g->accepted++;
		g->requests += (uint64_t)(w->due > 0 ? w->due : 0);
		g->completed += (uint64_t)(w->completed > 0 ? w->completed : 0);
		if (w->has_hist)
			hist_merge(&m, &w->lat);
		if (isfinite(w->cpu_s) && w->completed > 0) {
			cpu += w->cpu_s;
			cpu_done += (double)w->completed;
			have_cpu = 1;
		}
		if (isfinite(w->pslo_ms)) {
			double wt = w->completed > 0 ? (double)w->completed : 1;

			wp += wt * w->knee_ms;
			wsum += wt;
			if (!(w->pslo_ms <= g->worst_pslo_ms))
				g->worst_pslo_ms = w->pslo_ms;
			if (w->knee_ms <= r->slo_ms)
				g->under_slo++;
		}
	}
	rollup_requests(r, g, idx, n);
	pct_from(&m, 50, r->level, &g->p50);
	pct_from(&m, 99, r->level, &g->p99);
	pct_from(&m, 99.9, r->level, &g->p999);
	pct_from(&m, r->slo_pct, r->level, &g->pslo);
	g->mean_pslo_ms = wsum > 0 ? wp / wsum : NAN;
	g->cpu_ms_per_req = have_cpu && cpu_done > 0 ? cpu * 1000.0 / cpu_done : NAN;
	g->anon_p99 = pooled_anon_p99(r, idx, n);
	hist_release(&m);
}

static void build_groups(struct report *r)
{
	size_t *idx = xmalloc((r->nwindows ? r->nwindows : 1) * sizeof(*idx));
	size_t i, j, alloc = 0;

	for (i = 0; i < r->nwindows; i++)
		idx[i] = i;
	sort_ctx = r;
	qsort(idx, r->nwindows, sizeof(*idx), cmp_window);
	sort_ctx = NULL;
	for (i = 0; i < r->nwindows; i = j) {
		const struct view_window *w = &r->windows[idx[i]];
		struct report_rung *g;

		for (j = i + 1; j < r->nwindows; j++) {
			const struct view_window *x = &r->windows[idx[j]];

			if (x->impl_idx != w->impl_idx || strcmp(x->stage, w->stage) ||
			    !rate_same(x->rate, w->rate))
				break;
		}
		XGROW(r->rungs, alloc, r->nrungs + 1);
		g = &r->rungs[r->nrungs++];
		memset(g, 0, sizeof(*g));
		g->impl = w->impl_idx;
		g->stage = w->stage;
		g->rate = w->rate;
		g->rung = w->rung;
		rollup_group(r, g, idx + i, j - i);
	}
	free(idx);
}

/* ------------------------------------------------------------ per impl */

/* The implementation's knee as the formats print it: the view's (the one
 * rule, knee.h, over its valid ladder, refine and confirm windows; their
 * inputs are the columns windows.csv carries for `harness knee`). */
static void knee_of_impl(struct report *r, int k)
{
	struct report_impl *im = &r->impls[k];
	size_t i, j;

	if (r->view.impls[k].nknee && isfinite(r->slo_ms)) {
		im->has_knee = 1;
		/* The summary fields the formats read. */
		im->knee.crossed = im->kres->crossed;
		im->knee.at_first_rung = im->kres->at_first_rung;
		im->knee.knee_rps = im->kres->knee_rps;
		im->knee.highest_rung_rps = im->kres->highest_rung_rps;
		im->knee.rungs = im->kres->nrungs;
		im->knee.lo = im->kres->lo;
		im->knee.hi = im->kres->hi;
		if (im->kres->has_ci) {
			im->has_knee_ci = 1;
			im->knee_ci.lo = im->kres->ci_lo;
			im->knee_ci.hi = im->kres->ci_hi;
			im->knee_ci.nboot = im->kres->nboot;
			im->knee_ci.ncrossed = im->kres->ncrossed;
			im->knee_ci.inferential = im->kres->inferential;
		}
	}
	/* The isotonic fit drawn in the chart, on the ladder rungs (a rung
	 * over the SLO by failure has no finite fit to draw). */
	for (i = 0; i < r->nrungs; i++) {
		struct report_rung *g = &r->rungs[i];

		if (g->impl != k || strcmp(g->stage, "ladder"))
			continue;
		for (j = 0; j < im->kres->nrungs; j++)
			if (rate_same(im->kres->rungs[j].rate, g->rate) &&
			    isfinite(im->kres->rungs[j].fit_ms))
				g->fit_ms = im->kres->rungs[j].fit_ms;
	}
}

static void rollup_impl(struct report *r, int k)
{
	struct report_impl *im = &r->impls[k];
	double sum = 0, sq = 0;
	size_t i, nc = 0;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (w->impl_idx != k)
			continue;
		count_window(&im->reasons, &im->nreasons, w);
		if (!w->done) {
			im->not_done++;
			continue;
		}
		im->total++;
		im->accepted += w->accepted;
	}
	/* CPU per request across this implementation's ladder rungs. */
	for (i = 0; i < r->nrungs; i++) {
		struct report_rung *g = &r->rungs[i];

		if (g->impl != k || strcmp(g->stage, "ladder") || !isfinite(g->cpu_ms_per_req))
			continue;
		sum += g->cpu_ms_per_req;
		sq += g->cpu_ms_per_req * g->cpu_ms_per_req;
		nc++;
	}
	if (nc >= 2) {
		double mean = sum / (double)nc;
		double var = (sq - (double)nc * mean * mean) / (double)(nc - 1);

		im->cpu_cv = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : NAN;
		im->cpu_cv_rungs = nc;
	}
	knee_of_impl(r, k);
}

/* ------------------------------------------------------------ between impls */

/* impl's window in a block at this rate (a refine block runs each arm
 * at its own midpoint: windows at different rates never pair). */
static const struct view_window *block_window(const struct report *r, const char *stage,
						int block, double rate, int impl)
{
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (w->impl_idx == impl && w->block == block && !strcmp(w->stage, stage) &&
		    rate_same(w->rate, rate))
			return w;
	}
	return NULL;
}

static double metric_of(const struct view_window *w, int cpu)
{
	return cpu ? w->cpu_ms_per_req : w->pslo_ms;
}

/* The shift of v's pairs by its method, at r->level, and its two-sided
 * p-value (stat.h). */
static void verdict_shift(const struct report *r, struct report_verdict *v)
{
	size_t n = v->ci.n;
	double alpha = 1 - r->level;

	v->method = r->sequential && !strcmp(v->stage, "confirm") ? STAT_CS
		    : r->interval == CMP_INTERVAL_T ? STAT_T : STAT_HL;
	if (v->method == STAT_CS) {
		stat_cs_paired(v->xa, v->xb, n, alpha, r->cs_t_star, &v->ci);
		/* the mixture is two-sided: its p for the side of the mean */
		v->p = fmin(stat_cs_p(v->xa, v->xb, n, alpha, r->cs_t_star),
			    stat_cs_p(v->xb, v->xa, n, alpha, r->cs_t_star));
	} else if (v->method == STAT_T) {
		stat_paired_diff(v->xa, v->xb, n, r->level, 0, &v->ci);
		v->p = fmin(1, 2 * fmin(stat_t_paired_p(v->xa, v->xb, n),
					stat_t_paired_p(v->xb, v->xa, n)));
	} else {
		stat_hl_paired(v->xa, v->xb, n, r->level, &v->ci);
		v->p = fmin(1, 2 * fmin(stat_signed_rank_p(v->xa, v->xb, n),
					stat_signed_rank_p(v->xb, v->xa, n)));
	}
	v->ci.n = n;
	v->ci.verdict = VERDICT_INCONCLUSIVE;
	if (!isfinite(v->ci.lo))
		v->p = NAN;
	v->p_adj = v->mde = NAN;
}

/*
 * Every verdict of the report is one family: Holm over their two-sided
 * p-values (compare.correction), then each verdict: a tie when the
 * interval lies inside +-margin; A or B lower when the adjusted p is
 * <= 1 - level and the interval is on that side of 0; else
 * inconclusive. The MDE at the family's strictest level.
 */
static void judge_verdicts(struct report *r)
{
	double *p = xcalloc(r->nverdicts + 1, sizeof(*p)), alpha = 1 - r->level, a;
	size_t i, fam = 0;

	for (i = 0; i < r->nverdicts; i++)
		p[i] = r->verdicts[i].p;
	if (r->correction == CMP_CORRECT_HOLM)
		fam = stat_holm(p, r->nverdicts, p);
	else
		for (i = 0; i < r->nverdicts; i++)
			fam += !isnan(p[i]);
	a = r->correction == CMP_CORRECT_HOLM && fam ? alpha / (double)fam : alpha;
	for (i = 0; i < r->nverdicts; i++) {
		struct report_verdict *v = &r->verdicts[i];

		v->p_adj = p[i];
		v->family = fam;
		if (v->ci.n >= 2)
			v->mde = stat_mde(v->method, 1, v->xa, v->ci.n, v->xb, v->ci.n, a / 2,
					  STAT_MDE_POWER, r->cs_t_star);
		if (!isnan(v->p)) {
			if (v->ci.lo > -v->margin && v->ci.hi < v->margin)
				v->ci.verdict = VERDICT_TIE;
			else if (v->p_adj <= alpha && v->ci.hi < 0)
				v->ci.verdict = VERDICT_A_LOWER;
			else if (v->p_adj <= alpha && v->ci.lo > 0)
				v->ci.verdict = VERDICT_B_LOWER;
		}
		free(v->xa);
		free(v->xb);
		v->xa = v->xb = NULL;
	}
	free(p);
}

/* Paired verdicts: for each stage and rate, each pair of implementations
 * (a before b in spec order), over the blocks in which both ran; a block
 * pairs only when both windows were accepted. margin = margin_pct of the
 * mean over both arms' paired values (symmetric in a and b). */
static void verdicts_for(struct report *r, const char *stage, double rate, size_t *alloc)
{
	int *blocks = NULL;
	size_t nb = 0, balloc = 0, i, a, b;
	int cpu;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];
		size_t k;

		if (strcmp(w->stage, stage) || !rate_same(w->rate, rate))
			continue;
		for (k = 0; k < nb && blocks[k] != w->block; k++)
			;
		if (k == nb) {
			XGROW(blocks, balloc, nb + 1);
			blocks[nb++] = w->block;
		}
	}
	for (a = 0; a < r->nimpls; a++)
		for (b = a + 1; b < r->nimpls; b++)
			for (cpu = 0; cpu < 2; cpu++) {
				struct report_verdict *v;
				double *xa, *xb, sa = 0, sb = 0;
				size_t np = 0, both = 0;

				if (!(r->metrics & (cpu ? CMP_CPU_PER_REQUEST : CMP_P99)))
					continue;
				xa = xmalloc((nb ? nb : 1) * sizeof(*xa));
				xb = xmalloc((nb ? nb : 1) * sizeof(*xb));
				for (i = 0; i < nb; i++) {
					const struct view_window *wa, *wb;

					wa = block_window(r, stage, blocks[i], rate, (int)a);
					wb = block_window(r, stage, blocks[i], rate, (int)b);
					if (!wa || !wb || !wa->done || !wb->done)
						continue;
					both++;
					if (!wa->accepted || !wb->accepted ||
					    !isfinite(metric_of(wa, cpu)) ||
					    !isfinite(metric_of(wb, cpu)))
						continue;
					xa[np] = metric_of(wa, cpu);
					xb[np] = metric_of(wb, cpu);
					sa += xa[np];
					sb += xb[np];
					np++;
				}
				if (!both) {
					free(xa);
					free(xb);
					continue;
				}
				XGROW(r->verdicts, *alloc, r->nverdicts + 1);
				v = &r->verdicts[r->nverdicts++];
				memset(v, 0, sizeof(*v));
				v->stage = stage;
				v->rate = rate;
				v->a = (int)a;
				v->b = (int)b;
				v->metric = cpu ? "cpu_ms_per_req" : "p99_ms";
				v->blocks = both;
				v->mean_a = np ? sa / (double)np : NAN;
				v->mean_b = np ? sb / (double)np : NAN;
				v->margin = np ? r->margin_pct / 100.0 * (sa + sb) / (2.0 * (double)np) : NAN;
				v->xa = xa;
				v->xb = xb;
				v->ci.n = np;
				verdict_shift(r, v);
			}
	free(blocks);
}

struct stage_rate {
	const char *stage;
	double rate;
};

static void build_verdicts(struct report *r)
{
	size_t i, alloc = 0, done_alloc = 0, ndone = 0;
	struct stage_rate *done = NULL;

	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];
		size_t k;

		for (k = 0; k < ndone; k++)
			if (!strcmp(done[k].stage, g->stage) && rate_same(done[k].rate, g->rate))
				break;
		if (k < ndone)
			continue;
		XGROW(done, done_alloc, ndone + 1);
		done[ndone].stage = g->stage;
		done[ndone].rate = g->rate;
		ndone++;
	}
	/* In stage order, then rate: the rungs are sorted by impl first. */
	for (i = 0; i < ndone; i++) {
		size_t k, best = i;

		for (k = i + 1; k < ndone; k++) {
			int d = stage_order(done[k].stage) - stage_order(done[best].stage);

			if (d < 0 || (d == 0 && done[k].rate < done[best].rate))
				best = k;
		}
		if (best != i) {
			struct stage_rate t = done[i];

			done[i] = done[best];
			done[best] = t;
		}
		verdicts_for(r, done[i].stage, done[i].rate, &alloc);
	}
	free(done);
	judge_verdicts(r);
}

const struct report_rung *report_ladder_rung(const struct report *r, int impl, double rate)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (r->rungs[i].impl == impl && !strcmp(r->rungs[i].stage, "ladder") &&
		    rate_same(r->rungs[i].rate, rate))
			return &r->rungs[i];
	return NULL;
}

/*
 * The summary's reference rate, where cost and memory are compared: the
 * highest ladder rate at which every implementation has accepted windows
 * and is at or below every implementation's hold rate (its knee, or a
 * bracket's low end); when no rate is below every knee, the lowest rate
 * at which every implementation has accepted windows; NAN when none.
 */
static void rollup_ref_rate(struct report *r)
{
	double best = NAN, lowest = NAN;
	size_t i, k;

	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];
		int all = 1, below = 1;

		if (g->impl != 0 || strcmp(g->stage, "ladder"))
			continue;
		for (k = 0; k < r->nimpls && all; k++) {
			const struct report_rung *o = report_ladder_rung(r, (int)k, g->rate);
			double hold = report_hold_rps(&r->impls[k]);

			all = o && o->accepted > 0;
			if (!(g->rate <= hold * (1 + 1e-9)))
				below = 0;
		}
		if (!all)
			continue;
		if (isnan(lowest) || g->rate < lowest)
			lowest = g->rate;
		if (below && (isnan(best) || g->rate > best))
			best = g->rate;
	}
	r->ref_rps = isnan(best) ? lowest : best;
}

/* Failed windows per implementation (from its rungs), and the run quality
 * line (run_quality.h) from the windows and host facts. */
static void rollup_quality(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (r->rungs[i].impl >= 0 && (size_t)r->rungs[i].impl < r->nimpls)
			r->impls[r->rungs[i].impl].failed += r->rungs[i].failed;
	run_quality_init(&r->quality);
	for (i = 0; i < r->nwindows; i++)
		run_quality_add(&r->quality, r->windows[i].done ? r->windows[i].status : NULL,
				r->windows[i].reasons);
	run_quality_cells(&r->quality, r->cells);
	for (i = 0; i < r->nhost; i++) {
		if (!strcmp(r->host[i].key, "loadavg_1m"))
			r->quality.load_start = run_quality_parse_load(r->host[i].value);
		else if (!strcmp(r->host[i].key, RUN_QUALITY_LOAD_END_KEY))
			r->quality.load_end = run_quality_parse_load(r->host[i].value);
	}
}

int report_rollup(struct report *r)
{
	size_t i, k;

	build_groups(r);
	for (i = 0; i < r->nimpls; i++)
		rollup_impl(r, (int)i);
	report_ratios(r, NULL);
	build_verdicts(r);
	rollup_quality(r);
	rollup_ref_rate(r);
	for (i = 0; i < r->nwindows; i++) {
		r->total += r->windows[i].done;
		r->accepted += r->windows[i].accepted;
		r->not_done += !r->windows[i].done;
	}
	/* The union of reasons over implementations, for the rejection chart. */
	for (i = 0; i < r->nimpls; i++)
		for (k = 0; k < r->impls[i].nreasons; k++) {
			const struct report_reason *src = &r->impls[i].reasons[k];
			struct report_reason *d;
			size_t j;

			for (j = 0; j < r->ngate_fails; j++)
				if (!strcmp(r->gate_fails[j].name, src->name))
					break;
			if (j == r->ngate_fails) {
				r->gate_fails = xrealloc(r->gate_fails,
							 (j + 1) * sizeof(*r->gate_fails));
				r->gate_fails[j].name = xstrdup(src->name);
				r->gate_fails[j].rejected = r->gate_fails[j].recorded = 0;
				r->gate_fails[j].failed = 0;
				r->ngate_fails++;
			}
			d = &r->gate_fails[j];
			d->rejected += src->rejected;
			d->failed += src->failed;
			d->recorded += src->recorded;
		}
	return 0;
}
