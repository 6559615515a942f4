/*
 * runner_stages: the ladder, confirm and soak stages as blocks of windows.
 *
 * Every decision here (how far the ladder climbs, where confirm runs, the
 * soak rates) is derived from the valid windows in the database through
 * the knee (knee.h, at the spec's SLO percentile), so a resumed run makes
 * the same decisions and runs only what is missing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "knee_run.h"
#include "plan.h"
#include "runner_internal.h"
#include "store_run.h"
#include "store_window.h"
#include "util.h"

enum { STAGE_ID_LADDER = 1, STAGE_ID_CONFIRM = 2, STAGE_ID_SOAK = 3, STAGE_ID_REFINE = 4 };

/* ------------------------------------------------------------- knees */

int runner_arm_knee(struct run_ctx *rc, struct arm *a, int max_rung, struct knee_result *k)
{
	/* No bootstrap: the runner needs the fit, not its interval. */
	int ret = knee_for_impl(&rc->st, rc->run_id, a->name, rc->spec, max_rung, 0, k);

	knee_result_release(k);
	return ret;
}

/* --------------------------------------------------------------- blocks */

/* One block to plan or run. */
struct block_spec {
	const char *stage;
	unsigned stage_id;
	int rung;                    /* ladder rung; -1 off the ladder */
	int block;
	double rate;                 /* every arm's offered rate, unless rates */
	struct arm **arms;
	size_t n;
	const double *rates;         /* per arm (refine: each its own), or NULL */
	const int64_t *replaces;     /* per arm: the rejected window replaced; 0 none */
};

static double block_rate(const struct block_spec *b, size_t i)
{
	return b->rates ? b->rates[i] : b->rate;
}

/* Insert the block's order and its planned windows (one transaction). */
static int block_insert(struct run_ctx *rc, const struct block_spec *b, const int *order)
{
	struct sbuf json = SBUF_INIT;
	struct block_row brow;   /* strings borrowed */
	double lowest = block_rate(b, 0);
	size_t k;
	int ret = -1;

	sbuf_adds(&json, "[");
	for (k = 0; k < b->n; k++) {
		if (k)
			sbuf_adds(&json, ",");
		sbuf_add_json_str(&json, b->arms[order[k]]->name);
		if (block_rate(b, k) < lowest)
			lowest = block_rate(b, k);
	}
	sbuf_adds(&json, "]");
	if (store_begin(&rc->st))
		goto out;
	brow.run_id = rc->run_id;
	brow.stage = (char *)b->stage;
	brow.rung = b->rung;
	brow.block = b->block;
	brow.rate = lowest;   /* refine: the lowest of the arms' rates */
	brow.order_json = json.buf;
	if (store_block_insert(&rc->st, &brow))
		goto rollback;
	for (k = 0; k < b->n; k++) {
		struct window_row w;
		int bad;

		window_row_init(&w);
		w.run_id = xstrdup(rc->run_id);
		w.stage = xstrdup(b->stage);
		w.rung = b->rung;
		w.block = b->block;
		w.slot = (int)k;
		w.impl = xstrdup(b->arms[order[k]]->name);
		w.rate = block_rate(b, (size_t)order[k]);
		w.state = WINDOW_PLANNED;
		if (b->replaces && b->replaces[order[k]]) {
			w.has_replaces = 1;
			w.replaces = b->replaces[order[k]];
		}
		bad = store_window_insert(&rc->st, &w);
		window_row_release(&w);
		if (bad)
			goto rollback;
	}
	if (store_commit(&rc->st))
		goto rollback;
	ret = 0;
	goto out;
rollback:
	store_rollback(&rc->st);
out:
	sbuf_release(&json);
	return ret;
}

/* Load the block's order from the database, or plan it (orders and
 * windows inserted in one transaction). order receives indices into
 * b->arms. */
