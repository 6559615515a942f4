/*
 * test_rate: one rung (rate.h). The same double is one rung, and so is a
 * rate read back from windows.csv (%.10g) or from the runner's %.17g
 * state; a ladder's neighbouring rungs and a refine point are never
 * merged, down to a step and a resolution far finer than any spec uses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/rate.h"
#include "t.h"

static double reprint(double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return strtod(buf, NULL);
}

TEST(text_round_trips_are_one_rung)
{
	double r = 500;
	int k;

	/* a ladder as spec_lookup.c computes it: start_rps * step^k */
	for (k = 0; k < 40; k++) {
		r = 500 * pow(1.2, k);
		CHECK(rate_same(r, r));
		CHECK(rate_same(r, reprint(r, "%.10g")));
		CHECK(rate_same(reprint(r, "%.10g"), r));
		CHECK(rate_same(r, reprint(r, "%.17g")));
	}
	CHECK(rate_same(1244.16, 1036.8 * 1.2));   /* typed vs computed */
	CHECK(rate_same(0.5, 0.5));
}

TEST(distinct_rungs_stay_apart)
{
	double steps[] = { 1.0001, 1.01, 1.2, 2 };
	size_t i;
	int k;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		for (k = 0; k < 40; k++) {
			double a = 100 * pow(steps[i], k), b = 100 * pow(steps[i], k + 1);

			CHECK(!rate_same(a, b));
			/* refine: the geometric middle of a bracket */
			CHECK(!rate_same(a, sqrt(a * b)) && !rate_same(sqrt(a * b), b));
		}
	CHECK(!rate_same(1000, 1000.01));          /* 1e-5 relative */
	CHECK(!rate_same(1000, NAN) && !rate_same(NAN, NAN));
}

int main(void)
{
	RUN(text_round_trips_are_one_rung);
	RUN(distinct_rungs_stay_apart);
	return t_done();
}
