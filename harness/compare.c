/*
 * compare: load two runs and compare them (see compare.h for the rules).
 */
#include "compare.h"
#include "hist.h"
#include "spec.h"
#include "store.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CMP_NBOOT 2000

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_NO_CHANGE: return "no change";
	case CMP_IMPROVEMENT: return "improvement";
	case CMP_REGRESSION: return "regression";
	case CMP_INCONCLUSIVE: return "inconclusive";
	case CMP_NA: break;
	}
	return "n/a";
}

/* ------------------------------------------------------------ loading */

static void rule_from_spec(struct cmp_run *r, const char *text, size_t len,
			   const char *spec_path)
{
	struct spec *s;

	/* Defaults (specs/README.md): used when the stored spec cannot be
	 * parsed by this binary. */
	r->slo_pct = 99;
	r->slo_ms = NAN;
	r->min_reps = 3;
	r->margin_pct = 5;
	r->alpha = 0.05;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	s = spec_parse(text, len, spec_path && *spec_path ? spec_path : "spec.yaml", r->dir);
	if (!s) {
		warning("run %s: its stored spec does not parse; using the default compare rule "
			"and no knee", r->id);
		return;
	}
	r->spec_ok = 1;
	r->slo_pct = s->slo.percentile;
	r->slo_ms = s->slo.threshold_ms;
	r->min_reps = (size_t)(s->confirm.present ? s->confirm.reps : s->ladder.reps);
	r->margin_pct = s->compare.margin_pct;
	r->alpha = s->compare.alpha;
	r->metrics = s->compare.metrics;
	spec_free(s);
}

static int load_run_row(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	int ret = -1;

	s = store_prepare(st, "SELECT spec_name, spec_text, spec_hash, seed, status, exploratory,"
			  " spec_path FROM runs WHERE id = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW) {
		error("%s: run %s is not in its database", r->dir, r->id);
		goto out;
	}
	r->spec_name = xstrdup(store_col_text(s, 0) ? store_col_text(s, 0) : "");
	r->spec_hash = xstrdup(store_col_text(s, 2) ? store_col_text(s, 2) : "");
	r->seed = (uint64_t)store_col_int(s, 3);
	r->status = xstrdup(store_col_text(s, 4) ? store_col_text(s, 4) : "");
	r->exploratory = (int)store_col_int(s, 5);
	rule_from_spec(r, sqlite3_column_blob(s, 1), (size_t)sqlite3_column_bytes(s, 1),
		       store_col_text(s, 6));
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int load_impls(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	size_t alloc = 0, a2 = 0, a3 = 0;
	int rc;

	s = store_prepare(st, "SELECT name, commit_id, ref_asked FROM impls WHERE run_id = ?"
			  " ORDER BY ord, name");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *c = store_col_text(s, 1), *f = store_col_text(s, 2);
		XGROW(r->impls, alloc, r->nimpls + 1);
		XGROW(r->commits, a2, r->nimpls + 1);
		XGROW(r->refs, a3, r->nimpls + 1);
		r->impls[r->nimpls] = xstrdup(store_col_text(s, 0));
		r->commits[r->nimpls] = c ? xstrdup(c) : NULL;
		r->refs[r->nimpls] = f ? xstrdup(f) : NULL;
		r->nimpls++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return error("%s: reading impls: %s", r->dir, sqlite3_errmsg(st->db));
	return 0;
}

static int load_windows(struct cmp_run *r, struct store *st)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(st, "SELECT impl, stage, rung, block, rate, completed, cpu_s, p99_ms,"
			  " latency_hist FROM windows WHERE run_id = ? AND state = 'done'"
			  " AND status = 'accepted' ORDER BY id");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct cmp_win *w;
		const void *blob = sqlite3_column_blob(s, 8);
		int blen = sqlite3_column_bytes(s, 8);

		XGROW(r->w, alloc, r->nw + 1);
		w = &r->w[r->nw++];
		memset(w, 0, sizeof(*w));
		w->impl = xstrdup(store_col_text(s, 0));
		w->stage = xstrdup(store_col_text(s, 1));
		w->rung = (int)store_col_int(s, 2);
		w->block = (int)store_col_int(s, 3);
		w->rate = store_col_real(s, 4);
		w->completed = store_col_int(s, 5);
		w->cpu_s = store_col_real(s, 6);
		w->p99_ms = store_col_real(s, 7);
		w->pslo_ms = w->p99_ms;
		if (blob && blen > 0) {
			struct hist *h = xmalloc(sizeof(*h));
			hist_init(h);
			if (hist_deserialize(h, blob, (size_t)blen)) {
				hist_release(h);
				free(h);
				sqlite3_finalize(s);
				return error("%s: window of %s at %g req/s has a corrupt latency "
					     "histogram", r->dir, w->impl, w->rate);
			}
			w->hist = h;
			w->has_hist = 1;
			w->p99_ms = hist_percentile_ms(h, 99);
			w->pslo_ms = hist_percentile_ms(h, r->slo_pct);
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return error("%s: reading windows: %s", r->dir, sqlite3_errmsg(st->db));
	return 0;
}

int cmp_run_load(struct cmp_run *r, const char *runs_dir, const char *run)
{
	struct store st = { 0 };
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	r->dir = sbuf_detach(&dir, NULL);
	r->id = sbuf_detach(&id, NULL);
	if (load_run_row(r, &st) || load_impls(r, &st) || load_windows(r, &st))
		goto out;
	ret = 0;
out:
	if (st.db)
		store_close(&st);
	if (ret)
		cmp_run_release(r);
	sbuf_release(&dir);
	sbuf_release(&id);
	return ret;
}

void cmp_run_release(struct cmp_run *r)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++) {
		free(r->impls[i]);
		free(r->commits[i]);
		free(r->refs[i]);
	}
	for (i = 0; i < r->nw; i++) {
		free(r->w[i].impl);
		free(r->w[i].stage);
		if (r->w[i].hist) {
			hist_release(r->w[i].hist);
			free(r->w[i].hist);
		}
	}
	free(r->impls);
	free(r->commits);
	free(r->refs);
	free(r->w);
	free(r->id);
	free(r->dir);
	free(r->spec_name);
	free(r->spec_hash);
	free(r->status);
	memset(r, 0, sizeof(*r));
}

