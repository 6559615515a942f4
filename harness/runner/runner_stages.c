/*
 * runner_stages: the ladder, refine, confirm and soak stages as blocks of
 * windows (runner_blocks.c runs them).
 *
 * Every decision here (how far the ladder climbs, where confirm runs, the
 * soak rates) is derived from the valid windows in the database through
 * the knee (knee.h, at the spec's SLO percentile), so a resumed run makes
 * the same decisions and runs only what is missing. Each reads the run
 * view (model/view.h, VIEW_DECIDE), rebuilt from the database when it is
 * made: the windows and their knee values as report, compare and status
 * read them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/cells.h"
#include "model/view.h"
#include "runner/plan.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "base/util.h"

/* ------------------------------------------------------------- knees */

/* The knee of an arm (knee.h, the spec's SLO percentile) from its valid
 * windows in v: ladder rungs <= max_rung, and every refine and confirm
 * window. No bootstrap: the runner needs the fit, not its interval; k's
 * rung table is released (scalars only). */
static void arm_knee(const struct view *v, const struct arm *a, int max_rung,
		     struct knee_result *k)
{
	view_knee_fit(v, a->name, max_rung, 0, k);
	knee_result_release(k);
}

/* --------------------------------------------------------------- stages */

static int ladder(struct run_ctx *rc)
{
	struct arm **arms = runner_all_arms(rc);
	const struct spec_ladder *L = &rc->spec->ladder;
	int r, rep, block = 0, past = -1, ret = 0;
	size_t i;

	rc->cur_stage = "ladder";
	for (r = 0; r < (int)rc->nrungs; r++) {
		struct block_spec b = { "ladder", STAGE_ID_LADDER, r, 0, rc->rungs[r], arms,
					rc->narms, NULL, NULL };
		struct view v;
		int all_crossed = 1;

		rc->cur_rung = r;
		for (rep = 0; rep < L->reps; rep++, block++) {
			b.block = block;
			ret = runner_run_block(rc, &b);
			if (ret)
				goto out;
		}
		ret = runner_replace_rejected(rc, &b, r);
		if (ret)
			goto out;
		if (runner_view(rc, &v))
			all_crossed = 0;
		for (i = 0; i < rc->narms && all_crossed; i++) {
			struct knee_result k;

			/* A failed window (a wall, errors, death) is a crossing
			 * when the rung's pooled evidence says so (knee.h). */
			arm_knee(&v, &rc->arms[i], r, &k);
			all_crossed = k.crossed;
		}
		view_release(&v);
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

/* The highest ladder rung that has a done window in v (the ladder may
 * have stopped early); -1 when none. */
static int view_top_rung(const struct view *v)
{
	size_t i;
	int top = -1;

	for (i = 0; i < v->nwindows; i++)
		if (v->windows[i].done && !strcmp(v->windows[i].stage, "ladder") &&
		    v->windows[i].rung > top)
			top = v->windows[i].rung;
	return top;
}

/* The same from the database: -1 when none, or it cannot be read. */
static int ladder_top_rung(struct run_ctx *rc)
{
	struct view v;
	int top;

	if (runner_view(rc, &v))
		return -1;
	top = view_top_rung(&v);
	view_release(&v);
	return top;
}

static void store_knees(struct run_ctx *rc)
{
	struct view v;
	size_t i;
	int top = -1, have = !runner_view(rc, &v);

	if (have)
		top = view_top_rung(&v);
	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];

		memset(&a->knee, 0, sizeof(a->knee));
		a->knee_known = top >= 0;
		if (!a->knee_known)
			continue;
		arm_knee(&v, a, top, &a->knee);
		store_impl_set_knee(&rc->st, rc->run_id, a->name,
				    a->knee.crossed ? a->knee.knee_rps : NAN, a->knee.crossed,
				    knee_kind_name(a->knee.kind), a->knee.lo_rps, a->knee.hi_rps,
				    a->knee.reason[0] ? a->knee.reason : NULL);
	}
	if (have)
		view_release(&v);
}

/* ---------------------------------------------------------------- refine */

/* Is there any window of this stage (planned or done) in v? */
static int stage_started(const struct view *v, const char *stage)
{
	size_t i = 0;

	while (i < v->nwindows && strcmp(v->windows[i].stage, stage))
		i++;
	return i < v->nwindows;
}

