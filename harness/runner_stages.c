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

#include "knee_run.h"
#include "plan.h"
#include "runner_internal.h"
#include "store_run.h"
#include "store_window.h"
#include "util.h"

enum { STAGE_ID_LADDER = 1, STAGE_ID_CONFIRM = 2, STAGE_ID_SOAK = 3 };

/* ------------------------------------------------------------- knees */

int runner_arm_knee(struct run_ctx *rc, struct arm *a, int max_rung, struct knee_result *k)
{
	/* No bootstrap: the runner needs the fit, not its interval. */
	int ret = knee_for_impl(&rc->st, rc->run_id, a->name, rc->spec, max_rung, 0, k);

	knee_result_release(k);
	return ret;
}

/* --------------------------------------------------------------- blocks */

/* Load the block's order from the database, or plan it (orders and
 * windows inserted in one transaction). arms_in: the arms of this block
 * (all arms, or one for soak). order receives indices into arms_in. */
static int block_order(struct run_ctx *rc, const char *stage, unsigned stage_id, int rung,
		       int block, double rate, struct arm **arms_in, size_t n, int *order)
{
	struct window_query q = { .stage = stage, .by_block = 1, .block = block };
	struct window_rows wins = { NULL, 0 };
	struct sbuf json = SBUF_INIT;
	struct block_row brow;   /* strings borrowed */
	size_t i, k;
	int ret = -1, found = 0;

	if (store_windows_load(&rc->st, rc->run_id, &q, &wins))
		goto out;
	for (k = 0; k < wins.n; k++) {
		const char *impl = wins.v[k].impl ? wins.v[k].impl : "";
		int slot = wins.v[k].slot;
		for (i = 0; i < n; i++)
			if (!strcmp(arms_in[i]->name, impl) && slot >= 0 && (size_t)slot < n) {
				order[slot] = (int)i;
				found++;
			}
	}
	if (found == (int)n) {
		ret = 0;
		goto out;
	}
	if (found) {
		error("%s: block %d of %s is partly planned; the database is inconsistent",
		      rc->st.path, block, stage);
		goto out;
	}

	plan_block_order(n, rc->spec->seed, stage_id, (unsigned)block, order);
	sbuf_adds(&json, "[");
	for (k = 0; k < n; k++) {
		if (k)
			sbuf_adds(&json, ",");
		sbuf_add_json_str(&json, arms_in[order[k]]->name);
	}
	sbuf_adds(&json, "]");
	if (store_begin(&rc->st))
		goto out;
	brow.run_id = rc->run_id;
	brow.stage = (char *)stage;
	brow.rung = rung;
	brow.block = block;
	brow.rate = rate;
	brow.order_json = json.buf;
	if (store_block_insert(&rc->st, &brow))
		goto rollback;
	for (k = 0; k < n; k++) {
		struct window_row w;
		int bad;

		window_row_init(&w);
		w.run_id = xstrdup(rc->run_id);
		w.stage = xstrdup(stage);
		w.rung = rung;
		w.block = block;
		w.slot = (int)k;
		w.impl = xstrdup(arms_in[order[k]]->name);
		w.rate = rate;
		w.state = WINDOW_PLANNED;
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
	window_rows_release(&wins);
	sbuf_release(&json);
	return ret;
}

/* Run every window of one block that is not done yet.
 * Returns 0, 1 (interrupted) or -1 (fatal). */
static int run_block(struct run_ctx *rc, const char *stage, unsigned stage_id, int rung,
		     int block, double rate, struct arm **arms_in, size_t n)
{
	struct window_query q = { .stage = stage, .by_block = 1, .block = block };
	struct window_rows wins = { NULL, 0 };
	int *order = xcalloc(n, sizeof(*order));
	size_t k, i;
	int ret = -1;

	if (block_order(rc, stage, stage_id, rung, block, rate, arms_in, n, order) ||
	    store_windows_load(&rc->st, rc->run_id, &q, &wins))
		goto out;
	for (k = 0; k < n; k++) {
		struct window_plan wp = { 0 };
		const struct window_row *row = NULL;

		for (i = 0; i < wins.n && !row; i++)
			if (wins.v[i].impl && !strcmp(wins.v[i].impl, arms_in[order[k]]->name))
				row = &wins.v[i];
		if (!row) {
			error("%s: window %s/%d/%s vanished", rc->st.path, stage, block,
			      arms_in[order[k]]->name);
			goto out;
		}
		if (row->state == WINDOW_DONE)
			continue;
		wp.id = row->id;
		wp.stage = stage;
		wp.rung = rung;
		wp.block = block;
		wp.slot = (int)k;
		wp.arm = arms_in[order[k]];
		wp.rate = rate;
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
		int all_crossed = 1;

		rc->cur_rung = r;
		for (rep = 0; rep < L->reps; rep++, block++) {
			ret = run_block(rc, "ladder", STAGE_ID_LADDER, r, block, rc->rungs[r],
					arms, rc->narms);
			if (ret)
				goto out;
		}
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
		nb = plan_bracket(rc->rungs, (size_t)top + 1, a->knee_known && a->knee.crossed,
				  a->knee.knee_rps, br);
		for (k = 0; k < nb; k++) {
			for (j = 0; j < nrates; j++)
				if (rates[j] == rc->rungs[br[k]])
					break;
			if (j == nrates)
				rates[nrates++] = rc->rungs[br[k]];
		}
	}
	qsort(rates, nrates, sizeof(*rates), cmp_double);
	for (i = 0; i < nrates; i++) {
		int rung = 0;
		for (j = 0; j < rc->nrungs; j++)
			if (rc->rungs[j] == rates[i])
				rung = (int)j;
		rc->cur_rung = rung;
		for (rep = 0; rep < C->reps; rep++) {
			ret = run_block(rc, "confirm", STAGE_ID_CONFIRM, rung,
					(int)i * C->reps + rep, rates[i], arms, rc->narms);
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

		if (rate < 1)
			rate = 1;
		ret = run_block(rc, "soak", STAGE_ID_SOAK, -1, (int)i, rate, &a, 1);
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