static int impl_index(const struct cmp_run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nimpls; i++)
		if (!strcmp(r->impls[i], name))
			return (int)i;
	return -1;
}

static int has_windows(const struct cmp_run *r, const char *impl)
{
	size_t i;

	for (i = 0; i < r->nw; i++)
		if (!strcmp(r->w[i].impl, impl))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ analysis */

static int same_rate(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorted distinct rates of impl's accepted windows. */
static size_t rates_of(const struct cmp_run *r, const char *impl, double **out)
{
	double *v = NULL;
	size_t n = 0, alloc = 0, i, k = 0;

	for (i = 0; i < r->nw; i++) {
		if (strcmp(r->w[i].impl, impl))
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

static double win_cpu_us(const struct cmp_win *w)
{
	if (!isfinite(w->cpu_s) || w->completed <= 0)
		return NAN;
	return w->cpu_s * 1e6 / (double)w->completed;
}

/* Merged values over impl's windows at rate: p99 (ms) from the merged
 * histogram, CPU us/request = sum cpu / sum completed. */
static void merged(const struct cmp_run *r, const char *impl, double rate,
		   double *p99, double *cpu, size_t *n)
{
	struct hist h;
	double cpu_sum = 0;
	int64_t done = 0;
	size_t i, nh = 0, ncpu = 0;

	hist_init(&h);
	*n = 0;
	for (i = 0; i < r->nw; i++) {
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate))
			continue;
		(*n)++;
		if (w->has_hist) {
			hist_merge(&h, w->hist);
			nh++;
		}
		if (isfinite(w->cpu_s) && w->completed > 0) {
			cpu_sum += w->cpu_s;
			done += w->completed;
			ncpu++;
		}
	}
	*p99 = nh && h.total ? hist_percentile_ms(&h, 99) : NAN;
	*cpu = ncpu && done > 0 ? cpu_sum * 1e6 / (double)done : NAN;
	hist_release(&h);
}

/* Per-window values of impl at rate (for Welch). */
static size_t values(const struct cmp_run *r, const char *impl, double rate, int cpu,
		     double **out)
{
	double *v = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < r->nw; i++) {
		const struct cmp_win *w = &r->w[i];
		double x;
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate))
			continue;
		x = cpu ? win_cpu_us(w) : w->p99_ms;
		if (!isfinite(x))
			continue;
		XGROW(v, alloc, n + 1);
		v[n++] = x;
	}
	*out = v;
	return n;
}

