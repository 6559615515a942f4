/*
 * decide_guard: the evidence of median_cs's guard on "no change" (decide.h
 * struct decide_guard), and the method a stored rule names. The runner
 * (runner_until_pairs.c) and compare (compare_seq.c) find the pairs each
 * in their own rows and hand the histograms here, so both judge by one
 * rule.
 */
#include "stat/decide.h"
#include "base/hist.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

void decide_guard_init(struct decide_guard *g, size_t nrates)
{
	size_t j;

	g->nrates = nrates;
	g->new_ = xcalloc(nrates + 1, sizeof(*g->new_));
	g->base = xcalloc(nrates + 1, sizeof(*g->base));
	for (j = 0; j < nrates; j++) {
		hist_init(&g->new_[j]);
		hist_init(&g->base[j]);
	}
}

void decide_guard_add(struct decide_guard *g, size_t j, const struct hist *new_,
		      const struct hist *base)
{
	if (j >= g->nrates || !new_ || !base)
		return;
	hist_merge(&g->new_[j], new_);
	hist_merge(&g->base[j], base);
}

void decide_guard_values(const struct decide_guard *g, double pct, double *gn, double *gb)
{
	size_t j;

	for (j = 0; j < g->nrates; j++) {
		gn[j] = g->new_[j].total ? hist_percentile_ms(&g->new_[j], pct) : NAN;
		gb[j] = g->base[j].total ? hist_percentile_ms(&g->base[j], pct) : NAN;
	}
}

void decide_guard_release(struct decide_guard *g)
{
	size_t j;

	for (j = 0; j < g->nrates; j++) {
		hist_release(&g->new_[j]);
		hist_release(&g->base[j]);
	}
	free(g->new_);
	free(g->base);
	g->new_ = g->base = NULL;
	g->nrates = 0;
}

enum decide_method decide_method_stored(const char *stored, int cpu)
{
	enum decide_method m = DECIDE_MEAN_CS;

	if (cpu || decide_method_parse(stored, &m))
		return DECIDE_MEAN_CS;
	return m;
}