static int block_order(struct run_ctx *rc, const struct block_spec *b, int *order)
{
	struct window_query q = { .stage = b->stage, .by_block = 1, .block = b->block };
	struct window_rows wins = { NULL, 0 };
	size_t i, k;
	int ret = -1, found = 0;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		goto out;
	for (k = 0; k < wins.n; k++) {
		const char *impl = wins.v[k].impl ? wins.v[k].impl : "";
		int slot = wins.v[k].slot;
		for (i = 0; i < b->n; i++)
			if (!strcmp(b->arms[i]->name, impl) && slot >= 0 && (size_t)slot < b->n) {
				order[slot] = (int)i;
				found++;
			}
	}
	if (found == (int)b->n) {
		ret = 0;
		goto out;
	}
	if (found) {
		error("%s: block %d of %s is partly planned; the database is inconsistent",
		      rc->st.path, b->block, b->stage);
		goto out;
	}
	plan_block_order(b->n, rc->spec->seed, b->stage_id, (unsigned)b->block, order);
	ret = block_insert(rc, b, order);
out:
	window_rows_release(&wins);
	return ret;
}

/* Run every window of one block that is not done yet (each at its
 * stored rate). Returns 0, 1 (interrupted) or -1 (fatal). */
static int run_block(struct run_ctx *rc, const struct block_spec *b)
{
	struct window_query q = { .stage = b->stage, .by_block = 1, .block = b->block };
	struct window_rows wins = { NULL, 0 };
	int *order = xcalloc(b->n, sizeof(*order));
	size_t k, i;
	int ret = -1;

	if (block_order(rc, b, order) || store_windows_load(&rc->st, rc->run_id, &q, &wins))
		goto out;
	for (k = 0; k < b->n; k++) {
		struct window_plan wp = { 0 };
		const struct window_row *row = NULL;

		for (i = 0; i < wins.n && !row; i++)
			if (wins.v[i].impl && !strcmp(wins.v[i].impl, b->arms[order[k]]->name))
				row = &wins.v[i];
		if (!row) {
			error("%s: window %s/%d/%s vanished", rc->st.path, b->stage, b->block,
			      b->arms[order[k]]->name);
			goto out;
		}
		if (row->state == WINDOW_DONE)
			continue;
		wp.id = row->id;
		wp.stage = b->stage;
		wp.rung = b->rung;
		wp.block = b->block;
		wp.slot = (int)k;
		wp.arm = b->arms[order[k]];
		wp.rate = row->rate;
		ret = runner_window(rc, &wp);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	window_rows_release(&wins);
	free(order);
	return ret;
}

/* --------------------------------------------------------- replacements */

/* Replacement blocks of a group of cells (key: a ladder rung, a confirm
 * rate's index, a refine step, a soak arm) are numbered apart from the
 * pre-registered blocks: REPL_BLOCK_BASE + key * REPL_ROUNDS + round
 * (retries.max_per_cell <= 50 < REPL_ROUNDS). */
enum { REPL_BLOCK_BASE = 1 << 24, REPL_ROUNDS = 64 };

/* Plan the next replacement round of b's cells: the arms whose cell has
 * fewer valid windows than pre-registered, a rejected window not yet
 * replaced and replacements left. A round already planned (resume) is
 * read back as stored. Fills arms/rates/repl; returns how many, -1. */
static int repl_round(struct run_ctx *rc, const struct block_spec *b, int block,
		      struct arm **arms, double *rates, int64_t *repl)
{
	struct window_query q = { .stage = b->stage, .by_block = 1, .block = block };
	struct window_rows wins;
	struct cells cells;
	size_t i, k, m = 0;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		return -1;
	for (i = 0; i < b->n && wins.n; i++)
		for (k = 0; k < wins.n; k++)
			if (wins.v[k].impl && !strcmp(wins.v[k].impl, b->arms[i]->name)) {
				arms[m] = b->arms[i];
				rates[m] = wins.v[k].rate;
				repl[m++] = 0;
			}
	window_rows_release(&wins);
	if (m)
		return (int)m;
	if (cells_load(&rc->st, rc->run_id, b->stage, NULL, &cells))
		return -1;
	for (i = 0; i < b->n; i++) {
		const struct cell *c = cells_find(&cells, b->stage, b->arms[i]->name,
						  block_rate(b, i));

		if (!c || !c->unreplaced || c->valid >= c->planned ||
		    c->replacements >= (size_t)rc->spec->retries.max_per_cell)
			continue;
		store_event(&rc->st, rc->run_id, c->unreplaced, "replacement",
			    "%s: %s window %lld at %g req/s rejected; replaced in block %d"
			    " (%zu of %zu valid, replacement %zu of at most %d)",
			    b->arms[i]->name, b->stage, (long long)c->unreplaced, c->rate, block,
			    c->valid, c->planned, c->replacements + 1,
			    rc->spec->retries.max_per_cell);
		arms[m] = b->arms[i];
		rates[m] = block_rate(b, i);
		repl[m++] = c->unreplaced;
	}
	cells_release(&cells);
	return (int)m;
}

/* After b's cells ran their pre-registered blocks: replacement rounds
 * (docs/DESIGN.md "Replacement windows"), one window per short arm per
 * round, each round a block in a fresh counterbalanced order. */
static int replace_rejected(struct run_ctx *rc, const struct block_spec *b, int key)
{
	struct arm **arms = xcalloc(b->n, sizeof(*arms));
	double *rates = xcalloc(b->n, sizeof(*rates));
	int64_t *repl = xcalloc(b->n, sizeof(*repl));
	int round, ret = 0;

	for (round = 0; round < rc->spec->retries.max_per_cell && !ret; round++) {
		struct block_spec rb = *b;
		int m;

		rb.block = REPL_BLOCK_BASE + key * REPL_ROUNDS + round;
		m = repl_round(rc, b, rb.block, arms, rates, repl);
		if (m <= 0) {
			ret = m;
			break;
		}
		rb.arms = arms;
		rb.n = (size_t)m;
		rb.rates = rates;
		rb.replaces = repl;
		ret = run_block(rc, &rb);
	}
	free(arms);
	free(rates);
	free(repl);
	return ret;
}

static struct arm **all_arms(struct run_ctx *rc)
{
	struct arm **v = xcalloc(rc->narms, sizeof(*v));
	size_t i;

	for (i = 0; i < rc->narms; i++)
		v[i] = &rc->arms[i];
	return v;
}

/* --------------------------------------------------------------- stages */

static int ladder(struct run_ctx *rc)
{
	struct arm **arms = all_arms(rc);
	const struct spec_ladder *L = &rc->spec->ladder;
	int r, rep, block = 0, past = -1, ret = 0;
	size_t i;

	rc->cur_stage = "ladder";
	for (r = 0; r < (int)rc->nrungs; r++) {
		struct block_spec b = { "ladder", STAGE_ID_LADDER, r, 0, rc->rungs[r], arms,
					rc->narms, NULL, NULL };
		int all_crossed = 1;

		rc->cur_rung = r;
		for (rep = 0; rep < L->reps; rep++, block++) {
			b.block = block;
			ret = run_block(rc, &b);
			if (ret)
				goto out;
		}
		ret = replace_rejected(rc, &b, r);
		if (ret)
			goto out;
		for (i = 0; i < rc->narms; i++) {
			struct knee_result k;

			/* A failed window (a wall, errors, death) is a crossing
			 * when the rung's pooled evidence says so (knee.h). */
			if (runner_arm_knee(rc, &rc->arms[i], r, &k) || !k.crossed)
				all_crossed = 0;
		}
		if (all_crossed && ++past >= L->rungs_past_knee)
			break;
	}
out:
	free(arms);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The highest ladder rung that has any window (the ladder may have
 * stopped early). */
static int ladder_top_rung(struct run_ctx *rc)
{
	struct window_query q = { .stage = "ladder", .done_only = 1 };
	struct window_rows wins;
	size_t i;
	int top = -1;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		return -1;
	for (i = 0; i < wins.n; i++)
		if (wins.v[i].rung > top)
			top = wins.v[i].rung;
	window_rows_release(&wins);
	return top;
}

static void store_knees(struct run_ctx *rc)
{
	size_t i;
	int top = ladder_top_rung(rc);

	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];

		memset(&a->knee, 0, sizeof(a->knee));
		a->knee_known = top >= 0 && !runner_arm_knee(rc, a, top, &a->knee);
		if (!a->knee_known)
			continue;
		store_impl_set_knee(&rc->st, rc->run_id, a->name,
				    a->knee.crossed ? a->knee.knee_rps : NAN, a->knee.crossed,
				    knee_kind_name(a->knee.kind), a->knee.lo_rps, a->knee.hi_rps,
				    a->knee.reason[0] ? a->knee.reason : NULL);
	}
}

