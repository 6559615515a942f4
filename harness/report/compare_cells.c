/*
 * compare_cells: the metric cells of one implementation (compare_cells.h):
 * the rates both sides measured, the windows of each cell, each cell's
 * shift and one-sided p-values, the correction over the implementation's
 * family (Holm), each cell's MDE and verdict. The rules are compare.h's.
 */
#include "report/compare.h"
#include "report/compare_cells.h"
#include "report/compare_pooled.h"
#include "base/hist.h"
#include "base/rate.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ windows */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int valid(const struct view_window *w)
{
	return w->valid;
}

/* Sorted distinct rates of impl's windows that pass keep (NULL: all). */
static size_t rates_of(const struct cmp_run *r, const char *impl,
		       int (*keep)(const struct view_window *), double **out)
{
	double *v = NULL;
	size_t n = 0, alloc = 0, i, k = 0;

	for (i = 0; i < r->nw; i++) {
		if (strcmp(r->w[i]->impl, impl) || (keep && !keep(r->w[i])))
			continue;
		XGROW(v, alloc, n + 1);
		v[n++] = r->w[i]->rate;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		if (!k || !rate_same(v[k - 1], v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

/* Valid and failed windows of impl at rate. */
static void counts(const struct cmp_run *r, const char *impl, double rate, size_t *nvalid,
		   size_t *nfailed)
{
	size_t i;

	*nvalid = *nfailed = 0;
	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) || !valid(w))
			continue;
		(*nvalid)++;
		*nfailed += w->failed;
	}
}

/* Blocks (stage, block) at rate where both impl and arm have a window
 * passing keep. */
static size_t block_pairs(const struct cmp_run *r, const char *impl, const char *arm,
			  double rate, int (*keep)(const struct view_window *))
{
	size_t i, j, n = 0;

	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) || !keep(w))
			continue;
		for (j = 0; j < r->nw; j++) {
			const struct view_window *x = r->w[j];
			if (!strcmp(x->impl, arm) && !strcmp(x->stage, w->stage) &&
			    x->block == w->block && rate_same(x->rate, rate) && keep(x)) {
				n++;
				break;
			}
		}
	}
	return n;
}

static int accepted(const struct view_window *w)
{
	return w->accepted;
}

static double win_cpu_us(const struct view_window *w)
{
	if (!isfinite(w->cpu_s) || w->completed <= 0)
		return NAN;
	return w->cpu_s * 1e6 / (double)w->completed;
}

/* The index of request `req` in r's spec, -1 when r has none of that name. */
static int req_index(const struct cmp_run *r, const char *req)
{
	size_t k;

	for (k = 0; req && k < r->nreqs; k++)
		if (!strcmp(r->reqs[k], req))
			return (int)k;
	return -1;
}

/* A window's value of a cell: CPU us/request (cpu), the SLO percentile of
 * request k's responses (k >= 0), or of the whole mix. */
static double win_value(const struct cmp_run *r, const struct view_window *w, int cpu, int k)
{
	if (k >= 0)
		return cmp_win_req_pslo(r, w, k);
	return cpu ? win_cpu_us(w) : w->pslo_ms;
}

/* ------------------------------------------------------------ cells */

/* Merged values over impl's accepted windows at rate: the SLO percentile
 * (ms) of the merged histogram, CPU us/request = sum cpu / sum completed. */
static void merged(const struct cmp_run *r, const char *impl, double rate, double pct,
		   const char *req, double *lat, double *cpu)
{
	struct hist h;
	double cpu_sum = 0;
	int64_t done = 0;
	size_t i, nh = 0, ncpu = 0;
	int k = req_index(r, req);

	hist_init(&h);
	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) || !accepted(w))
			continue;
		if (req) {
			const struct view_wreq *q = cmp_win_req(r, w, k);

			if (q) {
				hist_merge(&h, &q->h);
				nh++;
			}
		} else if (w->has_hist) {
			hist_merge(&h, &w->lat);
			nh++;
		}
		if (isfinite(w->cpu_s) && w->completed > 0) {
			cpu_sum += w->cpu_s;
			done += w->completed;
			ncpu++;
		}
	}
	*lat = nh && h.total ? hist_percentile_ms(&h, pct) : NAN;
	*cpu = ncpu && done > 0 ? cpu_sum * 1e6 / (double)done : NAN;
	hist_release(&h);
}

