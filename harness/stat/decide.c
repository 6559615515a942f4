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

const char *decide_method_name(enum decide_method m)
{
	return m == DECIDE_MEDIAN_CS ? "median_cs" : "mean_cs";
}

int decide_method_parse(const char *s, enum decide_method *out)
{
	if (s && !strcmp(s, "mean_cs"))
		*out = DECIDE_MEAN_CS;
	else if (s && !strcmp(s, "median_cs"))
		*out = DECIDE_MEDIAN_CS;
	else
		return -1;
	return 0;
}

enum decide_method decide_method_stored(const char *stored, int cpu)
{
	enum decide_method m = DECIDE_MEAN_CS;

	if (cpu || decide_method_parse(stored, &m))
		return DECIDE_MEAN_CS;
	return m;
}

const char *decide_margin_rule_name(enum decide_margin_rule r)
{
	return r == DECIDE_MARGIN_BASE_BOUND ? "base_bound" : "point";
}

enum decide_margin_rule decide_margin_rule_stored(const char *stored)
{
	return stored && !strcmp(stored, "base_bound") ? DECIDE_MARGIN_BASE_BOUND
						       : DECIDE_MARGIN_POINT;
}

/* The level of the sequence "no change" reads (decide.h enum
 * decide_margin_rule). */
double decide_nc_seq_alpha(double alpha)
{
	return alpha * (1 - DECIDE_NC_BOUND_SHARE);
}

double decide_nc_bound_alpha(double alpha, size_t nrates)
{
	return alpha * DECIDE_NC_BOUND_SHARE / (double)(nrates ? nrates : 1);
}

static double nc_alpha(const struct decide_rule *r)
{
	return r->margin_rule == DECIDE_MARGIN_BASE_BOUND ? decide_nc_seq_alpha(r->alpha) : r->alpha;
}

/* "[lo, hi]" in %, a side not bounded yet in words */
static void nc_interval(const struct decide_metric *m, struct sbuf *out)
{
	if (isfinite(m->nc_lo) && isfinite(m->nc_hi))
		sbuf_addf(out, "[%+.1f%%, %+.1f%%]", decide_pct(m->nc_lo), decide_pct(m->nc_hi));
	else
		sbuf_adds(out, "not bounded yet");
}