/* The points of refine step `step`: as stored when its first block is
 * planned (resume); else, while confirm has not started, every arm whose
 * knee crossed with a finite bracket (lo, hi] wider than resolution_pct
 * gets the geometric midpoint sqrt(lo * hi). Returns how many, -1. */
static int refine_points(struct run_ctx *rc, int top, int step, struct arm **arms,
			 double *rates)
{
	const struct spec_refine *R = &rc->spec->refine;
	struct view v;
	size_t i, k;
	int m = 0, stored;

	if (runner_view(rc, &v))
		return -1;
	for (i = 0; i < rc->narms; i++)
		for (k = 0; k < v.nwindows; k++) {
			const struct view_window *w = &v.windows[k];

			if (!strcmp(w->stage, "refine") && w->block == step * R->reps &&
			    !strcmp(w->impl, rc->arms[i].name)) {
				arms[m] = &rc->arms[i];
				rates[m++] = w->rate;
			}
		}
	stored = m;
	/* A refine step is planned only from a finished ladder and refine:
	 * once confirm started, its windows would move the brackets. */
	for (i = 0; !stored && !stage_started(&v, "confirm") && i < rc->narms; i++) {
		struct knee_result k;
		double mid;

		arm_knee(&v, &rc->arms[i], top, &k);
		if (!k.crossed || !isfinite(k.lo_rps) || !isfinite(k.hi_rps) || k.lo_rps <= 0 ||
		    k.hi_rps <= k.lo_rps * (1 + R->resolution_pct / 100))
			continue;
		mid = sqrt(k.lo_rps * k.hi_rps);
		if (round(mid) > k.lo_rps && round(mid) < k.hi_rps)
			mid = round(mid);   /* a whole rate when one fits */
		arms[m] = &rc->arms[i];
		rates[m++] = mid;
	}
	view_release(&v);
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
			ret = runner_run_block(rc, &b);
		}
		if (!ret)
			ret = runner_replace_rejected(rc, &b, step);
	}
	free(arms);
	free(rates);
	return ret;
}

/* --------------------------------------------------------------- confirm */

/* The confirm rates in the order they were planned: index i runs blocks
 * i x reps + rep (and its replacement and sequential blocks, keyed by i). */
struct rate_list {
	double *v;
	size_t n, alloc;
};

static int has_rate(const struct rate_list *l, double r)
{
	size_t j;

	for (j = 0; j < l->n; j++)
		if (rate_same(l->v[j], r))
			return 1;
	return 0;
}

static void add_rate(struct rate_list *l, double r)
{
	if (has_rate(l, r))
		return;
	XGROW(l->v, l->alloc, l->n + 1);
	l->v[l->n++] = r;
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
		ret = runner_run_block(rc, b);
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

/*
 * Confirm follows the decision (docs/DESIGN.md "Confirm"): confirm's
 * windows are knee evidence and may move the crossing off the rates it
 * ran at (ten windows at a rate refine saw hold three times can show it
 * crossing, or the next rate up holding). After each round the knee is
 * refitted, and a crossed knee's bracketing rate that confirm has not run
 * (for a knee that no longer crosses, a rate above its highest one:
 * floor_next_rate)
 * gets its own confirm blocks, up to 2 x (1 + PLAN_CONFIRM_MOVES) rates an
 * arm in all (plan.h): so the knee is decided by rungs of confirm.reps
 * valid windows (inferential) unless windows stayed void or the knee kept
 * moving.
 */

/* The confirm rates already planned, by index (resume continues the list
 * the run made, not one refitted from confirm's own windows). */
static int confirm_stored_rates(struct run_ctx *rc, struct rate_list *l)
{
	struct view v;
	size_t i, idx;
	int ret = 0;

	if (runner_view(rc, &v))
		return -1;
	for (i = 0; i < v.nwindows; i++) {
		const struct view_window *w = &v.windows[i];

		if (strcmp(w->stage, "confirm") || w->block < 0 || w->block >= CELLS_SEQ_BLOCK_BASE)
			continue;
		idx = (size_t)w->block / (size_t)rc->spec->confirm.reps;
		XGROW(l->v, l->alloc, idx + 1);
		while (l->n <= idx)
			l->v[l->n++] = NAN;
		l->v[idx] = w->rate;
	}
	for (i = 0; i < l->n && !ret; i++)
		if (isnan(l->v[i]))
			ret = error("%s: confirm rate %zu of run %s has no block; the database is "
				    "inconsistent", rc->st.path, i, rc->run_id);
	view_release(&v);
	return ret;
}

/* The first round: each arm's bracket, sorted. */
static void confirm_first_rates(struct run_ctx *rc, int top, struct rate_list *l)
{
	size_t i, k, nb, br[2], first = l->n;

	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];

		/* After refine: the refined bracket itself. */
		if (rc->spec->refine.present && a->knee_known && a->knee.crossed &&
		    isfinite(a->knee.lo_rps) && isfinite(a->knee.hi_rps)) {
			add_rate(l, a->knee.lo_rps);
			add_rate(l, a->knee.hi_rps);
			continue;
		}
		nb = plan_bracket(rc->rungs, (size_t)top + 1, a->knee_known && a->knee.crossed,
				  a->knee.knee_rps, br);
		for (k = 0; k < nb; k++)
			add_rate(l, rc->rungs[br[k]]);
	}
	qsort(l->v + first, l->n - first, sizeof(*l->v), cmp_double);
}