/* Per-window values of impl's accepted windows at rate (unpaired). */
static size_t values(const struct cmp_run *r, const char *impl, double rate, int cpu,
		     const char *req, double **out)
{
	double *v = NULL;
	size_t n = 0, alloc = 0, i;
	int k = req_index(r, req);

	*out = NULL;
	if (req && k < 0)
		return 0;
	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) || !accepted(w) ||
		    !isfinite(win_value(r, w, cpu, k)))
			continue;
		XGROW(v, alloc, n + 1);
		v[n++] = win_value(r, w, cpu, k);
	}
	*out = v;
	return n;
}

/* Pairs (new, base) of accepted windows in the same stage and block. */
static size_t pairs(const struct cmp_run *r, const char *impl, const char *base_arm,
		    double rate, int cpu, const char *req, double **a, double **b)
{
	size_t n = 0, alloc = 0, alloc2 = 0, i, j;
	int k = req_index(r, req);

	*a = *b = NULL;
	if (req && k < 0)
		return 0;
	for (i = 0; i < r->nw; i++) {
		const struct view_window *w = r->w[i];
		if (strcmp(w->impl, impl) || !rate_same(w->rate, rate) || !accepted(w))
			continue;
		for (j = 0; j < r->nw; j++) {
			const struct view_window *x = r->w[j];
			if (strcmp(x->impl, base_arm) || strcmp(x->stage, w->stage) ||
			    x->block != w->block || !rate_same(x->rate, rate) || !accepted(x))
				continue;
			if (isfinite(win_value(r, w, cpu, k)) && isfinite(win_value(r, x, cpu, k))) {
				XGROW(*a, alloc, n + 1);
				XGROW(*b, alloc2, n + 1);
				(*a)[n] = win_value(r, w, cpu, k);
				(*b)[n] = win_value(r, x, cpu, k);
				n++;
			}
			break;
		}
	}
	return n;
}

/*
 * A cell's verdict (compare.h) from its adjusted one-sided p-values: with
 * the correction none they are the raw ones, and p <= alpha is exactly the
 * interval at level 1 - 2 alpha (the sequence: 1 - alpha) excluding 0.
 */
static enum cmp_verdict verdict_of(const struct cmp_metric *m, double alpha)
{
	double marg = m->margin, d = m->ci.mean;

	if (!isfinite(m->base) || !isfinite(m->new_))
		return CMP_NA;
	if (!isfinite(m->ci.lo) || !isfinite(m->ci.hi))
		return CMP_INCONCLUSIVE;
	if (m->padj_up <= alpha && d > marg)
		return CMP_REGRESSION;
	if (m->padj_down <= alpha && d < -marg)
		return CMP_IMPROVEMENT;
	/* Equivalence: the whole interval inside the margin. A small
	 * estimate with a wide interval proves nothing: inconclusive. */
	if (m->ci.lo > -marg && m->ci.hi < marg)
		return CMP_NO_CHANGE;
	return CMP_INCONCLUSIVE;
}