void decide_note(const struct decide_metric *m, struct sbuf *out)
{
	int nc = m->margin_rule == DECIDE_MARGIN_BASE_BOUND && isfinite(m->nc_margin) &&
		 (m->verdict == DECIDE_UNDECIDED || m->verdict == DECIDE_NO_CHANGE);

	if (m->method == DECIDE_MEDIAN_CS)
		sbuf_addf(out, " [%s]", decide_method_name(m->method));
	if (nc) {
		sbuf_adds(out, "; no-change sequence ");
		nc_interval(m, out);
		sbuf_addf(out, ", margin %+.1f%%/%+.1f%%", decide_pct(-m->nc_margin),
			  decide_pct(m->nc_margin));
	}
	if (m->method != DECIDE_MEDIAN_CS || !m->guard_held)
		return;
	if (isfinite(m->guard_worst) && m->guard_rule == DECIDE_GUARD_DROP_WORST_RISE)
		sbuf_addf(out, "; the guard held it: the merged histograms' (each arm's worst "
			  "window set aside) SLO percentile %+.1f%%, above the margin +%.1f%%",
			  decide_pct(m->guard_log), decide_pct(m->guard_margin));
	else if (isfinite(m->guard_worst))
		sbuf_addf(out, "; the guard held it: the merged histograms' %sSLO percentile "
			  "%+.1f%%, margin +-%.1f%%",
			  m->guard_rule == DECIDE_GUARD_DROP_WORST
				  ? "(each arm's worst window set aside) " : "",
			  decide_pct(m->guard_log), decide_pct(m->guard_margin));
	else if (decide_guard_drops_worst(m->guard_rule))
		sbuf_adds(out, "; the guard held it: fewer than 2 histograms of an arm at a rate");
	else
		sbuf_adds(out, "; the guard held it: no merged histograms");
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
 * to the nearest decision: |est| (the sequence leaving 0) when the
 * estimate is beyond the margin, m - |est| (inside it) otherwise. */
static size_t rounds_needed(const struct decide_rule *r, const struct decide_metric *o)
{
	int call = fabs(o->est) > o->margin;
	double gap = call ? fabs(o->est) : o->nc_margin - fabs(o->est);
	double a = call ? r->alpha : nc_alpha(r);
	size_t lo = o->rounds, hi = o->rounds;

	if (o->verdict != DECIDE_UNDECIDED)
		return 0;
	if (!isfinite(o->sd) || !(gap > 0))
		return DECIDE_NEVER;
	if (hi < DECIDE_MIN_ROUNDS)
		hi = lo = DECIDE_MIN_ROUNDS;
	while (!(stat_cs_half_width(o->sd, hi, a, r->t_star) < gap)) {
		if (hi > 1000000)
			return DECIDE_NEVER;
		lo = hi;
		hi *= 2;
	}
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stat_cs_half_width(o->sd, mid, a, r->t_star) < gap)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* A rise or fall is called when the whole sequence lies on that side of
 * 0 (no shift excluded) and the estimate is beyond the margin (the
 * fixed-n cells' rule: significant and material); no change needs the
 * whole of its sequence inside its margin (nc_lo, nc_hi, nc_margin: under
 * the point rule the same as lo, hi, margin). */
static enum decide_verdict verdict_of(const struct decide_metric *o)
{
	if (o->rounds < DECIDE_MIN_ROUNDS || !isfinite(o->lo) || !isfinite(o->hi) ||
	    !isfinite(o->margin))
		return DECIDE_UNDECIDED;
	if (o->lo > 0 && o->est > o->margin)
		return DECIDE_REGRESSION;
	if (o->hi < 0 && o->est < -o->margin)
		return DECIDE_IMPROVEMENT;
	if (isfinite(o->nc_lo) && isfinite(o->nc_hi) && isfinite(o->nc_margin) &&
	    o->nc_lo > -o->nc_margin && o->nc_hi < o->nc_margin)
		return DECIDE_NO_CHANGE;
	return DECIDE_UNDECIDED;
}

/* ------------------------------------------------------------ median_cs */

/* The guard (decide.h struct decide_rule): 1 when every rate's pooled
 * log ratio is inside its log margin mj[j] (drop_worst_rise: below it;
 * a fall of NEW's tail does not hold); o->guard_worst the largest
 * excess. */
static int guard_of(const struct decide_rule *r, const double *mj, size_t nrates,
		    struct decide_metric *o)
{
	size_t j;
	int ok = nrates > 0 && r->guard_new && r->guard_base;

	for (j = 0; ok && j < nrates; j++) {
		double n = r->guard_new[j], b = r->guard_base[j], x;

		if (!(isfinite(n) && isfinite(b) && n > 0 && b > 0)) {
			ok = 0;
			/* drop_worst says which: no evidence at a rate (the
			 * merged rule's text named the last rate judged) */
			if (decide_guard_drops_worst(r->guard_rule))
				o->guard_worst = o->guard_log = o->guard_margin = NAN;
			break;
		}
		x = (r->guard_rule == DECIDE_GUARD_DROP_WORST_RISE ? log(n / b)
								 : fabs(log(n / b))) - mj[j];
		if (!(o->guard_worst >= x)) {
			o->guard_worst = x;
			o->guard_log = log(n / b);
			o->guard_margin = mj[j];
		}
		if (!(x < 0))
			ok = 0;
	}
	if (!ok && !(r->guard_new && r->guard_base))
		o->guard_worst = NAN;
	return ok;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* 1.4826 x the median absolute deviation of y about m. */
static double mad_of(const double *y, size_t n, double m)
{
	double *d = xcalloc(n + 1, sizeof(*d)), r;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = fabs(y[i] - m);
	qsort(d, n, sizeof(*d), cmp_dbl);
	r = n ? 1.4826 * (n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2) : NAN;
	free(d);
	return r;
}

/* The share of y[0..n) with y > x (above) or y < x (below). */
static double share(const double *y, size_t n, double x, int above)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += above ? y[i] > x : y[i] < x;
	return n ? (double)k / (double)n : NAN;
}

/* Rounds a median_cs decision needs: the nearest decision's wrong-side
 * share q of the pairs y[0..np) (regression: y <= 0; improvement:
 * y >= 0; no change: the larger of y >= m and y <= -m) held at the
 * pairs' rate, the first n pairs whose sequence puts that share outside
 * (stat.h stat_median_cs_rounds), in rounds of nrates pairs. */
static size_t median_rounds_needed(const struct decide_rule *r, const double *y, size_t np,
				   size_t nrates, const struct decide_metric *o)
{
	double m = o->margin, q, a = r->alpha;
	size_t n;

	if (o->verdict != DECIDE_UNDECIDED)
		return 0;
	if (o->rounds < DECIDE_MIN_ROUNDS || !isfinite(m))
		return DECIDE_NEVER;
	if (o->est > m)
		q = 1 - share(y, np, 0, 1);
	else if (o->est < -m)
		q = 1 - share(y, np, 0, 0);
	else if (o->guard_held)
		return DECIDE_NEVER;   /* the guard holds it back, not the rounds */
	else {
		m = o->nc_margin;
		a = nc_alpha(r);
		if (!isfinite(m))
			return DECIDE_NEVER;
		q = fmax(1 - share(y, np, m, 0), 1 - share(y, np, -m, 1));
	}
	n = stat_median_cs_rounds(q, a, np + nrates);
	return n ? (n + nrates - 1) / nrates : DECIDE_NEVER;
}

static enum decide_verdict verdict_of(const struct decide_metric *o);

/* median_cs over the pairs y[0..np), every judged rate's pair of every
 * round its own observation (decide.h): the sign counts need no round
 * mean, and a window a host stall held back spoils one pair, not the
 * round of every rate. */
static void median_of(const struct decide_rule *r, const double *y, size_t np,
		      const double *mj, size_t nrates, struct decide_metric *out)
{
	stat_median_cs(y, np, r->alpha, &out->est, &out->lo, &out->hi);
	out->nc_lo = out->lo;
	out->nc_hi = out->hi;
	if (r->margin_rule == DECIDE_MARGIN_BASE_BOUND) {
		double med;

		stat_median_cs(y, np, nc_alpha(r), &med, &out->nc_lo, &out->nc_hi);
	}
	out->sd = mad_of(y, np, out->est);
	out->half = isfinite(out->lo) && isfinite(out->hi) ? (out->hi - out->lo) / 2 : INFINITY;
	out->mde = fmax(out->margin, out->half);
	out->guard = guard_of(r, mj, nrates, out);
	out->verdict = verdict_of(out);
	if (out->verdict == DECIDE_NO_CHANGE && !out->guard) {
		out->verdict = DECIDE_UNDECIDED;
		out->guard_held = 1;
	}
	out->rounds_needed = median_rounds_needed(r, y, np, nrates, out);
}

/* What method judges, from the pairs per rate (by[j] the pairs at
 * rates[j], n[j] of them), and the log margin (mj, o->margin, o->base):
 * mean_cs the round statistics y[0..rounds) (each round's mean over the
 * rates); median_cs every pair's log ratio, y[k * nrates + j] (decide.h;
 * y holds rounds x nrates of them). */
static void rounds_of(const struct decide_rule *r, const struct decide_obs *const *const *by,
		      size_t nrates, size_t rounds, double *y, double *mj, struct decide_metric *o)
{
	double *b = xcalloc(rounds + 1, sizeof(*b));
	size_t j, k;

	o->margin = o->base = o->nc_margin = 0;
	for (k = 0; r->method != DECIDE_MEDIAN_CS && k < rounds; k++)
		y[k] = 0;
	for (j = 0; j < nrates; j++) {
		double med, m;

		for (k = 0; k < rounds; k++) {
			double x = log(by[j][k]->new_ / by[j][k]->base);

			if (r->method == DECIDE_MEDIAN_CS)
				y[k * nrates + j] = x;
			else
				y[k] += x / (double)nrates;
			b[k] = by[j][k]->base;
		}
		/* b in measured order: stat_median_ub's bound is over the
		 * prefixes, and a look after every block saw them */
		if (r->margin_rule == DECIDE_MARGIN_BASE_BOUND) {
			double u = stat_median_ub(b, rounds, decide_nc_bound_alpha(r->alpha, nrates));

			/* m falls as b grows: the bound's m, and with no bound
			 * yet the relative margin alone (b -> infinity) */
			o->nc_margin += (isfinite(u) ? log1p(fmax(r->margin_pct / 100 * u, r->floor) / u)
						     : log1p(r->margin_pct / 100)) /
					(double)nrates;
		}
		med = stat_median(b, rounds);
		m = fmax(r->margin_pct / 100 * med, r->floor);
		mj[j] = log1p(m / med);
		o->margin += mj[j] / (double)nrates;
		o->base += med / (double)nrates;
	}
	if (r->margin_rule != DECIDE_MARGIN_BASE_BOUND)
		o->nc_margin = o->margin;
	free(b);
}

int decide_metric(const struct decide_rule *r, const double *rates, size_t nrates,
		  const struct decide_obs *obs, size_t nobs, struct decide_metric *out)
{
	const struct decide_obs ***by = xcalloc(nrates + 1, sizeof(*by));
	double *y = NULL, *mj = NULL, var = 0;
	size_t j, rounds = nrates ? (size_t)-1 : 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->est = out->lo = out->hi = out->margin = out->base = NAN;
	out->sd = out->half = out->mde = NAN;
	out->verdict = DECIDE_UNDECIDED;
	out->rounds_needed = DECIDE_NEVER;
	out->method = r->method;
	out->guard_rule = r->guard_rule;
	out->guard_worst = out->guard_log = out->guard_margin = NAN;
	out->margin_rule = r->margin_rule;
	out->nc_margin = out->nc_lo = out->nc_hi = NAN;
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
	y = xcalloc(r->method == DECIDE_MEDIAN_CS ? rounds * nrates : rounds, sizeof(*y));
	mj = xcalloc(nrates + 1, sizeof(*mj));
	rounds_of(r, (const struct decide_obs *const *const *)by, nrates, rounds, y, mj, out);
	if (r->method == DECIDE_MEDIAN_CS) {
		median_of(r, y, rounds * nrates, mj, nrates, out);
		goto out;
	}
	stat_mean_var(y, rounds, &out->est, &var);
	if (rounds >= 2) {
		out->sd = sqrt(var);
		out->half = stat_cs_half_width(out->sd, rounds, r->alpha, r->t_star);
		out->lo = out->est - out->half;
		out->hi = out->est + out->half;
		out->nc_lo = out->lo;
		out->nc_hi = out->hi;
		if (r->margin_rule == DECIDE_MARGIN_BASE_BOUND) {
			double h = stat_cs_half_width(out->sd, rounds, nc_alpha(r), r->t_star);

			out->nc_lo = out->est - h;
			out->nc_hi = out->est + h;
		}
		out->mde = fmax(out->margin, out->half) +
			   stat_norm_quantile(STAT_MDE_POWER) * out->sd / sqrt((double)rounds);
	}
	out->verdict = verdict_of(out);
	out->rounds_needed = rounds_needed(r, out);
out:
	for (j = 0; j < nrates; j++)
		free(by[j]);
	free(by);
	free(y);
	free(mj);
	return ret;
}

size_t decide_first_round(enum decide_method m, double alpha, size_t nrates)
{
	size_t n, kmin, kmax;

	if (!(alpha > 0 && alpha < 1))
		return DECIDE_NEVER;
	if (m != DECIDE_MEDIAN_CS)
		return DECIDE_MIN_ROUNDS;
	/* kmin rises with n to n/2 (stat_quant.c); at alpha 1e-9 it is 1
	 * by n = 36, so the bound only guards a broken sequence */
	for (n = 1; n < 100000; n++)
		if (!stat_median_cs_counts(n, alpha, &kmin, &kmax) && kmin >= 1) {
			n = (n + (nrates ? nrates : 1) - 1) / (nrates ? nrates : 1);
			return n < DECIDE_MIN_ROUNDS ? DECIDE_MIN_ROUNDS : n;
		}
	return DECIDE_NEVER;
}

size_t decide_nc_bound_round(double alpha, size_t nrates)
{
	double a = decide_nc_bound_alpha(alpha, nrates);
	size_t t, kmin;

	if (!(alpha > 0 && alpha < 1))
		return DECIDE_NEVER;
	for (t = 1; t < 100000; t++)
		if (!stat_median_ub_count(t, a, &kmin) && kmin >= 1)
			return t;
	return DECIDE_NEVER;
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