/* A knee that confirm's windows un-crossed (it held at every valid rate,
 * and the ladder or refine had stopped at the crossing they disproved):
 * where the decision now is, the next ladder rung above its highest rate,
 * or with refine no further than resolution_pct above it (a whole req/s);
 * NAN when the ladder has no rung above (never past max_rps). */
static double floor_next_rate(const struct run_ctx *rc, const struct knee_result *k)
{
	const struct spec_refine *R = &rc->spec->refine;
	double hold = k->highest_rung_rps, step;
	size_t j;

	if (k->kind != KNEE_FLOOR || !isfinite(hold))
		return NAN;
	for (j = 0; j < rc->nrungs; j++)
		if (rc->rungs[j] > hold * (1 + 1e-9))
			break;
	if (j == rc->nrungs)
		return NAN;
	step = round(hold * (1 + R->resolution_pct / 100));
	return R->present && step > hold && step < rc->rungs[j] ? step : rc->rungs[j];
}

/* After a round: the refitted knees' bracketing rates confirm has not
 * run (a floor's next rung up), appended sorted (an event each) while the
 * list is under max; how many. */
static size_t confirm_follow(struct run_ctx *rc, struct rate_list *l, size_t max)
{
	size_t i, k, first = l->n;

	store_knees(rc);
	for (i = 0; i < rc->narms; i++) {
		const struct arm *a = &rc->arms[i];
		double br[2] = { a->knee.lo_rps, a->knee.hi_rps };

		if (a->knee_known && !a->knee.crossed)
			br[1] = floor_next_rate(rc, &a->knee);
		if (!a->knee_known)
			continue;
		for (k = 0; k < 2; k++) {
			if (!isfinite(br[k]) || has_rate(l, br[k]) || l->n >= max)
				continue;
			add_rate(l, br[k]);
			if (a->knee.crossed)
				store_event(&rc->st, rc->run_id, -1, "confirm_follow",
					    "%s: with confirm's windows the knee's bracket is (%g, %g]"
					    " req/s; confirm runs at %g req/s too", a->name,
					    a->knee.lo_rps, a->knee.hi_rps, br[k]);
			else
				store_event(&rc->st, rc->run_id, -1, "confirm_follow",
					    "%s: with confirm's windows the knee held at every rate up to"
					    " %g req/s; confirm runs above it, at %g req/s", a->name,
					    a->knee.highest_rung_rps, br[k]);
		}
	}
	qsort(l->v + first, l->n - first, sizeof(*l->v), cmp_double);
	return l->n - first;
}

static void confirm_block(struct run_ctx *rc, struct arm **arms, double rate, int key,
			  struct block_spec *b)
{
	struct block_spec x = { "confirm", STAGE_ID_CONFIRM, -1, key * rc->spec->confirm.reps,
				rate, arms, rc->narms, NULL, NULL };
	size_t j;

	for (j = 0; j < rc->nrungs; j++)
		if (rate_same(rc->rungs[j], rate))
			x.rung = (int)j;
	*b = x;
}

/* Plan the first block of confirm rates [from, l->n) before any of them
 * runs, so a resumed run reads the whole round back (confirm_stored_rates). */