/* The shift, its interval and one-sided p-values by the cell's method. */
static void shift(const struct compare *c, int paired, struct cmp_metric *m)
{
	const double *a = m->xa, *b = m->xb;
	double t_star = c->new_.cs_t_star;

	m->method = paired ? c->method_paired : c->method_unpaired;
	m->level = m->method == STAT_CS ? 1 - c->alpha : 1 - 2 * c->alpha;
	if (paired && m->method == STAT_CS) {
		stat_cs_paired(a, b, m->nxa, c->alpha, t_star, &m->ci);
		m->p_up = stat_cs_p(a, b, m->nxa, c->alpha, t_star);
		m->p_down = stat_cs_p(b, a, m->nxa, c->alpha, t_star);
	} else if (paired && m->method == STAT_T) {
		stat_paired_diff(a, b, m->nxa, m->level, 0, &m->ci);
		m->p_up = stat_t_paired_p(a, b, m->nxa);
		m->p_down = stat_t_paired_p(b, a, m->nxa);
	} else if (paired) {
		stat_hl_paired(a, b, m->nxa, m->level, &m->ci);
		m->p_up = stat_signed_rank_p(a, b, m->nxa);
		m->p_down = stat_signed_rank_p(b, a, m->nxa);
	} else if (m->method == STAT_T) {
		stat_welch_diff(a, m->nxa, b, m->nxb, m->level, 0, &m->ci);
		m->p_up = stat_welch_p(a, m->nxa, b, m->nxb);
		m->p_down = stat_welch_p(b, m->nxb, a, m->nxa);
	} else {
		stat_hl_unpaired(a, m->nxa, b, m->nxb, m->level, &m->ci);
		m->p_up = stat_mann_whitney_p(a, m->nxa, b, m->nxb);
		m->p_down = stat_mann_whitney_p(b, m->nxb, a, m->nxa);
	}
	/* No interval at the level: not tested (too few pairs). */
	if (!isfinite(m->ci.lo))
		m->p_up = m->p_down = NAN;
}

/* One metric at one rate: merged values, the per-window values (kept in m
 * until judge_cells), the shift and its p-values. */
static void metric(const struct compare *c, const struct cmp_run *bs, const char *barm,
		   const char *impl, int paired, double rate, int cpu, const char *req,
		   struct cmp_metric *m)
{
	double bl, bc, nl, nc;

	merged(bs, barm, rate, c->new_.slo_pct, req, &bl, &bc);
	merged(&c->new_, impl, rate, c->new_.slo_pct, req, &nl, &nc);
	m->base = cpu ? bc : bl;
	m->new_ = cpu ? nc : nl;
	m->rel_pct = isfinite(m->base) && m->base != 0 ? (m->new_ - m->base) / m->base * 100 : NAN;
	m->margin = cmp_margin_of(c->margin_pct, cpu ? c->margin_cpu_us : c->margin_ms, m->base);
	m->p_up = m->p_down = m->padj_up = m->padj_down = m->mde = m->mde_pct = NAN;
	if (paired) {
		m->nxa = m->nxb = pairs(&c->new_, impl, barm, rate, cpu, req, &m->xa, &m->xb);
		m->nbase = m->nnew = m->nxa;
	} else {
		m->nnew = m->nxa = values(&c->new_, impl, rate, cpu, req, &m->xa);
		m->nbase = m->nxb = values(bs, barm, rate, cpu, req, &m->xb);
	}
	shift(c, paired, m);
}

int cmp_req_judged(const struct compare *c, size_t k)
{
	return c->new_.req_slo_ms[k] > 0;
}

/* The judged cells of one implementation, in rate order (p99, cpu, then
 * the requests with their own slo_ms). */
static size_t impl_cells(const struct compare *c, struct cmp_impl *ci, unsigned metrics,
			 struct cmp_metric **out)
{
	size_t i, k, n = 0;

	for (i = 0; i < ci->nrates; i++) {
		if (!ci->rates[i].has_cells)
			continue;
		if (metrics & CMP_P99)
			out[n++] = &ci->rates[i].p99;
		if (metrics & CMP_CPU_PER_REQUEST)
			out[n++] = &ci->rates[i].cpu;
		for (k = 0; k < ci->rates[i].nreq; k++)
			if (cmp_req_judged(c, k))
				out[n++] = &ci->rates[i].req[k];
	}
	return n;
}