/* Pairs (new, base) of windows in the same stage and block at rate. */
static size_t pairs(const struct cmp_run *r, const char *impl, const char *base_arm,
		    double rate, int cpu, double **a, double **b)
{
	size_t n = 0, alloc = 0, alloc2 = 0, i, j;

	*a = *b = NULL;
	for (i = 0; i < r->nw; i++) {
		const struct cmp_win *w = &r->w[i];
		if (strcmp(w->impl, impl) || !same_rate(w->rate, rate))
			continue;
		for (j = 0; j < r->nw; j++) {
			const struct cmp_win *x = &r->w[j];
			double va, vb;
			if (strcmp(x->impl, base_arm) || strcmp(x->stage, w->stage) ||
			    x->block != w->block || !same_rate(x->rate, rate))
				continue;
			va = cpu ? win_cpu_us(w) : w->p99_ms;
			vb = cpu ? win_cpu_us(x) : x->p99_ms;
			if (!isfinite(va) || !isfinite(vb))
				break;
			XGROW(*a, alloc, n + 1);
			XGROW(*b, alloc2, n + 1);
			(*a)[n] = va;
			(*b)[n] = vb;
			n++;
			break;
		}
	}
	return n;
}

static enum cmp_verdict verdict_of(const struct cmp_metric *m, double margin_pct)
{
	double marg, d = m->ci.mean;

	if (!isfinite(m->base) || !isfinite(m->new_))
		return CMP_NA;
	if (!isfinite(m->ci.lo) || !isfinite(m->ci.hi))
		return CMP_INCONCLUSIVE;
	marg = fabs(m->base) * margin_pct / 100.0;
	if (m->ci.lo > 0 && d > marg)
		return CMP_REGRESSION;
	if (m->ci.hi < 0 && d < -marg)
		return CMP_IMPROVEMENT;
	/* Equivalence: the whole interval inside the margin. A small
	 * estimate with a wide interval proves nothing: inconclusive. */
	if (m->ci.lo > -marg && m->ci.hi < marg)
		return CMP_NO_CHANGE;
	return CMP_INCONCLUSIVE;
}

/* One metric at one rate. */
static void metric(const struct compare *c, const struct cmp_run *bs, const char *barm,
		   const char *impl, int paired, double rate, int cpu, struct cmp_metric *m)
{
	double bp, bc, np, nc, *a = NULL, *b = NULL;
	double level = 1 - c->alpha;
	size_t nb, nn;

	merged(bs, barm, rate, &bp, &bc, &nb);
	merged(&c->new_, impl, rate, &np, &nc, &nn);
	m->base = cpu ? bc : bp;
	m->new_ = cpu ? nc : np;
	m->rel_pct = isfinite(m->base) && m->base != 0 ? (m->new_ - m->base) / m->base * 100 : NAN;
	if (paired) {
		size_t n = pairs(&c->new_, impl, barm, rate, cpu, &a, &b);
		stat_paired_diff(a, b, n, level, 0, &m->ci);
		m->nbase = m->nnew = n;
	} else {
		m->nnew = values(&c->new_, impl, rate, cpu, &a);
		m->nbase = values(bs, barm, rate, cpu, &b);
		stat_welch_diff(a, m->nnew, b, m->nbase, level, 0, &m->ci);
	}
	m->verdict = verdict_of(m, c->margin_pct);
	free(a);
	free(b);
}

