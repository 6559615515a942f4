/* runner_until_pairs: the pairs of windows a sequential rule judges, the
 * judged rates and the failed windows' verdict (runner_until.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/decide.h"
#include "base/hist.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "runner/runner_until.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

/* ------------------------------------------------------------ evidence */

/* x's partner in w: the other arm's window of the same stage, block and
 * rate, or NULL. */
const struct window_row *until_partner(const struct window_rows *w, const struct window_row *x,
				       const char *other)
{
	size_t j;

	for (j = 0; j < w->n; j++)
		if (w->v[j].impl && !strcmp(w->v[j].impl, other) &&
		    !strcmp(w->v[j].stage, x->stage) && w->v[j].block == x->block &&
		    rate_same(w->v[j].rate, x->rate) && w->v[j].state == WINDOW_DONE)
			return &w->v[j];
	return NULL;
}

void until_add_rate(double **v, size_t *n, size_t *alloc, double r)
{
	size_t j;

	for (j = 0; j < *n; j++)
		if (rate_same((*v)[j], r))
			return;
	XGROW(*v, *alloc, *n + 1);
	(*v)[(*n)++] = r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The judged rates of p from the pre-registered windows (file comment):
 * the rates where both arms ran in one block (void windows included:
 * they are measured again), less those where either has a failed one. */
void until_judged_rates(struct pair *p, const struct window_rows *w)
{
	double *bad = NULL;
	size_t i, j, nbad = 0, abad = 0, alloc = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (x->state == WINDOW_DONE && x->status == WINDOW_FAILED && x->impl &&
		    (!strcmp(x->impl, p->arm->name) || !strcmp(x->impl, p->base->name)))
			until_add_rate(&bad, &nbad, &abad, x->rate);
	}
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE ||
		    !strcmp(x->stage, SEQ_STAGE) || !until_partner(w, x, p->base->name))
			continue;
		for (j = 0; j < nbad && !rate_same(bad[j], x->rate); j++)
			;
		if (j == nbad)
			until_add_rate(&p->rates, &p->nrates, &alloc, x->rate);
	}
	if (p->nrates)
		qsort(p->rates, p->nrates, sizeof(*p->rates), cmp_double);
	free(bad);
}

void until_rates_text(const struct pair *p, struct sbuf *out)
{
	size_t j;

	for (j = 0; j < p->nrates; j++)
		sbuf_addf(out, "%s%.17g", j ? "," : "", p->rates[j]);
}

void until_rates_parse(struct pair *p, const char *s)
{
	size_t alloc = 0;

	while (s && *s) {
		char *end;
		double r = strtod(s, &end);

		if (end == s)
			break;
		until_add_rate(&p->rates, &p->nrates, &alloc, r);
		s = *end == ',' ? end + 1 : end;
	}
}

/* The pairs of p's arms at its judged rates, both accepted (decide.h). */
static size_t pairs_of(const struct pair *p, const struct window_rows *w,
		       const struct spec *s, int cpu, struct decide_obs *obs)
{
	size_t i, j, n = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE)
			continue;
		for (j = 0; j < p->nrates && !rate_same(p->rates[j], x->rate); j++)
			;
		if (j == p->nrates || !(y = until_partner(w, x, p->base->name)))
			continue;
		obs[n].rate = x->rate;
		obs[n].order = x->id > y->id ? x->id : y->id;
		/* CPU in us/request, the unit of compare.margin_cpu_us */
		obs[n].new_ = runner_seq_value(x, s, cpu) * (cpu ? 1e3 : 1);
		obs[n].base = runner_seq_value(y, s, cpu) * (cpu ? 1e3 : 1);
		n++;
	}
	return n;
}

/* median_cs's guard values (decide.h struct decide_guard) over the pairs
 * pairs_of() forms at p's judged rates; compare hands its own rows to the
 * same rule (compare_seq.c). */
static void guard_values(const struct pair *p, const struct window_rows *w,
			 const struct spec *s, double *gn, double *gb)
{
	struct decide_guard g;
	struct hist hx, hy;
	size_t i, j;

	decide_guard_init(&g, p->nrates, decide_guard_rule_stored(p->rule->guard),
			  s->slo.percentile);
	hist_init(&hx);
	hist_init(&hy);
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;
		int okx, oky;

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE)
			continue;
		for (j = 0; j < p->nrates && !rate_same(p->rates[j], x->rate); j++)
			;
		if (j == p->nrates || !(y = until_partner(w, x, p->base->name)))
			continue;
		/* a window counts when accepted and its histogram reads */
		okx = x->status == WINDOW_ACCEPTED && x->latency_hist.p &&
		      !hist_deserialize(&hx, x->latency_hist.p, x->latency_hist.len);
		oky = y->status == WINDOW_ACCEPTED && y->latency_hist.p &&
		      !hist_deserialize(&hy, y->latency_hist.p, y->latency_hist.len);
		decide_guard_add(&g, j, okx ? &hx : NULL, x->id, oky ? &hy : NULL, y->id);
	}
	decide_guard_values(&g, gn, gb);
	decide_guard_release(&g);
	hist_release(&hx);
	hist_release(&hy);
}

