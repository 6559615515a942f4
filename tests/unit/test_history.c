/* test_history: the step rule of `harness history` (history.h) on series
 * of intervals: a lasting step, one odd run, a step on the last run, drift
 * inside the intervals, gaps, and the direction per metric. */
#include <stdlib.h>

#include "report/history.h"
#include "t.h"
#include "base/util.h"

static struct hval pt(double v, double half)
{
	struct hval h = { v, v - half, v + half, 1, 3 };
	return h;
}

/* Steps of a series given as values with +-half intervals (NAN: a gap). */
static size_t steps(const double *v, size_t n, double half, enum hist_metric m,
		    struct hist_impl *im)
{
	struct hval *h = xcalloc(n, sizeof(*h));
	const struct hval **p = xcalloc(n, sizeof(*p));
	size_t i;

	memset(im, 0, sizeof(*im));
	for (i = 0; i < n; i++) {
		h[i] = pt(v[i], half);
		p[i] = isnan(v[i]) ? NULL : &h[i];
	}
	history_steps(im, m, 0, p, n, 0.05);
	free(h);
	free(p);
	return im->nsteps;
}

TEST(lasting_step_flags_its_first_run_only)
{
	const double v[] = { 50, 51, 80, 81, 79 };
	struct hist_impl im;

	CHECK(steps(v, 5, 3, HM_COST, &im) == 1);
	CHECK(im.steps[0].run == 2 && im.steps[0].regression && im.steps[0].confirmed);
	CHECK(im.steps[0].from == 51 && im.steps[0].to == 80);
	free(im.steps);
}

TEST(one_odd_run_is_no_step)
{
	const double v[] = { 50, 51, 80, 50, 49 };
	struct hist_impl im;

	CHECK(steps(v, 5, 3, HM_COST, &im) == 0);
	free(im.steps);
}

TEST(last_run_step_unconfirmed)
{
	const double v[] = { 50, 51, 49, 80 };
	struct hist_impl im;

	CHECK(steps(v, 4, 3, HM_MEMORY, &im) == 1);
	CHECK(im.steps[0].run == 3 && !im.steps[0].confirmed);
	free(im.steps);
}

TEST(drift_inside_the_intervals_is_no_step)
{
	/* 5 units a run, intervals +-3: each pair overlaps */
	const double v[] = { 50, 55, 60, 65, 70 };
	struct hist_impl im;

	CHECK(steps(v, 5, 3, HM_COST, &im) == 0);
	free(im.steps);
}

TEST(knee_down_is_a_regression_up_an_improvement)
{
	const double down[] = { 320, 323, 165, 164, 166 }, up[] = { 165, 164, 320, 323 };
	struct hist_impl im;

	CHECK(steps(down, 5, 8, HM_KNEE, &im) == 1 && im.steps[0].regression);
	free(im.steps);
	CHECK(steps(up, 4, 8, HM_KNEE, &im) == 1 && !im.steps[0].regression);
	free(im.steps);
}

TEST(gaps_compare_with_the_last_run_that_has_a_value)
{
	const double v[] = { 50, NAN, 80, 81 };
	struct hist_impl im;

	CHECK(steps(v, 4, 3, HM_COST, &im) == 1 && im.steps[0].run == 2);
	free(im.steps);
}

TEST(a_floor_to_a_point_below_it_is_a_step)
{
	struct hval floor1 = { 400, 400, INFINITY, 1, 9 }, floor2 = floor1;
	struct hval p3 = pt(164, 4), p4 = pt(166, 4);
	const struct hval *v[] = { &floor1, &floor2, &p3, &p4 };
	struct hist_impl im;

	memset(&im, 0, sizeof(im));
	history_steps(&im, HM_KNEE, 0, v, 4, 0.05);
	CHECK(im.nsteps == 1 && im.steps[0].run == 2 && im.steps[0].regression);
	free(im.steps);
}

TEST(a_change_within_the_margin_is_no_step)
{
	/* intervals +-0.5 disjoint, but 3% moves: compare's "no change" */
	const double v[] = { 50, 50.2, 51.5, 51.6, 51.4 };
	struct hist_impl im;

	CHECK(steps(v, 5, 0.5, HM_COST, &im) == 0);
	free(im.steps);
}

int main(void)
{
	RUN(lasting_step_flags_its_first_run_only);
	RUN(one_odd_run_is_no_step);
	RUN(last_run_step_unconfirmed);
	RUN(drift_inside_the_intervals_is_no_step);
	RUN(knee_down_is_a_regression_up_an_improvement);
	RUN(gaps_compare_with_the_last_run_that_has_a_value);
	RUN(a_floor_to_a_point_below_it_is_a_step);
	RUN(a_change_within_the_margin_is_no_step);
	return t_done();
}
