/*
 * decide: rounds of paired log ratios, their confidence sequence and the
 * margin test (decide.h; docs/STATISTICS.md "Sequential rerun").
 */
#include "stat/decide.h"
#include "base/rate.h"
#include "stat/stat.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *decide_verdict_name(enum decide_verdict v)
{
	switch (v) {
	case DECIDE_UNDECIDED: return "undecided";
	case DECIDE_NO_CHANGE: return "no change";
	case DECIDE_REGRESSION: return "regression";
	case DECIDE_IMPROVEMENT: return "improvement";
	}
	return "?";
}

double decide_pct(double x)
{
	return (exp(x) - 1) * 100;
}

static int usable(const struct decide_obs *o)
{
	return isfinite(o->new_) && isfinite(o->base) && o->new_ > 0 && o->base > 0;
}

static int cmp_order(const void *x, const void *y)
{
	const struct decide_obs *a = *(const struct decide_obs *const *)x;
	const struct decide_obs *b = *(const struct decide_obs *const *)y;

	return a->order < b->order ? -1 : a->order > b->order;
}

/* The usable pairs at rate, in measured order (pointers into obs). */
static size_t at_rate(const struct decide_obs *obs, size_t nobs, double rate,
		      const struct decide_obs **out)
{
	size_t i, n = 0;

	for (i = 0; i < nobs; i++)
		if (rate_same(obs[i].rate, rate) && usable(&obs[i]))
			out[n++] = &obs[i];
	qsort(out, n, sizeof(*out), cmp_order);
	return n;
}

/* Rounds a decision needs: the first n whose half-width is under the gap
 * between |est| and m (the distance to the nearest decision). */
static size_t rounds_needed(const struct decide_rule *r, const struct decide_metric *o)
{
	double gap = fabs(fabs(o->est) - o->margin);
	size_t lo = o->rounds, hi = o->rounds;

	if (o->verdict != DECIDE_UNDECIDED)
		return 0;
	if (!isfinite(o->sd) || !(gap > 0))
		return DECIDE_NEVER;
	if (hi < DECIDE_MIN_ROUNDS)
		hi = lo = DECIDE_MIN_ROUNDS;
	while (!(stat_cs_half_width(o->sd, hi, r->alpha, r->t_star) < gap)) {
		if (hi > 1000000)
			return DECIDE_NEVER;
		lo = hi;
		hi *= 2;
	}
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stat_cs_half_width(o->sd, mid, r->alpha, r->t_star) < gap)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static enum decide_verdict verdict_of(const struct decide_metric *o)
{
	if (o->rounds < DECIDE_MIN_ROUNDS || !isfinite(o->lo) || !isfinite(o->hi) ||
	    !isfinite(o->margin))
		return DECIDE_UNDECIDED;
	if (o->lo > o->margin)
		return DECIDE_REGRESSION;
	if (o->hi < -o->margin)
		return DECIDE_IMPROVEMENT;
	if (o->lo > -o->margin && o->hi < o->margin)
		return DECIDE_NO_CHANGE;
	return DECIDE_UNDECIDED;
}

/* The round statistics y[0..rounds) and the log margin from the pairs
 * per rate (by[j] the pairs at rates[j], n[j] of them). */
static void rounds_of(const struct decide_rule *r, const struct decide_obs *const *const *by,
		      size_t nrates, size_t rounds, double *y, struct decide_metric *o)
{
	double *b = xcalloc(rounds + 1, sizeof(*b));
	size_t j, k;

	o->margin = o->base = 0;
	for (k = 0; k < rounds; k++)
		y[k] = 0;
	for (j = 0; j < nrates; j++) {
		double med, m;

		for (k = 0; k < rounds; k++) {
			y[k] += log(by[j][k]->new_ / by[j][k]->base) / (double)nrates;
			b[k] = by[j][k]->base;
		}
		med = stat_median(b, rounds);
		m = fmax(r->margin_pct / 100 * med, r->floor);
		o->margin += log1p(m / med) / (double)nrates;
		o->base += med / (double)nrates;
	}
	free(b);
}

int decide_metric(const struct decide_rule *r, const double *rates, size_t nrates,
		  const struct decide_obs *obs, size_t nobs, struct decide_metric *out)
{
	const struct decide_obs ***by = xcalloc(nrates + 1, sizeof(*by));
	double *y = NULL, var = 0;
	size_t j, rounds = nrates ? (size_t)-1 : 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->est = out->lo = out->hi = out->margin = out->base = NAN;
	out->sd = out->half = out->mde = NAN;
	out->verdict = DECIDE_UNDECIDED;
	out->rounds_needed = DECIDE_NEVER;
	if (!(r->alpha > 0 && r->alpha < 1) || !(r->t_star > 0))
		goto out;
	for (j = 0; j < nrates; j++) {
		size_t n;

		by[j] = xcalloc(nobs + 1, sizeof(**by));
		n = at_rate(obs, nobs, rates[j], by[j]);
		if (n < rounds)
			rounds = n;
	}
	ret = 0;
	out->rounds = rounds;
	if (!rounds)
		goto out;
	y = xcalloc(rounds, sizeof(*y));
	rounds_of(r, (const struct decide_obs *const *const *)by, nrates, rounds, y, out);
	stat_mean_var(y, rounds, &out->est, &var);
	if (rounds >= 2) {
		out->sd = sqrt(var);
		out->half = stat_cs_half_width(out->sd, rounds, r->alpha, r->t_star);
		out->lo = out->est - out->half;
		out->hi = out->est + out->half;
		out->mde = out->margin + out->half +
			   stat_norm_quantile(STAT_MDE_POWER) * out->sd / sqrt((double)rounds);
	}
	out->verdict = verdict_of(out);
	out->rounds_needed = rounds_needed(r, out);
out:
	for (j = 0; j < nrates; j++)
		free(by[j]);
	free(by);
	free(y);
	return ret;
}

enum decide_verdict decide_overall(const enum decide_verdict *v, size_t n)
{
	size_t i, improved = 0;

	for (i = 0; i < n; i++)
		if (v[i] == DECIDE_REGRESSION)
			return DECIDE_REGRESSION;
	for (i = 0; i < n; i++) {
		if (v[i] == DECIDE_UNDECIDED)
			return DECIDE_UNDECIDED;
		improved += v[i] == DECIDE_IMPROVEMENT;
	}
	if (!n)
		return DECIDE_UNDECIDED;
	return improved ? DECIDE_IMPROVEMENT : DECIDE_NO_CHANGE;
}
