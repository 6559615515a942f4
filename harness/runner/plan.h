/*
 * plan: which windows a run measures, and in what order.
 *
 * Orders within blocks are counterbalanced with a Williams design (a
 * balanced Latin square: every arm appears in every position equally often
 * and, for even N, precedes every other arm equally often; odd N needs the
 * square and its mirror image, 2N rows). Rows are used in an order shuffled
 * with the spec's seed; after all rows are used, a new shuffle starts.
 *
 * The stages' rates (ladder rungs, confirm brackets, soak rates) are pure
 * functions of the spec and the accepted windows, so `resume` re-derives
 * the same plan from the database.
 */
#ifndef HARNESS_PLAN_H
#define HARNESS_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Rows of the Williams design for n arms: n rows when n is even (or 1),
 * 2n when odd. rows[r * n + k] is the arm at position k of row r.
 * Returns the row count; *rows is malloc'd. */
size_t plan_williams(size_t n, int **rows);

/* The order of n arms in block `block` of a stage (stage_id separates the
 * stages' sequences), seeded. order[] receives n arm indices. */
void plan_block_order(size_t n, uint64_t seed, unsigned stage_id, unsigned block,
		      int *order);

/*
 * Bracketing rungs around a knee: given the ladder's rates and whether/where
 * an implementation crossed, the two rung indices to confirm at:
 *   crossed: the highest rung below the knee and the lowest at or above it
 *            (a knee at or below the first rung: rungs 0 and 1);
 *   not crossed: the two highest rungs measured.
 * Writes up to two indices; returns how many (1 when only one rung).
 */
size_t plan_bracket(const double *rates, size_t nrungs, int crossed,
		    double knee_rps, size_t out[2]);

/*
 * The worst-case window count of each stage (for `check` and the runner's
 * progress): every cell's pre-registered windows plus retries.max_per_cell
 * replacements each.
 *   ladder   nrungs x reps x narms
 *   refine   max_steps x reps x narms (every arm refined every step)
 *   confirm  min(2 narms, nrungs) rates x reps x narms (2 narms with
 *            refine: refined brackets need not be rungs); sequential
 *            (confirm.until): max_reps instead of reps
 *   confirm_f the rates confirm follows a knee its windows moved to
 *            (runner_stages.c), worst case: 2 narms x PLAN_CONFIRM_MOVES
 *            more rates (without refine: within the rungs there are) x
 *            reps x narms (not pre-registered: counted like replacements)
 *   soak     narms
 * Cells: ladder nrungs x narms, refine max_steps x narms, confirm
 * rates x narms, soak narms.
 */
/* Rounds confirm follows a knee its own windows moved (runner_stages.c). */
#define PLAN_CONFIRM_MOVES 2

struct spec;
struct plan_windows {
	size_t ladder, refine, confirm, soak;       /* pre-registered */
	size_t ladder_r, refine_r, confirm_r, soak_r; /* replacements, worst case */
	size_t confirm_f;                           /* confirm's follow-up rates, worst */
	size_t confirm_rates, confirm_follow_rates;
};
void plan_worst_windows(const struct spec *s, size_t nrungs, size_t narms,
			struct plan_windows *p);

/*
 * What a run of the stages in mask (PLAN_STAGE_* bits; the ladder's bit
 * brings refine when the spec has it) plans, for its progress line and
 * `status`: pre[PLAN_S_*] the pre-registered windows of each stage (0 for
 * a stage not run), and the most every replacement and confirm's
 * follow-up rates can add (returned).
 */
enum { PLAN_STAGE_LADDER = 1, PLAN_STAGE_CONFIRM = 2, PLAN_STAGE_SOAK = 4 };
enum { PLAN_S_LADDER, PLAN_S_REFINE, PLAN_S_CONFIRM, PLAN_S_SOAK, PLAN_NSTAGES };
size_t plan_run_windows(const struct spec *s, size_t nrungs, size_t narms, unsigned mask,
			size_t pre[PLAN_NSTAGES]);
/* PLAN_S_* of a stage's name ("ladder", "refine", "confirm", "soak"), or -1. */
int plan_stage_index(const char *stage);

#endif
