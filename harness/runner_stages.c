/*
 * runner_stages: the ladder, confirm and soak stages as blocks of windows.
 *
 * Every decision here (how far the ladder climbs, where confirm runs, the
 * soak rates) is derived from the accepted windows in the database, so a
 * resumed run makes the same decisions and runs only what is missing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "runner_internal.h"
#include "util.h"

enum { STAGE_ID_LADDER = 1, STAGE_ID_CONFIRM = 2, STAGE_ID_SOAK = 3 };

/* ------------------------------------------------------------- knees */

int runner_arm_knee(struct run_ctx *rc, struct arm *a, int max_rung, struct knee_fit *fit)
{
	sqlite3_stmt *s;
	struct knee_rung *rungs = xcalloc(rc->nrungs, sizeof(*rungs));
	double **p99 = xcalloc(rc->nrungs, sizeof(*p99));
	double **w = xcalloc(rc->nrungs, sizeof(*w));
	size_t *alloc = xcalloc(rc->nrungs, sizeof(*alloc));
	size_t i;
	int ret = -1;

	for (i = 0; i < rc->nrungs; i++)
		rungs[i].rate = rc->rungs[i];
	s = store_prepare(&rc->st,
			  "SELECT rung, p99_ms, completed FROM windows WHERE run_id = ? AND impl = ?"
			  " AND stage = 'ladder' AND state = 'done' AND status = 'accepted'"
			  " AND rung <= ? AND p99_ms IS NOT NULL ORDER BY id");
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, max_rung);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t r = store_col_int(s, 0);
		size_t k;
		if (r < 0 || (size_t)r >= rc->nrungs)
			continue;
		k = rungs[r].nwin;
		if (k == alloc[r]) {
			size_t a1 = alloc[r];
			XGROW(p99[r], a1, k + 1);
			a1 = alloc[r];
			XGROW(w[r], a1, k + 1);
			alloc[r] = a1;
		}
		p99[r][k] = store_col_real(s, 1);
		w[r][k] = (double)store_col_int(s, 2);
		rungs[r].nwin++;
	}
	sqlite3_finalize(s);
	for (i = 0; i < rc->nrungs; i++) {
		rungs[i].p99_ms = p99[i];
		rungs[i].weight = w[i];
	}
	ret = stat_knee(rungs, rc->nrungs, rc->spec->slo.threshold_ms, fit);
out:
	for (i = 0; i < rc->nrungs; i++) {
		free(p99[i]);
		free(w[i]);
	}
	free(p99);
	free(w);
	free(alloc);
	free(rungs);
	return ret;
}

/* --------------------------------------------------------------- blocks */

/* Load the block's order from the database, or plan it (orders and
 * windows inserted in one transaction). arms_in: the arms of this block
 * (all arms, or one for soak). order receives indices into arms_in. */
static int block_order(struct run_ctx *rc, const char *stage, unsigned stage_id, int rung,
		       int block, double rate, struct arm **arms_in, size_t n, int *order)
{
	sqlite3_stmt *s = NULL;
	struct sbuf json = SBUF_INIT;
	struct store_row row;
	size_t i, k;
	int ret = -1, found = 0;

	s = store_prepare(&rc->st, "SELECT impl, slot FROM windows WHERE run_id = ? AND stage = ?"
				   " AND block = ? ORDER BY slot");
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, stage, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, block);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *impl = store_col_text(s, 0);
		int64_t slot = store_col_int(s, 1);
		for (i = 0; i < n; i++)
			if (!strcmp(arms_in[i]->name, impl) && slot >= 0 && (size_t)slot < n) {
				order[slot] = (int)i;
				found++;
			}
	}
	sqlite3_finalize(s);
	s = NULL;
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
	store_row_init(&row, "blocks");
	store_row_text(&row, "run_id", rc->run_id);
	store_row_text(&row, "stage", stage);
	store_row_int(&row, "rung", rung);
	store_row_int(&row, "block", block);
	store_row_real(&row, "rate", rate);
	store_row_text(&row, "order_json", json.buf);
	if (store_row_insert(&rc->st, &row, NULL))
		goto rollback;
	for (k = 0; k < n; k++) {
		store_row_init(&row, "windows");
		store_row_text(&row, "run_id", rc->run_id);
		store_row_text(&row, "stage", stage);
		store_row_int(&row, "rung", rung);
		store_row_int(&row, "block", block);
		store_row_int(&row, "slot", (int64_t)k);
		store_row_text(&row, "impl", arms_in[order[k]]->name);
		store_row_real(&row, "rate", rate);
		store_row_text(&row, "state", "planned");
		if (store_row_insert(&rc->st, &row, NULL))
			goto rollback;
	}
	if (store_commit(&rc->st))
		goto rollback;
	ret = 0;
	goto out;
