/* runner_until_blocks: the sequential blocks, planned, run and found again
 * on resume (runner_until.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/decide.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "runner/runner_until.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

struct arm *until_arm_named(struct run_ctx *rc, const char *name)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		if (!strcmp(rc->arms[i].name, name))
			return &rc->arms[i];
	return NULL;
}

/* ------------------------------------------------------------ blocks */

/* Run sequential block `block` at rate with these arms (planned first
 * when new, counterbalanced; windows done are kept): 0, 1, -1. */
int until_seq_block(struct run_ctx *rc, int block, double rate, struct arm **arms, size_t n)
{
	struct block_spec b = { SEQ_STAGE, STAGE_ID_SEQUENTIAL, -1, block, rate, arms, n, NULL,
				NULL };
	size_t j;

	for (j = 0; j < rc->nrungs; j++)
		if (rate_same(rc->rungs[j], rate))
			b.rung = (int)j;
	rc->cur_stage = SEQ_STAGE;
	rc->cur_rung = b.rung;
	return runner_run_block(rc, &b);
}

static int valid_status(enum window_status s)
{
	return s == WINDOW_ACCEPTED || s == WINDOW_FAILED;
}

/* Measured pairs of p at rate: both windows valid (accepted or failed; a
 * rejected one is void and measured again). */
static size_t paired_at(const struct pair *p, const struct window_rows *w, double rate)
{
	size_t i, n = 0;

	for (i = 0; i < w->n; i++) {
		const struct window_row *x = &w->v[i], *y;

		if (x->impl && !strcmp(x->impl, p->arm->name) && x->state == WINDOW_DONE &&
		    valid_status(x->status) && rate_same(x->rate, rate) &&
		    (y = until_partner(w, x, p->base->name)) && valid_status(y->status))
			n++;
	}
	return n;
}

/* The next block: the judged rate (of a live pair) with the fewest
 * accepted pairs, lowest rate first, and the live pairs' arms that lag
 * there. Returns the arm count (0: nothing to run). */
size_t until_next_block(struct until *u, const struct window_rows *w, double *rate,
			struct arm **arms)
{
	size_t i, j, best = (size_t)-1, n = 0;

	for (i = 0; i < u->n; i++)
		for (j = 0; !u->rules[i].outcome && j < u->p[i].nrates; j++) {
			size_t c = paired_at(&u->p[i], w, u->p[i].rates[j]);

			if (c < best || (c == best && u->p[i].rates[j] < *rate)) {
				best = c;
				*rate = u->p[i].rates[j];
			}
		}
	for (i = 0; best != (size_t)-1 && i < u->n; i++)
		for (j = 0; !u->rules[i].outcome && j < u->p[i].nrates; j++)
			if (rate_same(u->p[i].rates[j], *rate) &&
			    paired_at(&u->p[i], w, *rate) == best) {
				arms[n++] = u->p[i].arm;
				arms[n++] = u->p[i].base;
			}
	return n;
}

/* Sequential blocks planned so far (*planned: one more than the highest
 * block number), and the first one not finished (-1: none) with its
 * rate and arms (resume). */
int until_stored_blocks(struct run_ctx *rc, int *planned, int *open_block, double *rate,
			struct arm **arms, size_t *narms)
{
	struct window_query q = { .stage = SEQ_STAGE };
	struct window_rows w;
	size_t i, j;

	*planned = 0;
	*open_block = -1;
	*narms = 0;
	if (store_windows_load(&rc->st, rc->run_id, &q, &w))
		return -1;
	for (i = 0; i < w.n; i++) {
		if (w.v[i].block + 1 > *planned)
			*planned = w.v[i].block + 1;
		if (w.v[i].state != WINDOW_DONE && *open_block < 0)
			*open_block = w.v[i].block;
	}
	for (i = 0; i < w.n && *open_block >= 0; i++) {
		struct arm *a = w.v[i].impl ? until_arm_named(rc, w.v[i].impl) : NULL;

		if (w.v[i].block != *open_block || !a)
			continue;
		for (j = 0; j < *narms && arms[j] != a; j++)
			;
		if (j == *narms)
			arms[(*narms)++] = a;
		*rate = w.v[i].rate;
	}
	window_rows_release(&w);
	return 0;
}