static void knee(const struct cmp_run *r, const char *impl, const struct compare *c,
		 struct cmp_knee *k)
{
	double *rates = NULL, *p = NULL, *wt = NULL;
	struct knee_rung *rungs = NULL;
	size_t nr, i, j, nw = 0, off = 0;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < r->nw; i++)
		if (!strcmp(r->w[i].impl, impl) && !strcmp(r->w[i].stage, "ladder"))
			nw++;
	if (!nw || !isfinite(r->slo_ms))
		return;
	nr = 0;
	{
		size_t alloc = 0;
		for (i = 0; i < r->nw; i++) {
			if (strcmp(r->w[i].impl, impl) || strcmp(r->w[i].stage, "ladder"))
				continue;
			XGROW(rates, alloc, nr + 1);
			rates[nr++] = r->w[i].rate;
		}
		qsort(rates, nr, sizeof(*rates), cmp_double);
		for (i = 0, j = 0; i < nr; i++)
			if (!j || !same_rate(rates[j - 1], rates[i]))
				rates[j++] = rates[i];
		nr = j;
	}
	rungs = xcalloc(nr, sizeof(*rungs));
	p = xcalloc(nw, sizeof(*p));
	wt = xcalloc(nw, sizeof(*wt));
	for (j = 0; j < nr; j++) {
		rungs[j].rate = rates[j];
		rungs[j].p99_ms = p + off;
		rungs[j].weight = wt + off;
		for (i = 0; i < r->nw; i++) {
			const struct cmp_win *w = &r->w[i];
			if (strcmp(w->impl, impl) || strcmp(w->stage, "ladder") ||
			    !same_rate(w->rate, rates[j]) || !isfinite(w->pslo_ms))
				continue;
			p[off] = w->pslo_ms;
			wt[off] = w->completed > 0 ? (double)w->completed : 1;
			off++;
			rungs[j].nwin++;
		}
	}
	if (stat_knee(rungs, nr, r->slo_ms, &k->fit) == 0) {
		k->has = 1;
		k->has_ci = stat_knee_bootstrap(rungs, nr, r->slo_ms, CMP_NBOOT, 1 - c->alpha,
						r->seed, r->min_reps, &k->ci) == 0;
	}
	free(rungs);
	free(p);
	free(wt);
	free(rates);
}