/* ---------------------------------------------------------------- refine */

/* Is there any window of this stage (planned or done)? */
static int stage_started(struct run_ctx *rc, const char *stage)
{
	struct window_query q = { .stage = stage };
	struct window_rows wins;
	int any;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		return -1;
	any = wins.n > 0;
	window_rows_release(&wins);
	return any;
}

/* The points of refine step `step`: as stored when its first block is
 * planned (resume); else, while confirm has not started, every arm whose
 * knee crossed with a finite bracket (lo, hi] wider than resolution_pct
 * gets the geometric midpoint sqrt(lo * hi). Returns how many, -1. */
static int refine_points(struct run_ctx *rc, int top, int step, struct arm **arms,
			 double *rates)
{
	const struct spec_refine *R = &rc->spec->refine;
	struct window_query q = { .stage = "refine", .by_block = 1, .block = step * R->reps };
	struct window_rows wins;
	size_t i, k;
	int m = 0, started;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		return -1;
	for (i = 0; i < rc->narms && wins.n; i++)
		for (k = 0; k < wins.n; k++)
			if (wins.v[k].impl && !strcmp(wins.v[k].impl, rc->arms[i].name)) {
				arms[m] = &rc->arms[i];
				rates[m++] = wins.v[k].rate;
			}
	window_rows_release(&wins);
	if (m)
		return m;
	/* A refine step is planned only from a finished ladder and refine:
	 * once confirm started, its windows would move the brackets. */
	if ((started = stage_started(rc, "confirm")) != 0)
		return started < 0 ? -1 : 0;
	for (i = 0; i < rc->narms; i++) {
		struct knee_result k;
		double mid;

		if (runner_arm_knee(rc, &rc->arms[i], top, &k) || !k.crossed ||
		    !isfinite(k.lo_rps) || !isfinite(k.hi_rps) || k.lo_rps <= 0 ||
		    k.hi_rps <= k.lo_rps * (1 + R->resolution_pct / 100))
			continue;
		mid = sqrt(k.lo_rps * k.hi_rps);
		if (round(mid) > k.lo_rps && round(mid) < k.hi_rps)
			mid = round(mid);   /* a whole rate when one fits */
		arms[m] = &rc->arms[i];
		rates[m++] = mid;
	}
	return m;
}