/* Advisory request cells: a verdict at the unadjusted level, never in
 * the tally. */
static void advisory_cells(const struct compare *c, struct cmp_impl *ci)
{
	size_t i, k;

	for (i = 0; i < ci->nrates; i++)
		for (k = 0; ci->rates[i].has_cells && k < ci->rates[i].nreq; k++) {
			struct cmp_metric *m = &ci->rates[i].req[k];

			if (cmp_req_judged(c, k))
				continue;
			m->padj_up = m->p_up;
			m->padj_down = m->p_down;
			m->family = 1;
			m->verdict = verdict_of(m, c->alpha);
			free(m->xa);
			free(m->xb);
			m->xa = m->xb = NULL;
		}
}

/*
 * The family's adjusted p-values (up and down in place) and each
 * hypothesis's first-step level into lvl: weighted Holm with weights w
 * (compare.correction holm), or none (raw, alpha). Returns the tested.
 */
static size_t adjust(const struct compare *c, double *up, double *down, const double *w,
		     size_t n, double *lvl)
{
	size_t i, fam = 0;
	double wt = 0;

	for (i = 0; i < n; i++)
		if (!isnan(up[i])) {
			fam++;
			wt += w[i];
		}
	for (i = 0; i < n; i++)
		lvl[i] = c->correction == CMP_CORRECT_HOLM && wt > 0 ? c->alpha * w[i] / wt
								      : c->alpha;
	if (c->correction == CMP_CORRECT_HOLM) {
		stat_holm_weighted(up, w, n, up);
		stat_holm_weighted(down, w, n, down);
	}
	return fam;
}

/* A judged cell, once adjusted: its MDE at its first-step level, verdict,
 * tally; its per-window values freed. */
static void judge_cell(const struct compare *c, struct cmp_impl *ci, struct cmp_metric *m,
		       double level, int tally[6])
{
	if (m->nxa >= 2 && (ci->paired || m->nxb >= 2)) {
		m->mde = stat_mde(m->method, ci->paired, m->xa, m->nxa, m->xb, m->nxb, level,
				  CMP_MDE_POWER, c->new_.cs_t_star);
		m->mde_pct = isfinite(m->base) && m->base != 0 ? m->mde / fabs(m->base) * 100 : NAN;
	}
	m->verdict = verdict_of(m, c->alpha);
	tally[m->verdict]++;
	if (m->verdict == CMP_INCONCLUSIVE && isfinite(m->base) && m->ci.mean > m->margin)
		ci->suspects++;
	free(m->xa);
	free(m->xb);
	m->xa = m->xb = NULL;
}

/*
 * Multiplicity: one family per direction over the implementation's pooled
 * metrics and its rate x metric cells (docs/STATISTICS.md, "One family"):
 * weighted Holm, the pooled tests sharing 1 - CMP_CELL_SHARE of alpha and
 * the cells CMP_CELL_SHARE (all of it when nothing is pooled: plain
 * Holm); then each one's MDE at its first-step level and its verdict.
 */