static void impl_compare(struct compare *c, struct cmp_impl *ci, const char *name)
{
	const struct cmp_run *bs = &c->base;
	struct sbuf arm = SBUF_INIT, why = SBUF_INIT;
	double *rb = NULL, *rn = NULL;
	size_t nb, nn, i, j, alloc = 0;
	int any_reg = 0, any_imp = 0, any_inc = 0;
	int bi = impl_index(&c->base, name), ni = impl_index(&c->new_, name);

	ci->name = xstrdup(name);
	ci->base_commit = bi >= 0 ? c->base.commits[bi] : NULL;
	ci->new_commit = ni >= 0 ? c->new_.commits[ni] : NULL;
	ci->new_ref = ni >= 0 ? c->new_.refs[ni] : NULL;
	sbuf_addf(&arm, "%s@base", name);
	ci->paired = has_windows(&c->new_, arm.buf);
	if (ci->paired) {
		int ai = impl_index(&c->new_, arm.buf);
		bs = &c->new_;
		if (ai >= 0 && c->new_.commits[ai])
			ci->base_commit = c->new_.commits[ai];
	} else {
		sbuf_reset(&arm);
		sbuf_adds(&arm, name);
	}

	nb = rates_of(bs, arm.buf, &rb);
	nn = rates_of(&c->new_, name, &rn);
	for (i = 0; i < nn; i++) {
		for (j = 0; j < nb && !same_rate(rb[j], rn[i]); j++)
			;
		if (j == nb)
			continue;
		XGROW(ci->rates, alloc, ci->nrates + 1);
		struct cmp_rate *cr = &ci->rates[ci->nrates++];
		memset(cr, 0, sizeof(*cr));
		cr->rate = rn[i];
		cr->p99.verdict = cr->cpu.verdict = CMP_NA;
		if (c->metrics & CMP_P99)
			metric(c, bs, arm.buf, name, ci->paired, cr->rate, 0, &cr->p99);
		if (c->metrics & CMP_CPU_PER_REQUEST)
			metric(c, bs, arm.buf, name, ci->paired, cr->rate, 1, &cr->cpu);
		for (j = 0; j < 2; j++) {
			const struct cmp_metric *m = j ? &cr->cpu : &cr->p99;
			const char *mn = j ? "cpu_per_request" : "p99";
			if (m->verdict == CMP_REGRESSION) {
				any_reg++;
				sbuf_addf(&why, "%s%s +%.1f%% at %g req/s", why.len ? "; " : "", mn,
					  m->rel_pct, cr->rate);
			} else if (m->verdict == CMP_IMPROVEMENT) {
				any_imp++;
			} else if (m->verdict == CMP_INCONCLUSIVE) {
				any_inc++;
			}
		}
	}
	knee(bs, arm.buf, c, &ci->kbase);
	knee(&c->new_, name, c, &ci->knew);

	if (any_reg)
		ci->verdict = CMP_REGRESSION;
	else if (any_imp)
		ci->verdict = CMP_IMPROVEMENT;
	else if (any_inc || !ci->nrates)
		ci->verdict = CMP_INCONCLUSIVE;
	else
		ci->verdict = CMP_NO_CHANGE;
	if (!ci->nrates)
		sbuf_adds(&why, "no rate with accepted windows on both sides");
	else if (!any_reg)
		sbuf_addf(&why, "%d improved, %d inconclusive cells over %zu rates", any_imp,
			  any_inc, ci->nrates);
	ci->why = sbuf_detach(&why, NULL);
	free(rb);
	free(rn);
	sbuf_release(&arm);
}

static int is_control(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, "@base");
}

int compare_runs(struct compare *c, struct cmp_run *base, struct cmp_run *new_,
		 const char *only)
{
	size_t i, alloc = 0;

	memset(c, 0, sizeof(*c));
	c->base = *base;
	c->new_ = *new_;
	memset(base, 0, sizeof(*base));
	memset(new_, 0, sizeof(*new_));
	c->margin_pct = c->new_.margin_pct;
	c->alpha = c->new_.alpha;
	c->metrics = c->new_.metrics;
	c->same_spec = !strcmp(c->base.spec_hash, c->new_.spec_hash);
	if (only && (impl_index(&c->base, only) < 0 || impl_index(&c->new_, only) < 0))
		return error("--impl %s: not an implementation of both %s and %s", only,
			     c->base.id, c->new_.id);
	for (i = 0; i < c->new_.nimpls; i++) {
		const char *name = c->new_.impls[i];
		if (is_control(name) || impl_index(&c->base, name) < 0)
			continue;
		if (only && strcmp(only, name))
			continue;
		XGROW(c->impls, alloc, c->nimpls + 1);
		memset(&c->impls[c->nimpls], 0, sizeof(c->impls[0]));
		impl_compare(c, &c->impls[c->nimpls], name);
		if (c->impls[c->nimpls].verdict == CMP_REGRESSION)
			c->regressions++;
		c->nimpls++;
	}
	if (!c->nimpls)
		return error("%s and %s have no implementation in common", c->base.id, c->new_.id);
	return 0;
}

void compare_release(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nimpls; i++) {
		free(c->impls[i].name);
		free(c->impls[i].rates);
		free(c->impls[i].why);
	}
	free(c->impls);
	cmp_run_release(&c->base);
	cmp_run_release(&c->new_);
	memset(c, 0, sizeof(*c));
}
