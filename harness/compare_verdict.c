/*
 * compare_verdict: from two loaded runs to a verdict per implementation and
 * an exit code that fails closed (the rules are in compare.h).
 */
#include "compare.h"
#include "hist.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_NO_CHANGE: return "no change";
	case CMP_IMPROVEMENT: return "improvement";
	case CMP_REGRESSION: return "regression";
	case CMP_INCONCLUSIVE: return "inconclusive";
	case CMP_NO_REGRESSION: return "no regression";
	case CMP_NA: break;
	}
	return "n/a";
}

/* ------------------------------------------------------------ helpers */

static int impl_index(const struct cmp_run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (!strcmp(r->impls[i], name))
			return (int)i;
	return -1;
}

static int same_rate(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int valid(const struct cmp_win *w)
{
	return w->status != CMP_W_REJECTED;
}

static int is_control(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, "@base");
}

/* Sorted distinct rates of impl's windows that pass keep (NULL: all). */
static size_t rates_of(const struct cmp_run *r, const char *impl,
		       int (*keep)(const struct cmp_win *), double **out)
{
	double *v = NULL;
	size_t n = 0, alloc = 0, i, k = 0;

	for (i = 0; i < r->nw; i++) {
		if (strcmp(r->w[i].impl, impl) || (keep && !keep(&r->w[i])))
			continue;
		XGROW(v, alloc, n + 1);
		v[n++] = r->w[i].rate;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		if (!k || !same_rate(v[k - 1], v[i]))
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
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) || !valid(w))
			continue;
		(*nvalid)++;
		*nfailed += w->status == CMP_W_FAILED;
	}
}

/* Blocks (stage, block) at rate where both impl and arm have a window
 * passing keep. */
static size_t block_pairs(const struct cmp_run *r, const char *impl, const char *arm,
			  double rate, int (*keep)(const struct cmp_win *))
{
	size_t i, j, n = 0;

	for (i = 0; i < r->nw; i++) {
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) || !keep(w))
			continue;
		for (j = 0; j < r->nw; j++) {
			const struct cmp_win *x = &r->w[j];
			if (!strcmp(x->impl, arm) && !strcmp(x->stage, w->stage) &&
			    x->block == w->block && same_rate(x->rate, rate) && keep(x)) {
				n++;
				break;
			}
		}
	}
	return n;
}

static int accepted(const struct cmp_win *w)
{
	return w->status == CMP_W_ACCEPTED;
}

