/* test_history: the step rule of `harness history` (history.h) on series
 * of intervals (a table of series: a lasting step, one odd run, a step on
 * the last run, drift inside the intervals, gaps, a change within the
 * margin, and the direction per metric), and a floor followed by a point. */
#include <stdlib.h>

#include "report/history.h"
#include "t.h"
#include "base/util.h"

static struct hval pt(double v, double half)
{
	struct hval h = { v, v - half, v + half, 1, 3 };
	return h;
}

/* The steps of a series given as values with +-half intervals (NAN: a
 * gap), in words: "run R regression|improvement FROM -> TO" and
 * " (unconfirmed)" for each, "; " between; "" for none. */
static const char *steps(const double *v, size_t n, double half, enum hist_metric m)
{
	static char text[256];
	struct hval *h = xcalloc(n, sizeof(*h));
	const struct hval **p = xcalloc(n, sizeof(*p));
	struct hist_impl im;
	size_t i, len = 0;

	memset(&im, 0, sizeof(im));
	for (i = 0; i < n; i++) {
		h[i] = pt(v[i], half);
		p[i] = isnan(v[i]) ? NULL : &h[i];
	}
	history_steps(&im, m, 0, p, n, 0.05);
	text[0] = 0;
	for (i = 0; i < im.nsteps && len < sizeof(text); i++) {
		const struct hist_step *s = &im.steps[i];

		len += (size_t)snprintf(text + len, sizeof(text) - len, "%srun %zu %s %g -> %g%s",
					i ? "; " : "", s->run,
					s->regression ? "regression" : "improvement", s->from, s->to,
					s->confirmed ? "" : " (unconfirmed)");
	}
	free(im.steps);
	free(h);
	free(p);
	return text;
}

/* A series, its intervals' half width, its metric and its steps. */
static const struct series {
	const char *name;
	double v[5];
	size_t n;
	double half;
	enum hist_metric m;
	const char *steps;
} series[] = {
	{ "a lasting step flags its first run only", { 50, 51, 80, 81, 79 }, 5, 3, HM_COST,
	  "run 2 regression 51 -> 80" },
	{ "one odd run is no step", { 50, 51, 80, 50, 49 }, 5, 3, HM_COST, "" },
	{ "a step on the last run is unconfirmed", { 50, 51, 49, 80 }, 4, 3, HM_MEMORY,
	  "run 3 regression 49 -> 80 (unconfirmed)" },
	/* 5 units a run, intervals +-3: each pair overlaps */
	{ "drift inside the intervals is no step", { 50, 55, 60, 65, 70 }, 5, 3, HM_COST, "" },
	{ "a knee down is a regression", { 320, 323, 165, 164, 166 }, 5, 8, HM_KNEE,
	  "run 2 regression 323 -> 165" },
	{ "a knee up is an improvement", { 165, 164, 320, 323 }, 4, 8, HM_KNEE,
	  "run 2 improvement 164 -> 320" },
	{ "a gap compares with the last run that has a value", { 50, NAN, 80, 81 }, 4, 3,
	  HM_COST, "run 2 regression 50 -> 80" },
	/* intervals +-0.5 disjoint, but 3% moves: compare's "no change" */
	{ "a change within the margin is no step", { 50, 50.2, 51.5, 51.6, 51.4 }, 5, 0.5,
	  HM_COST, "" },
};

TEST(series_steps)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(series); i++) {
		const struct series *c = &series[i];
		const char *got = steps(c->v, c->n, c->half, c->m);

		if (strcmp(got, c->steps))
			printf("#   %s:\n", c->name);
		CHECK_STR(got, c->steps);
	}
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

int main(void)
{
	RUN(series_steps);
	RUN(a_floor_to_a_point_below_it_is_a_step);
	return t_done();
}