/* After the ladder: halve each crossed knee's bracket (geometrically)
 * until it is within resolution_pct or max_steps were run; the arms'
 * midpoints share counterbalanced blocks (docs/DESIGN.md "Refine"). */
static int refine(struct run_ctx *rc)
{
	const struct spec_refine *R = &rc->spec->refine;
	struct arm **arms = xcalloc(rc->narms, sizeof(*arms));
	double *rates = xcalloc(rc->narms, sizeof(*rates));
	int top = ladder_top_rung(rc), step, rep, ret = 0;

	rc->cur_stage = "refine";
	rc->cur_rung = -1;
	for (step = 0; top >= 0 && step < R->max_steps && !ret; step++) {
		struct block_spec b = { "refine", STAGE_ID_REFINE, -1, 0, NAN, arms, 0, rates, NULL };
		int m = refine_points(rc, top, step, arms, rates);

		if (m <= 0) {
			ret = m;
			break;
		}
		b.n = (size_t)m;
		for (rep = 0; rep < R->reps && !ret; rep++) {
			b.block = step * R->reps + rep;
			ret = run_block(rc, &b);
		}
		if (!ret)
			ret = replace_rejected(rc, &b, step);
	}
	free(arms);
	free(rates);
	return ret;
}

/* --------------------------------------------------------------- confirm */