static int confirm_plan_round(struct run_ctx *rc, struct arm **arms, const struct rate_list *l,
			      size_t from)
{
	int *order = xcalloc(rc->narms, sizeof(*order));
	struct block_spec b;
	int ret = 0;

	for (; from < l->n && !ret; from++) {
		confirm_block(rc, arms, l->v[from], (int)from, &b);
		ret = runner_block_order(rc, &b, order);
	}
	free(order);
	return ret;
}

/* One confirm rate, index key: reps blocks, replacements, sequential. */
static int confirm_at(struct run_ctx *rc, struct arm **arms, double rate, int key)
{
	const struct spec_confirm *C = &rc->spec->confirm;
	struct block_spec b;
	int rep, ret = 0;

	confirm_block(rc, arms, rate, key, &b);
	rc->cur_rung = b.rung;
	for (rep = 0; rep < C->reps && !ret; rep++) {
		b.block = key * C->reps + rep;
		ret = runner_run_block(rc, &b);
	}
	if (!ret)
		ret = runner_replace_rejected(rc, &b, key);
	if (!ret && C->until.present)
		ret = sequential(rc, &b, key);
	return ret;
}

static int confirm(struct run_ctx *rc)
{
	struct arm **arms = runner_all_arms(rc);
	struct rate_list l = { NULL, 0, 0 };
	size_t done = 0, max_rates;
	int top = ladder_top_rung(rc), ret = 0;

	rc->cur_stage = "confirm";
	if (top < 0) {
		warning("confirm: the ladder measured nothing; skipping confirm");
		ret = 1;
		goto out;
	}
	if (confirm_stored_rates(rc, &l)) {
		ret = -1;
		goto out;
	}
	if (!l.n)
		confirm_first_rates(rc, top, &l);
	/* plan.h's worst case */
	max_rates = 2 * rc->narms * (1 + PLAN_CONFIRM_MOVES);
	for (;;) {
		ret = confirm_plan_round(rc, arms, &l, done);
		for (; done < l.n && !ret; done++)
			ret = confirm_at(rc, arms, l.v[done], (int)done);
		/* past max_rates the rest stays unconfirmed: the knee kept moving */
		if (ret || !confirm_follow(rc, &l, max_rates))
			break;
	}
out:
	free(l.v);
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
		ret = runner_run_block(rc, &b);
		if (!ret)
			ret = runner_replace_rejected(rc, &b, (int)i);
		if (ret)
			break;
	}
	return ret;
}

/* Did every arm get at least one valid (accepted or failed) window in
 * this stage? A failed window is a measurement: above the SLO. */
static int stage_measured(struct run_ctx *rc, const char *stage)
{
	struct view v;
	size_t i, k, valid;
	int ok = 1;

	if (runner_view(rc, &v))
		return 0;
	for (i = 0; i < rc->narms; i++) {
		for (k = 0, valid = 0; k < v.nwindows; k++)
			valid += v.windows[k].valid && !strcmp(v.windows[k].stage, stage) &&
				 !strcmp(v.windows[k].impl, rc->arms[i].name);
		if (!valid) {
			warning("%s: no valid %s window for %s (see harness audit)",
				rc->run_id, stage, rc->arms[i].name);
			ok = 0;
		}
	}
	view_release(&v);
	return ok;
}

int runner_stages(struct run_ctx *rc)
{
	int ret = 0, negative = 0;

	if ((rc->stages & STAGE_SATURATION) && rc->spec->saturation.present) {
		ret = runner_saturation(rc);
		if (ret)
			goto out;
	}
	if (rc->stages & STAGE_LADDER) {
		ret = ladder(rc);
		if (ret)
			goto out;
		if (!stage_measured(rc, "ladder"))
			negative = rc->unmeasured = 1;
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
		if (ret == 1)
			negative = rc->answer_negative = 1;
		else if (!stage_measured(rc, "confirm"))
			negative = rc->unmeasured = 1;
		ret = 0;
	}
	if ((rc->stages & STAGE_SOAK) && rc->spec->soak.present) {
		ret = soak(rc);
		if (ret < 0 || (ret == 1 && runner_stop))
			goto out;
		if (ret == 1)
			negative = rc->answer_negative = 1;
		else if (!stage_measured(rc, "soak"))
			negative = rc->unmeasured = 1;
		ret = 0;
	}
out:
	if (ret < 0)
		return EXIT_ENV;
	if (ret == 1)
		return EXIT_NEGATIVE;
	return negative ? EXIT_NEGATIVE : EXIT_OK;
}
