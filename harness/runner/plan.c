/* plan: Williams designs, block orders, knee brackets. */
#include "runner/plan.h"

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/rng.h"
#include "spec/spec.h"
#include "base/util.h"

size_t plan_williams(size_t n, int **rows)
{
	size_t nrows = (n % 2 == 0 || n == 1) ? n : 2 * n;
	int *first = xcalloc(n, sizeof(*first));
	int *r = xcalloc(nrows * n, sizeof(*r));
	size_t i, k, lo = 1, hi = n - 1;

	/* First row: 0, 1, n-1, 2, n-2, ... */
	for (k = 1; k < n; k++)
		first[k] = (k % 2) ? (int)lo++ : (int)hi--;
	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++)
			r[i * n + k] = (int)((first[k] + i) % n);
	/* Odd n: append the mirror image of every row. */
	for (i = n; i < nrows; i++)
		for (k = 0; k < n; k++)
			r[i * n + k] = r[(i - n) * n + (n - 1 - k)];
	free(first);
	*rows = r;
	return nrows;
}

void plan_block_order(size_t n, uint64_t seed, unsigned stage_id, unsigned block,
		      int *order)
{
	int *rows = NULL;
	size_t nrows = plan_williams(n, &rows);
	size_t cycle = block / nrows, pos = block % nrows, i;
	size_t *perm = xcalloc(nrows, sizeof(*perm));
	struct rng rng;

	/* Each cycle through the rows gets its own seeded shuffle. */
	rng_seed(&rng, seed, ((uint64_t)stage_id << 32) | cycle);
	for (i = 0; i < nrows; i++)
		perm[i] = i;
	for (i = nrows; i > 1; i--) {
		size_t j = (size_t)rng_below(&rng, i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	memcpy(order, rows + perm[pos] * n, n * sizeof(*order));
	free(perm);
	free(rows);
}

size_t plan_bracket(const double *rates, size_t nrungs, int crossed,
		    double knee_rps, size_t out[2])
{
	size_t i;

	if (nrungs == 0)
		return 0;
	if (nrungs == 1) {
		out[0] = 0;
		return 1;
	}
	if (!crossed) {
		out[0] = nrungs - 2;
		out[1] = nrungs - 1;
		return 2;
	}
	for (i = 0; i < nrungs; i++)
		if (rates[i] >= knee_rps * (1 - 1e-9))
			break;
	if (i == 0)
		i = 1;
	if (i >= nrungs)
		i = nrungs - 1;
	out[0] = i - 1;
	out[1] = i;
	return 2;
}

void plan_worst_windows(const struct spec *s, size_t nrungs, size_t narms,
			struct plan_windows *p)
{
	size_t r = (size_t)s->retries.max_per_cell;

	memset(p, 0, sizeof(*p));
	p->ladder = nrungs * (size_t)s->ladder.reps * narms;
	p->ladder_r = nrungs * narms * r;
	if (s->refine.present) {
		p->refine = (size_t)s->refine.max_steps * (size_t)s->refine.reps * narms;
		p->refine_r = (size_t)s->refine.max_steps * narms * r;
	}
	if (s->confirm.present) {
		/* without refine every confirm rate is a rung */
		size_t rates = s->refine.present ? SIZE_MAX : nrungs;
		size_t all = 2 * narms * (1 + PLAN_CONFIRM_MOVES);
		size_t reps = (size_t)(s->confirm.until.present ? s->confirm.until.max_reps
								 : s->confirm.reps);

		p->confirm_rates = s->refine.present || 2 * narms < nrungs ? 2 * narms : nrungs;
		if (all > rates)
			all = rates;
		p->confirm_follow_rates = all > p->confirm_rates ? all - p->confirm_rates : 0;
		/* sequential confirm: up to max_reps blocks per rate */
		p->confirm = p->confirm_rates * reps * narms;
		p->confirm_f = p->confirm_follow_rates * reps * narms;
		p->confirm_r = (p->confirm_rates + p->confirm_follow_rates) * narms * r;
	}
	if (s->soak.present) {
		p->soak = narms;
		p->soak_r = narms * r;
	}
}

size_t plan_run_windows(const struct spec *s, size_t nrungs, size_t narms, unsigned mask,
			size_t pre[PLAN_NSTAGES])
{
	struct plan_windows p;
	size_t extra = 0;

	plan_worst_windows(s, nrungs, narms, &p);
	memset(pre, 0, PLAN_NSTAGES * sizeof(*pre));
	if (mask & PLAN_STAGE_LADDER) {
		pre[PLAN_S_LADDER] = p.ladder;
		pre[PLAN_S_REFINE] = p.refine;
		extra += p.ladder_r + p.refine_r;
	}
	if ((mask & PLAN_STAGE_CONFIRM) && s->confirm.present) {
		pre[PLAN_S_CONFIRM] = p.confirm;
		extra += p.confirm_f + p.confirm_r;
	}
	if ((mask & PLAN_STAGE_SOAK) && s->soak.present) {
		pre[PLAN_S_SOAK] = p.soak;
		extra += p.soak_r;
	}
	return extra;
}

int plan_stage_index(const char *stage)
{
	static const char *const names[PLAN_NSTAGES] = { "ladder", "refine", "confirm", "soak" };
	int i;

	for (i = 0; stage && i < PLAN_NSTAGES; i++)
		if (!strcmp(stage, names[i]))
			return i;
	return -1;
}
