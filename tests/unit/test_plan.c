/* Unit tests of plan: Williams designs are balanced; orders are seeded. */
#include <stdlib.h>

#include "runner/plan.h"
#include "spec/spec.h"
#include "t.h"

/* Every arm appears in every position equally often, and every ordered
 * pair (a immediately before b, a != b) appears equally often: the two
 * defining properties of a Williams design (Williams 1949). */
static void check_balanced(size_t n)
{
	int *rows = NULL;
	size_t nrows = plan_williams(n, &rows), r, k;
	int pos[8][8] = { { 0 } }, pair[8][8] = { { 0 } };

	for (r = 0; r < nrows; r++)
		for (k = 0; k < n; k++) {
			pos[rows[r * n + k]][k]++;
			if (k + 1 < n)
				pair[rows[r * n + k]][rows[r * n + k + 1]]++;
		}
	for (r = 0; r < n; r++)
		for (k = 0; k < n; k++) {
			CHECK(pos[r][k] == (int)(nrows / n));
			if (r != k && n > 1)
				CHECK(pair[r][k] == (int)(nrows * (n - 1) / (n * (n - 1))));
		}
	free(rows);
}

TEST(williams_is_balanced_for_2_to_6_arms)
{
	size_t n;

	for (n = 2; n <= 6; n++)
		check_balanced(n);
}

TEST(williams_row_counts)
{
	int *rows = NULL;

	CHECK(plan_williams(2, &rows) == 2);
	CHECK(rows[0] == 0 && rows[1] == 1 && rows[2] == 1 && rows[3] == 0);
	free(rows);
	CHECK(plan_williams(3, &rows) == 6);
	free(rows);
	CHECK(plan_williams(4, &rows) == 4);
	free(rows);
}

/* One implementation is a valid spec: its design is one row of one arm,
 * and every block's order is that arm. */
TEST(one_arm)
{
	int *rows = NULL, order[1];
	unsigned b;

	CHECK(plan_williams(1, &rows) == 1);
	CHECK(rows[0] == 0);
	free(rows);
	for (b = 0; b < 20; b++) {
		order[0] = -1;
		plan_block_order(1, 12345, 1, b, order);
		CHECK(order[0] == 0);
	}
}

TEST(block_orders_are_seeded_and_counterbalanced)
{
	int a[3], b[3], first[3] = { 0 };
	unsigned blk;

	plan_block_order(3, 42, 1, 5, a);
	plan_block_order(3, 42, 1, 5, b);
	CHECK(!memcmp(a, b, sizeof(a)));
	/* Over one full cycle of 6 rows each arm is first exactly twice. */
	for (blk = 0; blk < 6; blk++) {
		plan_block_order(3, 42, 1, blk, a);
		first[a[0]]++;
	}
	CHECK(first[0] == 2 && first[1] == 2 && first[2] == 2);
}

TEST(brackets)
{
	double rates[] = { 500, 600, 720, 864 };
	size_t out[2];

	CHECK(plan_bracket(rates, 4, 1, 650, out) == 2);
	CHECK(out[0] == 1 && out[1] == 2);
	CHECK(plan_bracket(rates, 4, 1, 400, out) == 2);
	CHECK(out[0] == 0 && out[1] == 1);
	CHECK(plan_bracket(rates, 4, 0, 0, out) == 2);
	CHECK(out[0] == 2 && out[1] == 3);
	CHECK(plan_bracket(rates, 4, 1, 720, out) == 2);
	CHECK(out[0] == 1 && out[1] == 2);
	CHECK(plan_bracket(rates, 1, 1, 720, out) == 1);
}

/* check's worst case: pre-registered windows per stage, and every cell's
 * max_per_cell replacements on top. */
TEST(worst_case_windows)
{
	struct spec s;
	struct plan_windows p;

	memset(&s, 0, sizeof(s));
	s.ladder.reps = 3;
	s.retries.max_per_cell = 2;
	s.confirm.present = 1;
	s.confirm.reps = 10;
	s.soak.present = 1;
	plan_worst_windows(&s, 8, 2, &p);
	CHECK(p.ladder == 8 * 3 * 2 && p.ladder_r == 8 * 2 * 2);
	/* 2 rates an arm, then up to 2 x PLAN_CONFIRM_MOVES more an arm where
	 * confirm's windows moved the knee: 8 more, but 8 rungs in all */
	CHECK(p.confirm_rates == 4 && p.confirm == 4 * 10 * 2);
	CHECK(p.confirm_follow_rates == 4 && p.confirm_f == 4 * 10 * 2);
	CHECK(p.confirm_r == 8 * 2 * 2);
	CHECK(p.refine == 0 && p.refine_r == 0);
	CHECK(p.soak == 2 && p.soak_r == 2 * 2);
	/* confirm rates are capped by the rungs without refine, not with it
	 * (refined brackets need not be rungs) */
	plan_worst_windows(&s, 3, 2, &p);
	CHECK(p.confirm_rates == 3 && p.confirm_follow_rates == 0);
	s.refine.present = 1;
	s.refine.reps = 3;
	s.refine.max_steps = 4;
	plan_worst_windows(&s, 3, 2, &p);
	CHECK(p.confirm_rates == 4);
	CHECK(p.confirm_follow_rates == 8); /* refine points, steps above a floor */
	CHECK(p.refine == 4 * 3 * 2 && p.refine_r == 4 * 2 * 2);
	/* sequential confirm: max_reps blocks per rate at worst */
	s.confirm.until.present = 1;
	s.confirm.until.max_reps = 30;
	plan_worst_windows(&s, 3, 2, &p);
	CHECK(p.confirm == 4 * 30 * 2 && p.confirm_f == 8 * 30 * 2 && p.confirm_r == 12 * 2 * 2);
}

int main(void)
{
	RUN(williams_is_balanced_for_2_to_6_arms);
	RUN(williams_row_counts);
	RUN(one_arm);
	RUN(block_orders_are_seeded_and_counterbalanced);
	RUN(brackets);
	RUN(worst_case_windows);
	return t_done();
}