/* Judge p again from the stored windows w. */
void until_judge(struct run_ctx *rc, struct pair *p, const struct window_rows *w)
{
	struct decide_obs *obs = xcalloc(w->n + 1, sizeof(*obs));
	double *gn = xcalloc(p->nrates + 1, sizeof(*gn));
	double *gb = xcalloc(p->nrates + 1, sizeof(*gb));
	enum decide_verdict v[2];
	size_t k = 0;
	int cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		struct decide_rule r = { p->rule->alpha, p->rule->t_star, p->rule->margin_pct,
					 cpu ? p->rule->margin_cpu_us : p->rule->margin_ms,
					 decide_method_stored(p->rule->method, cpu), NULL, NULL,
					 decide_guard_rule_stored(p->rule->guard),
					 decide_margin_rule_stored(p->rule->margin_rule) };
		size_t n;

		if (!p->on[cpu])
			continue;
		if (r.method == DECIDE_MEDIAN_CS) {
			guard_values(p, w, rc->spec, gn, gb);
			r.guard_new = gn;
			r.guard_base = gb;
		}
		n = pairs_of(p, w, rc->spec, cpu, obs);
		decide_metric(&r, p->rates, p->nrates, obs, n, &p->m[cpu]);
		v[k++] = p->m[cpu].verdict;
	}
	p->answer = decide_overall(v, k);
	free(obs);
	free(gn);
	free(gb);
}

/* ------------------------------------------------------------ failed windows */

/* Valid (accepted or failed) and failed windows of impl at rate, every
 * stage: compare's counts (compare_cells.c). */
static void valid_counts(const struct window_rows *w, const char *impl, double rate,
			 size_t *nvalid, size_t *nfailed)
{
	size_t i;

	*nvalid = *nfailed = 0;
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i];

		if (!x->impl || strcmp(x->impl, impl) || !rate_same(x->rate, rate) ||
		    x->state != WINDOW_DONE ||
		    (x->status != WINDOW_ACCEPTED && x->status != WINDOW_FAILED))
			continue;
		(*nvalid)++;
		*nfailed += x->status == WINDOW_FAILED;
	}
}

/* Sequential pairs of p at rate with a failed window (either arm), and
 * the pairs there with both accepted (every stage). */
static void failed_pairs(const struct pair *p, const struct window_rows *w, double rate,
			 size_t *nfailed, size_t *nusable)
{
	size_t i;

	*nfailed = *nusable = 0;
	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (!x->impl || strcmp(x->impl, p->arm->name) || x->state != WINDOW_DONE ||
		    !rate_same(x->rate, rate) || !(y = until_partner(w, x, p->base->name)))
			continue;
		if (x->status == WINDOW_ACCEPTED && y->status == WINDOW_ACCEPTED)
			(*nusable)++;
		else if (!strcmp(x->stage, SEQ_STAGE) &&
			 (x->status == WINDOW_FAILED || y->status == WINDOW_FAILED))
			(*nfailed)++;
	}
}

/* The failed windows' verdict on p (file comment): NULL while none, else
 * the stop reason, p->answer set and the rate named in why. */
const char *until_outcome_stop(const struct run_ctx *rc, struct pair *p,
			       const struct window_rows *w, struct sbuf *why)
{
	size_t j, min = rc->spec->compare.min_pairs > 0 ? (size_t)rc->spec->compare.min_pairs : 3;

	for (j = 0; j < p->nrates; j++) {
		size_t vn, fn, vb, fb, nf, nu;

		valid_counts(w, p->arm->name, p->rates[j], &vn, &fn);
		valid_counts(w, p->base->name, p->rates[j], &vb, &fb);
		if (vn >= min && vb >= min && 2 * fn > vn && fb == 0) {
			p->answer = DECIDE_REGRESSION;
			sbuf_addf(why, "at %g req/s %s failed %zu of %zu valid windows where %s "
				  "held", p->rates[j], p->arm->name, fn, vn, p->base->name);
			return "outcome";
		}
		failed_pairs(p, w, p->rates[j], &nf, &nu);
		if (nf >= min && nf > nu) {
			p->answer = DECIDE_UNDECIDED;
			sbuf_addf(why, "at %g req/s %zu sequential pairs had a failed window, %zu "
				  "pairs are usable (%s failed %zu, %s %zu)", p->rates[j], nf, nu,
				  p->arm->name, fn, p->base->name, fb);
			return "failed_windows";
		}
	}
	return NULL;
}

