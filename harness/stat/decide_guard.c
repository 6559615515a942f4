/*
 * decide_guard: the evidence of median_cs's guard on "no change" (decide.h
 * struct decide_guard). The runner
 * (runner_until_pairs.c) and compare (compare_seq.c) find the pairs each
 * in their own rows and hand the histograms here, so both judge by one
 * rule. The guard's rule (merged, drop_worst, drop_worst_rise) is the run's stored one.
 */
#include "stat/decide.h"
#include "base/hist.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One arm at one rate: the windows merged so far (rest) and, under
 * drop_worst, the worst one set aside (worst, its percentile and id). */
struct decide_guard_arm {
	struct hist rest, worst;
	double worst_p;
	int64_t worst_id;
	size_t n;              /* windows added */
};

static const char *const guard_rule_names[] = { "merged", "drop_worst", "drop_worst_rise" };

const char *decide_guard_rule_name(enum decide_guard_rule g)
{
	return (size_t)g < ARRAY_SIZE(guard_rule_names) ? guard_rule_names[g] : guard_rule_names[0];
}

enum decide_guard_rule decide_guard_rule_stored(const char *stored)
{
	size_t i;

	for (i = 0; stored && i < ARRAY_SIZE(guard_rule_names); i++)
		if (!strcmp(stored, guard_rule_names[i]))
			return (enum decide_guard_rule)i;
	return DECIDE_GUARD_MERGED;
}

int decide_guard_drops_worst(enum decide_guard_rule g)
{
	return g == DECIDE_GUARD_DROP_WORST || g == DECIDE_GUARD_DROP_WORST_RISE;
}

void decide_guard_init(struct decide_guard *g, size_t nrates, enum decide_guard_rule rule,
		       double pct)
{
	size_t j;

	g->nrates = nrates;
	g->rule = rule;
	g->pct = pct;
	g->new_ = xcalloc(nrates + 1, sizeof(*g->new_));
	g->base = xcalloc(nrates + 1, sizeof(*g->base));
	for (j = 0; j < nrates; j++) {
		hist_init(&g->new_[j].rest);
		hist_init(&g->new_[j].worst);
		hist_init(&g->base[j].rest);
		hist_init(&g->base[j].worst);
	}
}

/* Add window h (id) to arm a: merged into the rest, or under drop_worst
 * set aside when it is worse than the one set aside so far (which then
 * joins the rest). */
static void arm_add(const struct decide_guard *g, struct decide_guard_arm *a,
		    const struct hist *h, int64_t id)
{
	double p;

	a->n++;
	if (!decide_guard_drops_worst(g->rule)) {
		hist_merge(&a->rest, h);
		return;
	}
	p = hist_percentile_ms(h, g->pct);
	if (a->n > 1 && !(p > a->worst_p || (p == a->worst_p && id > a->worst_id))) {
		hist_merge(&a->rest, h);
		return;
	}
	hist_merge(&a->rest, &a->worst);
	hist_reset(&a->worst);
	hist_merge(&a->worst, h);
	a->worst_p = p;
	a->worst_id = id;
}

void decide_guard_add(struct decide_guard *g, size_t j, const struct hist *new_, int64_t idn,
		      const struct hist *base, int64_t idb)
{
	if (j >= g->nrates || !new_ || !base)
		return;
	arm_add(g, &g->new_[j], new_, idn);
	arm_add(g, &g->base[j], base, idb);
}

static double arm_value(const struct decide_guard *g, const struct decide_guard_arm *a)
{
	if (decide_guard_drops_worst(g->rule) && a->n < 2)
		return NAN;
	return a->rest.total ? hist_percentile_ms(&a->rest, g->pct) : NAN;
}

void decide_guard_values(const struct decide_guard *g, double *gn, double *gb)
{
	size_t j;

	for (j = 0; j < g->nrates; j++) {
		gn[j] = arm_value(g, &g->new_[j]);
		gb[j] = arm_value(g, &g->base[j]);
	}
}

void decide_guard_release(struct decide_guard *g)
{
	size_t j;

	for (j = 0; j < g->nrates; j++) {
		hist_release(&g->new_[j].rest);
		hist_release(&g->new_[j].worst);
		hist_release(&g->base[j].rest);
		hist_release(&g->base[j].worst);
	}
	free(g->new_);
	free(g->base);
	g->new_ = g->base = NULL;
	g->nrates = 0;
}
