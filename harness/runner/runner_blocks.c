/*
 * runner_blocks: the blocks every stage is made of (harness/runner/runner_stages.c
 * plans which): a block's counterbalanced order and planned windows,
 * inserted in one transaction, its windows run, and the replacement
 * rounds of the cells its windows left short (docs/DESIGN.md
 * "Replacement windows").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "model/cells.h"
#include "runner/plan.h"
#include "model/view.h"
#include "runner/runner_internal.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "base/util.h"

/* --------------------------------------------------------------- blocks */

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
/* Is w a window of block b? */
static int of_block(const struct view_window *w, const struct block_spec *b)
{
	return w->block == b->block && !strcmp(w->stage, b->stage);
}

int runner_block_order(struct run_ctx *rc, const struct block_spec *b, int *order)
{
	struct view v;
	size_t i, k;
	int ret = -1, found = 0;

	if (runner_view(rc, &v))
		return -1;
	for (k = 0; k < v.nwindows; k++) {
		const struct view_window *w = &v.windows[k];

		for (i = 0; i < b->n && of_block(w, b); i++)
			if (!strcmp(b->arms[i]->name, w->impl) && w->slot >= 0 &&
			    (size_t)w->slot < b->n) {
				order[w->slot] = (int)i;
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
	view_release(&v);
	return ret;
}

/* Run every window of one block that is not done yet (each at its
 * stored rate). Returns 0, 1 (interrupted) or -1 (fatal). */
int runner_run_block(struct run_ctx *rc, const struct block_spec *b)
{
	struct view v = { 0 };
	int *order = xcalloc(b->n, sizeof(*order));
	size_t k, i;
	int ret = -1;

	if (runner_block_order(rc, b, order) || runner_view(rc, &v))
		goto out;
	for (k = 0; k < b->n; k++) {
		struct window_plan wp = { 0 };
		const struct view_window *row = NULL;

		for (i = 0; i < v.nwindows && !row; i++)
			if (of_block(&v.windows[i], b) &&
			    !strcmp(v.windows[i].impl, b->arms[order[k]]->name))
				row = &v.windows[i];
		if (!row) {
			error("%s: window %s/%d/%s vanished", rc->st.path, b->stage, b->block,
			      b->arms[order[k]]->name);
			goto out;
		}
		if (row->done)
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
	view_release(&v);
	free(order);
	return ret;
}

/* --------------------------------------------------------- replacements */

/* Replacement blocks of a group of cells (key: a ladder rung, a confirm
 * rate's index, a refine step, a soak arm) are numbered apart from the
 * pre-registered blocks: REPL_BLOCK_BASE + key * REPL_ROUNDS + round
 * (REPL_CELL_MAX <= 50 < REPL_ROUNDS). */
enum { REPL_BLOCK_BASE = CELLS_REPL_BLOCK_BASE, REPL_ROUNDS = 64 };

/* Replacements a cell may take in all: retries.max_per_cell whatever the
 * time, then more within the run's extra time (< REPL_ROUNDS). */
enum { REPL_CELL_MAX = 50 };

/* A done window's wall time as stored: its warm-up and measured part. */
static double window_cost_s(const struct view_window *w)
{
	double t = 0;

	if (!w->done)
		return 0;
	if (isfinite(w->warmup_s) && w->warmup_s > 0)
		t += w->warmup_s;
	if (isfinite(w->started_at) && isfinite(w->ended_at) && w->ended_at > w->started_at)
		t += w->ended_at - w->started_at;
	return t;
}

/* Replacement windows before index i of the same cell as w[i]. */
static size_t repl_index(const struct view_window *w, size_t i)
{
	size_t j, n = 0;

	for (j = 0; j < i; j++)
		n += w[j].has_replaces && rate_same(w[j].rate, w[i].rate) &&
		     !strcmp(w[j].stage, w[i].stage) && !strcmp(w[j].impl, w[i].impl);
	return n;
}

/*
 * The run's extra replacement time (retries.extra_time_pct, docs/DESIGN.md
 * "Replacement windows"), from the stored windows so a resumed run
 * continues the same account: *budget_s is that percentage of the time
 * the pre-registered windows took so far, *spent_s the time of the
 * replacements beyond their cell's max_per_cell. 0 or -1.
 */
static int repl_extra_time(struct run_ctx *rc, double *budget_s, double *spent_s)
{
	struct view v;
	size_t i;

	*budget_s = *spent_s = 0;
	if (runner_view(rc, &v))
		return -1;
	for (i = 0; i < v.nwindows; i++) {
		const struct view_window *w = &v.windows[i];

		if (w->block >= REPL_BLOCK_BASE && !w->has_replaces)
			;   /* a replacement's partner (repl_add_partners) */
		else if (!w->has_replaces)
			*budget_s += window_cost_s(w);
		else if (repl_index(v.windows, i) >= (size_t)rc->spec->retries.max_per_cell)
			*spent_s += window_cost_s(w);
	}
	*budget_s *= rc->spec->retries.extra_time_pct / 100;
	view_release(&v);
	return 0;
}

/* May cell c take one more replacement? *acct: the extra time, read when
 * first needed (budget < 0: not yet). 1 yes, 0 no, -1 error. */
static int repl_allowed(struct run_ctx *rc, const struct cell *c, double acct[2])
{
	const struct spec_retries *R = &rc->spec->retries;

	if (c->replacements < (size_t)R->max_per_cell)
		return 1;
	if (!R->max_per_cell || !(R->extra_time_pct > 0) || c->replacements >= REPL_CELL_MAX)
		return 0;
	if (acct[0] < 0 && repl_extra_time(rc, &acct[0], &acct[1]))
		return -1;
	return acct[1] < acct[0];
}

/* The arm of b paired with b->arms[i] in a rerun ("X" and "X@base"), or
 * -1: none in this block (a run, or a rerun without --with-baseline). */
static int repl_partner(const struct block_spec *b, size_t i)
{
	const char *name = b->arms[i]->name;
	size_t k, n = strlen(name), nk;

	for (k = 0; k < b->n; k++) {
		const char *other = b->arms[k]->name;

		nk = strlen(other);
		if ((nk == n + 5 && !strncmp(other, name, n) && !strcmp(other + n, "@base")) ||
		    (n == nk + 5 && !strncmp(name, other, nk) && !strcmp(name + nk, "@base")))
			return (int)k;
	}
	return -1;
}

/* Add to a round of m arms the partner of every paired arm in it that is
 * not there yet, at the same rate, replacing nothing: compare pairs a
 * commit's window with its @base's of the same block, so a replacement
 * window alone in its block would be a window no pair can use (the
 * pooled test then short of the very pair the replacement was for).
 * Returns the new m. */
static size_t repl_add_partners(const struct block_spec *b, size_t m, struct arm **arms,
				double *rates, int64_t *repl)
{
	size_t j, k, n = m;

	for (j = 0; j < m; j++)
		for (k = 0; k < b->n; k++) {
			size_t l;
			int p;

			if (b->arms[k] != arms[j] || (p = repl_partner(b, k)) < 0)
				continue;
			for (l = 0; l < n && arms[l] != b->arms[p]; l++)
				;
			if (l < n)
				continue;
			arms[n] = b->arms[p];
			rates[n] = rates[j];
			repl[n++] = 0;
		}
	return n;
}

/* The block of window id in v, or -1. */
static int repl_block_of(const struct view *v, int64_t id)
{
	size_t k;

	for (k = 0; k < v->nwindows; k++)
		if (v->windows[k].id == id)
			return v->windows[k].block;
	return -1;
}

/* Is b's arm i to wait for a later round, its partner's cell being
 * replaced in this one (cand[p] set) for a window of another block? A
 * replacement round is one block, and compare pairs by block: X's window
 * void in block 1 and X@base's in block 2 lost two pairs, and replacing
 * both in one block would give back one (each cell whole again, the
 * paired test a pair short). So the two go to two rounds, each beside its
 * partner's fresh window (repl_add_partners); both void in one block lost
 * one pair, and one round restores it. */
static int repl_defer(const struct view *v, const struct block_spec *b, const int64_t *cand,
		      size_t i)
{
	int p = repl_partner(b, i);

	return p >= 0 && (size_t)p < i && cand[p] &&
	       repl_block_of(v, cand[p]) != repl_block_of(v, cand[i]);
}

/* Plan the next replacement round of b's cells: the arms whose cell has
 * fewer valid windows than pre-registered, a rejected window not yet
 * replaced and replacements left (repl_allowed), less those whose
 * partner's replacement comes first (repl_defer), and the partner of each
 * in a rerun (repl_add_partners). A round already planned (resume) is
 * read back as stored. Fills arms/rates/repl; returns how many, -1. */
static int repl_round(struct run_ctx *rc, const struct block_spec *b, int block,
		      struct arm **arms, double *rates, int64_t *repl)
{
	struct view v;
	double acct[2] = { -1, 0 };
	const struct cell **cell = xcalloc(b->n, sizeof(*cell));
	int64_t *cand = xcalloc(b->n, sizeof(*cand));
	size_t i, k, m = 0;
	int ok = 0;

	if (runner_view(rc, &v)) {
		free(cell);
		free(cand);
		return -1;
	}
	for (i = 0; i < b->n; i++)
		for (k = 0; k < v.nwindows; k++) {
			const struct view_window *w = &v.windows[k];

			if (w->block == block && !strcmp(w->stage, b->stage) &&
			    !strcmp(w->impl, b->arms[i]->name)) {
				arms[m] = b->arms[i];
				rates[m] = w->rate;
				repl[m++] = 0;
			}
		}
	if (m)
		goto out;
	for (i = 0; i < b->n; i++) {
		const struct cell *c = cells_find(&v.cells, b->stage, b->arms[i]->name,
						  block_rate(b, i));

		if (!c || !c->unreplaced || c->valid >= c->planned)
			continue;
		if ((ok = repl_allowed(rc, c, acct)) < 0)
			goto out;
		if (ok) {
			cell[i] = c;
			cand[i] = c->unreplaced;
		}
	}
	for (i = 0; i < b->n; i++)
		if (cand[i] && repl_defer(&v, b, cand, i))
			cand[i] = 0;
	for (i = 0; i < b->n; i++) {
		const struct cell *c = cell[i];

		if (!cand[i])
			continue;
		if (c->replacements < (size_t)rc->spec->retries.max_per_cell)
			store_event(&rc->st, rc->run_id, c->unreplaced, "replacement",
				    "%s: %s window %lld at %g req/s rejected; replaced in block %d"
				    " (%zu of %zu valid, replacement %zu of at most %d)",
				    b->arms[i]->name, b->stage, (long long)c->unreplaced, c->rate,
				    block, c->valid, c->planned, c->replacements + 1,
				    rc->spec->retries.max_per_cell);
		else
			store_event(&rc->st, rc->run_id, c->unreplaced, "replacement",
				    "%s: %s window %lld at %g req/s rejected; replaced in block %d"
				    " (%zu of %zu valid, replacement %zu: past max_per_cell %d, within"
				    " the run's extra time, %.0f of %.0f s spent)",
				    b->arms[i]->name, b->stage, (long long)c->unreplaced, c->rate,
				    block, c->valid, c->planned, c->replacements + 1,
				    rc->spec->retries.max_per_cell, acct[1], acct[0]);
		arms[m] = b->arms[i];
		rates[m] = block_rate(b, i);
		repl[m++] = c->unreplaced;
	}
	m = repl_add_partners(b, m, arms, rates, repl);
out:
	view_release(&v);
	free(cell);
	free(cand);
	return ok < 0 ? -1 : (int)m;
}

/* After b's cells ran their pre-registered blocks: replacement rounds
 * (docs/DESIGN.md "Replacement windows"), one window per short arm per
 * round, each round a block in a fresh counterbalanced order. */
int runner_replace_rejected(struct run_ctx *rc, const struct block_spec *b, int key)
{
	struct arm **arms = xcalloc(b->n, sizeof(*arms));
	double *rates = xcalloc(b->n, sizeof(*rates));
	int64_t *repl = xcalloc(b->n, sizeof(*repl));
	int round, ret = 0;

	for (round = 0; round < REPL_CELL_MAX && !ret; round++) {
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
		ret = runner_run_block(rc, &rb);
	}
	free(arms);
	free(rates);
	free(repl);
	return ret;
}

struct arm **runner_all_arms(struct run_ctx *rc)
{
	struct arm **v = xcalloc(rc->narms, sizeof(*v));
	size_t i;

	for (i = 0; i < rc->narms; i++)
		v[i] = &rc->arms[i];
	return v;
}