static void add_rate(double *rates, size_t *n, double r)
{
	size_t j;

	for (j = 0; j < *n; j++)
		if (fabs(rates[j] - r) <= 1e-9 * r)
			return;
	rates[(*n)++] = r;
}

/*
 * Sequential confirm (stages.confirm.until) at confirm rate index key:
 * after the reps blocks and their replacements, one more block (all arms,
 * counterbalanced like any) at a time until runner_seq_narrow() says every
 * paired sequence is narrow enough, or max_reps blocks ran at this rate.
 * Its blocks are numbered apart (cells.h) and decided from the stored
 * windows, so resume continues where the run stopped.
 */
static int sequential(struct run_ctx *rc, struct block_spec *b, int key)
{
	const struct spec_confirm *C = &rc->spec->confirm;
	struct sbuf why = SBUF_INIT;
	int k = 0, narrow = 0, ret = 0;

	for (;;) {
		narrow = runner_seq_narrow(rc, b->rate, &why);
		if (narrow < 0) {
			ret = -1;
			goto out;
		}
		if (narrow || C->reps + k >= C->until.max_reps)
			break;
		b->block = CELLS_SEQ_BLOCK_BASE + key * CELLS_SEQ_BLOCKS_PER_RATE + k;
		ret = run_block(rc, b);
		if (ret)
			goto out;
		k++;
	}
	store_event(&rc->st, rc->run_id, -1, "sequential_confirm",
		    "at %g req/s: %s after %d blocks (%d planned + %d sequential; max_reps %d): "
		    "%s (half_width_pct %g)", b->rate, narrow ? "stopped" : "max_reps reached",
		    C->reps + k, C->reps, k, C->until.max_reps, why.buf,
		    C->until.half_width_pct);
out:
	sbuf_release(&why);
	return ret;
}

static int confirm(struct run_ctx *rc)
{
	struct arm **arms = all_arms(rc);
	double *rates = xcalloc(2 * rc->narms + 1, sizeof(*rates));
	size_t nrates = 0, i, j, k;
	int top = ladder_top_rung(rc), ret = 0, rep;
	const struct spec_confirm *C = &rc->spec->confirm;

	rc->cur_stage = "confirm";
	if (top < 0) {
		warning("confirm: the ladder measured nothing; skipping confirm");
		ret = 1;
		goto out;
	}
	for (i = 0; i < rc->narms; i++) {
		size_t br[2], nb;
		struct arm *a = &rc->arms[i];

		/* After refine: the refined bracket itself. */
		if (rc->spec->refine.present && a->knee_known && a->knee.crossed &&
		    isfinite(a->knee.lo_rps) && isfinite(a->knee.hi_rps)) {
			add_rate(rates, &nrates, a->knee.lo_rps);
			add_rate(rates, &nrates, a->knee.hi_rps);
			continue;
		}
		nb = plan_bracket(rc->rungs, (size_t)top + 1, a->knee_known && a->knee.crossed,
				  a->knee.knee_rps, br);
		for (k = 0; k < nb; k++)
			add_rate(rates, &nrates, rc->rungs[br[k]]);
	}
	qsort(rates, nrates, sizeof(*rates), cmp_double);
	for (i = 0; i < nrates; i++) {
		struct block_spec b = { "confirm", STAGE_ID_CONFIRM, -1, 0, rates[i], arms,
					rc->narms, NULL, NULL };

		for (j = 0; j < rc->nrungs; j++)
			if (fabs(rc->rungs[j] - rates[i]) <= 1e-9 * rates[i])
				b.rung = (int)j;
		rc->cur_rung = b.rung;
		for (rep = 0; rep < C->reps; rep++) {
			b.block = (int)i * C->reps + rep;
			ret = run_block(rc, &b);
			if (ret)
				goto out;
		}
		ret = replace_rejected(rc, &b, (int)i);
		if (ret)
			goto out;
		if (C->until.present) {
			ret = sequential(rc, &b, (int)i);
			if (ret)
				goto out;
		}
	}
out:
	free(rates);
	free(arms);
	return ret;
}