static double win_cpu_us(const struct cmp_win *w)
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
static double win_value(const struct cmp_win *w, int cpu, int k)
{
	if (k >= 0)
		return w->req_pslo ? w->req_pslo[k] : NAN;
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
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) || !accepted(w))
			continue;
		if (req) {
			if (k >= 0 && w->req_hist && w->req_hist[k]) {
				hist_merge(&h, w->req_hist[k]);
				nh++;
			}
		} else if (w->has_hist) {
			hist_merge(&h, w->hist);
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
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) || !accepted(w) ||
		    !isfinite(win_value(w, cpu, k)))
			continue;
		XGROW(v, alloc, n + 1);
		v[n++] = win_value(w, cpu, k);
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
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) || !accepted(w))
			continue;
		for (j = 0; j < r->nw; j++) {
			const struct cmp_win *x = &r->w[j];
			if (strcmp(x->impl, base_arm) || strcmp(x->stage, w->stage) ||
			    x->block != w->block || !same_rate(x->rate, rate) || !accepted(x))
				continue;
			if (isfinite(win_value(w, cpu, k)) && isfinite(win_value(x, cpu, k))) {
				XGROW(*a, alloc, n + 1);
				XGROW(*b, alloc2, n + 1);
				(*a)[n] = win_value(w, cpu, k);
				(*b)[n] = win_value(x, cpu, k);
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
static enum cmp_verdict verdict_of(const struct cmp_metric *m, double margin_pct, double alpha)
{
	double marg, d = m->ci.mean;

	if (!isfinite(m->base) || !isfinite(m->new_))
		return CMP_NA;
	if (!isfinite(m->ci.lo) || !isfinite(m->ci.hi))
		return CMP_INCONCLUSIVE;
	marg = fabs(m->base) * margin_pct / 100.0;
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

/* A request with its own promise: its cells are judged (compare.h). */
static int req_judged(const struct compare *c, size_t k)
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
			if (req_judged(c, k))
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

			if (req_judged(c, k))
				continue;
			m->padj_up = m->p_up;
			m->padj_down = m->p_down;
			m->family = 1;
			m->verdict = verdict_of(m, c->margin_pct, c->alpha);
			free(m->xa);
			free(m->xb);
			m->xa = m->xb = NULL;
		}
}

/*
 * Multiplicity across the implementation's rate x metric cells (Holm by
 * default: each direction is its own family of one-sided tests), then
 * each cell's MDE at the family's strictest level and its verdict.
 */
static void judge_cells(const struct compare *c, struct cmp_impl *ci, int tally[6])
{
	struct cmp_metric **cell = xcalloc((2 + c->new_.nreqs) * ci->nrates + 1, sizeof(*cell));
	size_t n = impl_cells(c, ci, c->metrics, cell), i, fam;
	double *up = xcalloc(n + 1, sizeof(*up)), *down = xcalloc(n + 1, sizeof(*down));

	for (i = 0; i < n; i++) {
		up[i] = cell[i]->p_up;
		down[i] = cell[i]->p_down;
	}
	if (c->correction == CMP_CORRECT_HOLM) {
		fam = stat_holm(up, n, up);
		stat_holm(down, n, down);
	} else {
		for (i = fam = 0; i < n; i++)
			fam += !isnan(up[i]);
	}
	ci->ncells = fam;
	for (i = 0; i < n; i++) {
		struct cmp_metric *m = cell[i];
		double a = c->correction == CMP_CORRECT_HOLM && fam ? c->alpha / (double)fam
								    : c->alpha;
		m->padj_up = up[i];
		m->padj_down = down[i];
		m->family = fam;
		if (m->nxa >= 2 && (ci->paired || m->nxb >= 2)) {
			m->mde = stat_mde(m->method, ci->paired, m->xa, m->nxa, m->xb, m->nxb, a,
					  CMP_MDE_POWER, c->new_.cs_t_star);
			m->mde_pct = isfinite(m->base) && m->base != 0 ? m->mde / fabs(m->base) * 100
								       : NAN;
		}
		m->verdict = verdict_of(m, c->margin_pct, c->alpha);
		tally[m->verdict]++;
		if (m->verdict == CMP_INCONCLUSIVE && isfinite(m->base) &&
		    m->ci.mean > fabs(m->base) * c->margin_pct / 100.0)
			ci->suspects++;
		free(m->xa);
		free(m->xb);
		m->xa = m->xb = NULL;
	}
	free(up);
	free(down);
	free(cell);
}

/* ------------------------------------------------------------ knee */

/* The valid windows of the rung at rate in a knee's table (0: none). */
static size_t rung_windows(const struct knee_result *k, double rate)
{
	size_t i;

	for (i = 0; i < k->nrungs; i++)
		if (same_rate(k->rungs[i].rate, rate))
			return k->rungs[i].nwin;
	return 0;
}

/* The highest rung where base's knee holds (NAN: none): its floor, or the
 * rung below its crossing. */
static double held_rung(const struct knee_result *k)
{
	if (k->kind == KNEE_FLOOR)
		return k->highest_rung_rps;
	if (k->crossed && !k->at_first_rung && k->lo < k->nrungs)
		return k->rungs[k->lo].rate;
	return NAN;
}

/* compare.h: NEW crosses at a rung where BASE holds (min_pairs valid
 * windows on both sides there), or NEW's point interval lies wholly below
 * BASE's. Writes the reason to why. */
static int knee_regression(const struct compare *c, const struct cmp_impl *ci,
			   struct sbuf *why)
{
	const struct knee_result *n = ci->knew, *b = ci->kbase;
	double cross, held;

	if (!n || !b || !n->crossed || b->kind == KNEE_NONE || n->hi >= n->nrungs)
		return 0;
	/* A crossing one stalled window makes (a rung's mean percentile
	 * pulled over the SLO) is not a regression: at least 1 - alpha of
	 * NEW's bootstrap resamples must cross too. */
	if (!n->has_ci || !n->nboot || (double)n->ncrossed < (1 - c->alpha) * (double)n->nboot)
		return 0;
	cross = n->rungs[n->hi].rate;
	held = held_rung(b);
	if (isfinite(held) && (cross < held || same_rate(cross, held)) &&
	    rung_windows(n, cross) >= c->min_pairs && rung_windows(b, cross) >= c->min_pairs) {
		sbuf_addf(why, "the knee: new crosses the SLO at %g req/s, where base holds "
			  "(%s)", cross, n->kind == KNEE_BRACKET ? n->reason : "latency");
		return 1;
	}
	if (n->kind == KNEE_POINT && b->kind == KNEE_POINT && n->has_ci && b->has_ci &&
	    n->inferential && b->inferential && n->ci_hi < b->ci_lo) {
		sbuf_addf(why, "the knee: new [%.0f, %.0f] req/s lies below base [%.0f, %.0f]",
			  n->ci_lo, n->ci_hi, b->ci_lo, b->ci_hi);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ one implementation */

/* Distinct failing gates of impl's failed windows at rate, into o. */
static void failed_gates(const struct cmp_run *r, const char *impl, double rate,
			 struct sbuf *o)
{
	size_t i, start = o->len;

	for (i = 0; i < r->nw; i++) {
		const struct cmp_win *w = &r->w[i];
		const char *g, *e;
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate) ||
		    w->status != CMP_W_FAILED || !w->reasons)
			continue;
		for (g = w->reasons; *g; g = *e ? e + 1 : e) {
			struct sbuf one = SBUF_INIT;
			e = strchrnul(g, ',');
			sbuf_add(&one, g, (size_t)(e - g));
			if (one.len && !strstr(o->buf + start, one.buf))
				sbuf_addf(o, "%s%s", o->len > start ? ", " : "", one.buf);
			sbuf_release(&one);
		}
	}
	if (o->len == start)
		sbuf_adds(o, "outcome gates");
}

/* The rates, their counts and cells. Returns the cell verdict tallies. */
static void impl_rates(struct compare *c, struct cmp_impl *ci, const struct cmp_run *bs,
		       const char *barm, int tally[6])
{
	double *rb = NULL, *rn = NULL;
	size_t nb, nn, i, j, k, alloc = 0;

	nb = rates_of(bs, barm, valid, &rb);
	nn = rates_of(&c->new_, ci->name, valid, &rn);
	for (i = 0; i < nn; i++) {
		struct cmp_rate *cr;
		for (j = 0; j < nb && !same_rate(rb[j], rn[i]); j++)
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

static int run_finished(const struct cmp_run *r)
{
	return !strcmp(r->status, "finished");
}

static void run_state(struct sbuf *o, const struct cmp_run *r)
{
	sbuf_addf(o, "run %s %s", r->id, *r->status ? r->status : "(no status)");
	if (r->failure)
		sbuf_addf(o, " (%s)", r->failure);
}

/* Each unconfirmed rise: metric, shift, rate, p raw -> adjusted, MDE. */
static void suspects_why(const struct compare *c, const struct cmp_impl *ci, struct sbuf *why)
{
	size_t i;
	int j, n = 0;

	for (i = 0; i < ci->nrates; i++)
		for (j = 0; j < 2; j++) {
			const struct cmp_metric *m = j ? &ci->rates[i].cpu : &ci->rates[i].p99;
			if (!ci->rates[i].has_cells || m->verdict != CMP_INCONCLUSIVE ||
			    !isfinite(m->base) ||
			    !(m->ci.mean > fabs(m->base) * c->margin_pct / 100.0))
				continue;
			sbuf_addf(why, "%s%s %+.1f%% at %g req/s beyond the %g%% margin but not "
				  "confirmed (p %.2g", n++ ? "; " : "",
				  j ? "cpu_per_request" : "latency", m->rel_pct, ci->rates[i].rate,
				  c->margin_pct, m->p_up);
			if (c->correction == CMP_CORRECT_HOLM)
				sbuf_addf(why, ", %.2g after Holm over %zu cells", m->padj_up,
					  m->family);
			if (isinf(m->mde))
				sbuf_adds(why, "; no shift detectable with this n");
			else if (isfinite(m->mde_pct))
				sbuf_addf(why, "; MDE %.1f%%", m->mde_pct);
			sbuf_adds(why, ")");
		}
}

/* The verdict and its one-line why, in compare.h's order. */
static void impl_verdict(struct compare *c, struct cmp_impl *ci, const int tally[6],
			 struct sbuf *why)
{
	const struct cmp_run *nw = &c->new_;
	size_t i;

	if (!strcmp(nw->status, "failed") && nw->failure_kind && nw->failure_impl &&
	    !strcmp(nw->failure_impl, ci->name) &&
	    (!strcmp(nw->failure_kind, "build") || !strcmp(nw->failure_kind, "start") ||
	     !strcmp(nw->failure_kind, "limit") || !strcmp(nw->failure_kind, "preflight"))) {
		ci->verdict = CMP_REGRESSION;
		sbuf_addf(why, "the new commit %s (run %s failed; see %s)",
			  !strcmp(nw->failure_kind, "build") ? "failed to build"
			  : !strcmp(nw->failure_kind, "start") ? "never came up healthy"
			  : !strcmp(nw->failure_kind, "limit") ? "hit its sandbox limits"
			  : "answered its pre-flight wrong",
			  nw->id, !strcmp(nw->failure_kind, "preflight")
			  ? "harness status, or runs.preflight" : "its logs/");
		return;
	}
	if (!run_finished(nw) || !run_finished(&c->base)) {
		ci->verdict = CMP_INCONCLUSIVE;
		run_state(why, !run_finished(nw) ? nw : &c->base);
		if (!run_finished(nw) && !run_finished(&c->base)) {
			sbuf_adds(why, "; ");
			run_state(why, &c->base);
		}
		return;
	}
	for (i = 0; i < ci->nrates; i++) {
		const struct cmp_rate *r = &ci->rates[i];
		if (!r->outcome_regression)
			continue;
		if (ci->verdict != CMP_REGRESSION)
			ci->verdict = CMP_REGRESSION;
		else
			sbuf_adds(why, "; ");
		sbuf_addf(why, "at %g req/s new failed %zu of %zu valid windows (", r->rate, r->fnew,
			  r->vnew);
		failed_gates(nw, ci->name, r->rate, why);
		sbuf_addf(why, ") where base held (all %zu valid windows accepted)", r->vbase);
	}
	{
		struct sbuf k = SBUF_INIT;
		if (knee_regression(c, ci, &k)) {
			sbuf_addf(why, "%s%s", ci->verdict == CMP_REGRESSION ? "; " : "", k.buf);
			ci->verdict = CMP_REGRESSION;
		}
		sbuf_release(&k);
	}
	if (ci->verdict != CMP_REGRESSION && ci->max_vpairs < c->min_pairs) {
		ci->verdict = CMP_INCONCLUSIVE;
		sbuf_addf(why, "not enough valid evidence: at most %zu valid window pairs at any "
			  "rate (compare.min_pairs %zu)", ci->max_vpairs, c->min_pairs);
		return;
	}
	for (i = 0; i < ci->nrates; i++) {
		const struct cmp_rate *r = &ci->rates[i];
		int j;
		for (j = 0; j < 2; j++) {
			const struct cmp_metric *m = j ? &r->cpu : &r->p99;
			if (m->verdict == CMP_REGRESSION)
				sbuf_addf(why, "%s%s +%.1f%% at %g req/s", why->len ? "; " : "",
					  j ? "cpu_per_request" : "latency", m->rel_pct, r->rate);
		}
		for (j = 0; j < (int)r->nreq; j++)
			if (r->req[j].verdict == CMP_REGRESSION && req_judged(c, (size_t)j))
				sbuf_addf(why, "%srequest %s's latency +%.1f%% at %g req/s",
					  why->len ? "; " : "", c->new_.reqs[j], r->req[j].rel_pct,
					  r->rate);
	}
	if (ci->verdict == CMP_REGRESSION || tally[CMP_REGRESSION]) {
		ci->verdict = CMP_REGRESSION;
	} else if (ci->suspects) {
		/* A rise beyond the margin the test could not confirm (too few
		 * windows after the correction) is no pass: fail closed. */
		ci->verdict = CMP_INCONCLUSIVE;
		suspects_why(c, ci, why);
		return;
	} else if (!tally[CMP_IMPROVEMENT] && !tally[CMP_NO_CHANGE]) {
		/* Pairs enough, but no interval decided anything: "no
		 * regression" would be a guess. */
		ci->verdict = CMP_INCONCLUSIVE;
		sbuf_addf(why, "no metric decided at any of %zu rates (%d undecided cells: "
			  "intervals wider than the margin, or too few accepted pairs for the "
			  "level); %zu valid pairs at best", ci->nrates, tally[CMP_INCONCLUSIVE],
			  ci->max_vpairs);
		return;
	} else if (tally[CMP_IMPROVEMENT])
		ci->verdict = CMP_IMPROVEMENT;
	else if (tally[CMP_INCONCLUSIVE] || !tally[CMP_NO_CHANGE])
		ci->verdict = CMP_NO_REGRESSION;
	else
		ci->verdict = CMP_NO_CHANGE;
	if (ci->verdict != CMP_REGRESSION)
		sbuf_addf(why, "%d improved, %d equivalent, %d undecided cells over %zu rates; "
			  "%zu valid pairs at best", tally[CMP_IMPROVEMENT], tally[CMP_NO_CHANGE],
			  tally[CMP_INCONCLUSIVE], ci->nrates, ci->max_vpairs);
}

static void impl_compare(struct compare *c, struct cmp_impl *ci, const char *name)
{
	const struct cmp_run *bs = &c->base;
	struct sbuf arm = SBUF_INIT, why = SBUF_INIT;
	int tally[6] = { 0 };
	int bi = impl_index(&c->base, name), ni = impl_index(&c->new_, name);

	ci->name = xstrdup(name);
	ci->base_commit = bi >= 0 ? c->base.commits[bi] : NULL;
	ci->new_commit = ni >= 0 ? c->new_.commits[ni] : NULL;
	ci->new_ref = ni >= 0 ? c->new_.refs[ni] : NULL;
	sbuf_addf(&arm, "%s@base", name);
	if (ci->paired) {
		int ai = impl_index(&c->new_, arm.buf);
		bs = &c->new_;
		if (ai >= 0 && c->new_.commits[ai])
			ci->base_commit = c->new_.commits[ai];
	} else {
		sbuf_reset(&arm);
		sbuf_adds(&arm, name);
	}
	impl_rates(c, ci, bs, arm.buf, tally);
	{
		int kb = impl_index(bs, arm.buf);
		ci->kbase = kb >= 0 && bs->knees ? &bs->knees[kb] : NULL;
		ci->knew = ni >= 0 && c->new_.knees ? &c->new_.knees[ni] : NULL;
	}
	impl_verdict(c, ci, tally, &why);
	ci->why = sbuf_detach(&why, NULL);
	sbuf_release(&arm);
}

/* ------------------------------------------------------------ the runs */

static int commit_changed(const struct compare *c, const char *name)
{
	int bi = impl_index(&c->base, name), ni = impl_index(&c->new_, name);

	if (bi < 0 || ni < 0 || !c->base.commits[bi] || !c->new_.commits[ni])
		return 1;  /* unknown: treat as changed */
	return strcmp(c->base.commits[bi], c->new_.commits[ni]) != 0;
}

static int same_run(const struct cmp_run *a, const struct cmp_run *b)
{
	return !strcmp(a->id, b->id) && !strcmp(a->dir, b->dir);
}

int compare_runs(struct compare *c, struct cmp_run *base, struct cmp_run *new_,
		 const struct compare_opts *opts)
{
	const char *only = opts ? opts->only : NULL;
	struct sbuf arm = SBUF_INIT;
	size_t i, alloc = 0;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->base = *base;
	c->new_ = *new_;
	memset(base, 0, sizeof(*base));
	memset(new_, 0, sizeof(*new_));
	c->margin_pct = c->new_.margin_pct;
	c->alpha = c->new_.alpha;
	c->min_pairs = c->new_.min_pairs;
	c->metrics = c->new_.metrics;
	{
		int iv = opts && opts->interval >= 0 ? opts->interval : c->new_.interval;

		c->correction = opts && opts->correction >= 0 ? opts->correction
							      : c->new_.correction;
		c->method_unpaired = iv == CMP_INTERVAL_T ? STAT_T : STAT_HL;
		/* A run that stopped its confirm by looking at its intervals is
		 * judged by the sequence it stopped by (valid at any stopping
		 * time); an interval forced on the command line wins. */
		if (iv == CMP_INTERVAL_CS ||
		    (c->new_.sequential && !(opts && opts->interval >= 0)))
			c->method_paired = STAT_CS;
		else
			c->method_paired = c->method_unpaired;
	}
	c->same_spec = !strcmp(c->base.spec_hash, c->new_.spec_hash);
	c->same_run = same_run(&c->base, &c->new_);
	c->version_diffs = cmp_version_diffs(&c->base, &c->new_);
	if (only && (impl_index(&c->base, only) < 0 || impl_index(&c->new_, only) < 0)) {
		error("--impl %s: not an implementation of both %s and %s", only, c->base.id,
		      c->new_.id);
		goto out;
	}
	for (i = 0; i < c->new_.nimpls; i++) {
		const char *name = c->new_.impls[i];
		struct cmp_impl *ci;
		int paired;

		if (is_control(name) || impl_index(&c->base, name) < 0 || (only && strcmp(only, name)))
			continue;
		sbuf_reset(&arm);
		sbuf_addf(&arm, "%s@base", name);
		paired = impl_index(&c->new_, arm.buf) >= 0;
		if (c->same_run && !paired)
			continue;  /* a run against itself: nothing to learn */
		XGROW(c->impls, alloc, c->nimpls + 1);
		ci = &c->impls[c->nimpls++];
		memset(ci, 0, sizeof(*ci));
		ci->paired = paired;
		ci->judged = only ? 1 : paired || (opts && opts->judge_unpaired &&
						   commit_changed(c, name));
		impl_compare(c, ci, name);
		if (!ci->judged)
			continue;
		c->judged++;
		c->regressions += ci->verdict == CMP_REGRESSION;
		c->inconclusive += ci->verdict == CMP_INCONCLUSIVE;
	}
	if (!c->nimpls) {
		if (c->same_run)
			error("compare: BASE and NEW are the same run (%s) and it has no "
			      "<impl>@base arm: nothing to compare", c->new_.id);
		else
			error("%s and %s have no implementation in common", c->base.id, c->new_.id);
		goto out;
	}
	c->exit_code = c->regressions ? 1 : (c->inconclusive || !c->judged) ? 3 : 0;
	ret = 0;
out:
	sbuf_release(&arm);
	return ret;
}

void compare_release(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nimpls; i++) {
		for (size_t j = 0; j < c->impls[i].nrates; j++) {
			for (size_t k = 0; k < c->impls[i].rates[j].nreq; k++) {
				free(c->impls[i].rates[j].req[k].xa);
				free(c->impls[i].rates[j].req[k].xb);
			}
			free(c->impls[i].rates[j].req);
		}
		free(c->impls[i].name);
		free(c->impls[i].rates);
		free(c->impls[i].why);
	}
	free(c->impls);
	free(c->version_diffs);
	cmp_run_release(&c->base);
	cmp_run_release(&c->new_);
	memset(c, 0, sizeof(*c));
}