rollback:
	store_rollback(&rc->st);
out:
	if (s)
		sqlite3_finalize(s);
	sbuf_release(&json);
	return ret;
}

/* Run every window of one block that is not done yet.
 * Returns 0, 1 (interrupted) or -1 (fatal). */
static int run_block(struct run_ctx *rc, const char *stage, unsigned stage_id, int rung,
		     int block, double rate, struct arm **arms_in, size_t n)
{
	int *order = xcalloc(n, sizeof(*order));
	sqlite3_stmt *s = NULL;
	size_t k;
	int ret = -1;

	if (block_order(rc, stage, stage_id, rung, block, rate, arms_in, n, order))
		goto out;
	for (k = 0; k < n; k++) {
		struct window_plan wp = { 0 };
		const char *state;

		s = store_prepare(&rc->st, "SELECT id, state FROM windows WHERE run_id = ?"
					   " AND stage = ? AND block = ? AND impl = ?");
		if (!s)
			goto out;
		sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, stage, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 3, block);
		sqlite3_bind_text(s, 4, arms_in[order[k]]->name, -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_ROW) {
			error("%s: window %s/%d/%s vanished", rc->st.path, stage, block,
			      arms_in[order[k]]->name);
			goto out;
		}
		wp.id = store_col_int(s, 0);
		state = store_col_text(s, 1);
		if (state && !strcmp(state, "done")) {
			sqlite3_finalize(s);
			s = NULL;
			continue;
		}
		sqlite3_finalize(s);
		s = NULL;
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
	if (s)
		sqlite3_finalize(s);
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
			struct knee_fit fit;
			if (runner_arm_knee(rc, &rc->arms[i], r, &fit) || !fit.crossed)
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
	sqlite3_stmt *s = store_prepare(&rc->st, "SELECT MAX(rung) FROM windows WHERE run_id = ?"
						 " AND stage = 'ladder' AND state = 'done'");
	int top = -1;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		top = (int)store_col_int(s, 0);
	sqlite3_finalize(s);
	return top;
}

static void store_knees(struct run_ctx *rc)
{
	size_t i;
	int top = ladder_top_rung(rc);

	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];
		struct store_row row;
		sqlite3_stmt *s;

		memset(&a->knee, 0, sizeof(a->knee));
		a->knee_known = top >= 0 && !runner_arm_knee(rc, a, top, &a->knee);
		if (!a->knee_known)
			continue;
		store_row_init(&row, "impls");
		store_row_real(&row, "knee_rps", a->knee.crossed ? a->knee.knee_rps : NAN);
		store_row_int(&row, "knee_crossed", a->knee.crossed);
		/* impls has a composite key: update by rowid. */
		s = store_prepare(&rc->st, "SELECT rowid FROM impls WHERE run_id = ? AND name = ?");
		if (!s)
			continue;
		sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, a->name, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			store_row_update(&rc->st, &row, "rowid", store_col_int(s, 0));
		sqlite3_finalize(s);
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
		double base = a->knee_known && a->knee.crossed ? a->knee.knee_rps : rc->rungs[top];
		double rate = round(base * rc->spec->soak.at_knee_fraction);

		if (rate < 1)
			rate = 1;
		ret = run_block(rc, "soak", STAGE_ID_SOAK, -1, (int)i, rate, &a, 1);
		if (ret)
			break;
	}
	return ret;
}

/* Did every arm get at least one accepted window in this stage? */
static int stage_measured(struct run_ctx *rc, const char *stage)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < rc->narms; i++) {
		sqlite3_stmt *s = store_prepare(&rc->st,
			"SELECT COUNT(*) FROM windows WHERE run_id = ? AND stage = ? AND impl = ?"
			" AND status = 'accepted'");
		if (!s)
			return 0;
		sqlite3_bind_text(s, 1, rc->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, stage, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, rc->arms[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_ROW || sqlite3_column_int(s, 0) == 0) {
			warning("%s: no accepted %s window for %s (see harness audit)",
				rc->run_id, stage, rc->arms[i].name);
			ok = 0;
		}
		sqlite3_finalize(s);
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