static int soak(struct run_ctx *rc)
{
	int top = ladder_top_rung(rc), ret = 0;
	size_t i;

	rc->cur_stage = "soak";
	rc->cur_rung = -1;
	if (top < 0) {
		warning("soak: the ladder measured nothing; skipping soak");
		return 1;
	}
	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];
		/* Below the knee: the rate it is known to hold (a bracket's
		 * lower end, not its upper one). */
		double base = isfinite(runner_arm_hold_rps(a)) ? runner_arm_hold_rps(a)
							       : rc->rungs[top];
		double rate = round(base * rc->spec->soak.at_knee_fraction);
		struct block_spec b = { "soak", STAGE_ID_SOAK, -1, (int)i, 0, &a, 1, NULL, NULL };

		b.rate = rate < 1 ? 1 : rate;
		ret = run_block(rc, &b);
		if (!ret)
			ret = replace_rejected(rc, &b, (int)i);
		if (ret)
			break;
	}
	return ret;
}

/* Did every arm get at least one valid (accepted or failed) window in
 * this stage? A failed window is a measurement: above the SLO. */
static int stage_measured(struct run_ctx *rc, const char *stage)
{
	size_t i, k, valid;
	int ok = 1;

	for (i = 0; i < rc->narms; i++) {
		struct window_query q = { .stage = stage, .impl = rc->arms[i].name };
		struct window_rows wins;

		if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
			return 0;
		for (k = 0, valid = 0; k < wins.n; k++)
			valid += wins.v[k].status == WINDOW_ACCEPTED ||
				 wins.v[k].status == WINDOW_FAILED;
		window_rows_release(&wins);
		if (!valid) {
			warning("%s: no valid %s window for %s (see harness audit)",
				rc->run_id, stage, rc->arms[i].name);
			ok = 0;
		}
	}
	return ok;
}

int runner_stages(struct run_ctx *rc)
{
	int ret = 0, negative = 0;

	if (rc->stages & STAGE_LADDER) {
		ret = ladder(rc);
		if (ret)
			goto out;
		if (!stage_measured(rc, "ladder"))
			negative = 1;
		store_knees(rc);
		if (rc->spec->refine.present) {
			ret = refine(rc);
			if (ret < 0 || (ret == 1 && runner_stop))
				goto out;
			ret = 0;
		}
	}
	store_knees(rc);
	if ((rc->stages & STAGE_CONFIRM) && rc->spec->confirm.present) {
		ret = confirm(rc);
		if (ret < 0 || (ret == 1 && runner_stop))
			goto out;
		if (ret == 1 || !stage_measured(rc, "confirm"))
			negative = 1;
		ret = 0;
	}
	if ((rc->stages & STAGE_SOAK) && rc->spec->soak.present) {
		ret = soak(rc);
		if (ret < 0 || (ret == 1 && runner_stop))
			goto out;
		if (ret == 1 || !stage_measured(rc, "soak"))
			negative = 1;
		ret = 0;
	}
out:
	if (ret < 0)
		return EXIT_ENV;
	if (ret == 1)
		return EXIT_NEGATIVE;
	return negative ? EXIT_NEGATIVE : EXIT_OK;
}