static void judge_cells(const struct compare *c, struct cmp_impl *ci, int tally[6])
{
	struct cmp_metric **cell = xcalloc((2 + c->new_.nreqs) * ci->nrates + 1, sizeof(*cell));
	size_t n, np, i, fam, npt = 0, nct = 0;
	double *up, *down, *w, *lvl;

	n = impl_cells(c, ci, c->metrics, cell);
	cmp_pooled_build(c, ci);
	np = ci->npooled;
	up = xcalloc(np + n + 1, sizeof(*up));
	down = xcalloc(np + n + 1, sizeof(*down));
	w = xcalloc(np + n + 1, sizeof(*w));
	lvl = xcalloc(np + n + 1, sizeof(*lvl));
	for (i = 0; i < np + n; i++) {
		up[i] = i < np ? ci->pooled[i].p_up : cell[i - np]->p_up;
		down[i] = i < np ? ci->pooled[i].p_down : cell[i - np]->p_down;
		if (!isnan(up[i]))
			*(i < np ? &npt : &nct) += 1;
	}
	for (i = 0; i < np + n; i++)
		w[i] = i < np ? (1 - CMP_CELL_SHARE) / (double)(npt ? npt : 1)
			      : (npt ? CMP_CELL_SHARE : 1.0) / (double)(nct ? nct : 1);
	fam = adjust(c, up, down, w, np + n, lvl);
	ci->family = fam;
	ci->ncells = nct;
	for (i = 0; i < np; i++) {
		ci->pooled[i].padj_up = up[i];
		ci->pooled[i].padj_down = down[i];
		ci->pooled[i].weight = w[i];
		cmp_pooled_judge(c, &ci->pooled[i], lvl[i]);
	}
	for (i = 0; i < n; i++) {
		cell[i]->padj_up = up[np + i];
		cell[i]->padj_down = down[np + i];
		cell[i]->family = fam;
		judge_cell(c, ci, cell[i], lvl[np + i], tally);
	}
	free(up);
	free(down);
	free(w);
	free(lvl);
	free(cell);
}

void cmp_impl_rates(struct compare *c, struct cmp_impl *ci, const struct cmp_run *bs,
		    const char *barm, int tally[6])
{
	double *rb = NULL, *rn = NULL;
	size_t nb, nn, i, j, k, alloc = 0;

	nb = rates_of(bs, barm, valid, &rb);
	nn = rates_of(&c->new_, ci->name, valid, &rn);
	for (i = 0; i < nn; i++) {
		struct cmp_rate *cr;
		for (j = 0; j < nb && !rate_same(rb[j], rn[i]); j++)
			;
		if (j == nb)
			continue;
		XGROW(ci->rates, alloc, ci->nrates + 1);
		cr = &ci->rates[ci->nrates++];
		memset(cr, 0, sizeof(*cr));
		cr->rate = rn[i];
		cr->p99.verdict = cr->cpu.verdict = CMP_NA;
		counts(bs, barm, cr->rate, &cr->vbase, &cr->fbase);
		counts(&c->new_, ci->name, cr->rate, &cr->vnew, &cr->fnew);
		cr->vpairs = ci->paired ? block_pairs(&c->new_, ci->name, barm, cr->rate, valid)
					: (cr->vbase < cr->vnew ? cr->vbase : cr->vnew);
		if (cr->vpairs > ci->max_vpairs)
			ci->max_vpairs = cr->vpairs;
		cr->outcome_regression = cr->vnew >= c->min_pairs && cr->vbase >= c->min_pairs &&
					 2 * cr->fnew > cr->vnew && cr->fbase == 0;
		cr->has_cells = cr->vnew > cr->fnew && cr->vbase > cr->fbase;
		if (!cr->has_cells)
			continue;
		if (c->metrics & CMP_P99)
			metric(c, bs, barm, ci->name, ci->paired, cr->rate, 0, NULL, &cr->p99);
		if (c->metrics & CMP_CPU_PER_REQUEST)
			metric(c, bs, barm, ci->name, ci->paired, cr->rate, 1, NULL, &cr->cpu);
		/* Per request of NEW's spec: every one shown, those with their
		 * own promise judged with the other cells (compare.h). */
		cr->nreq = c->new_.nreqs;
		cr->req = xcalloc(cr->nreq + 1, sizeof(*cr->req));
		for (k = 0; k < cr->nreq; k++)
			metric(c, bs, barm, ci->name, ci->paired, cr->rate, 0, c->new_.reqs[k],
			       &cr->req[k]);
	}
	free(rb);
	free(rn);
	judge_cells(c, ci, tally);
	advisory_cells(c, ci);
}
