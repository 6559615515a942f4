/*
 * test_run_quality: the run quality line from window statuses, reasons
 * and the load averages: counts add up, the top rejecting gate wins by
 * count then by name, failed windows are not "rejected", unknown loads
 * print as "?".
 */
#include <math.h>
#include <stdlib.h>

#include "model/run_quality.h"
#include "t.h"
#include "base/util.h"

/* run_quality_format(q) reads want. */
static void check_format(const struct run_quality *q, const char *want)
{
	struct sbuf sb = SBUF_INIT;

	run_quality_format(q, &sb);
	CHECK_STR(sb.buf, want);
	sbuf_release(&sb);
}

TEST(counts_top_and_load)
{
	struct run_quality q;
	size_t n;

	run_quality_init(&q);
	run_quality_add(&q, "accepted", "");
	run_quality_add(&q, "accepted", NULL);
	run_quality_add(&q, "failed", "error_rate");        /* an outcome: not a rejection */
	run_quality_add(&q, "rejected", "generator");
	run_quality_add(&q, "rejected", "stationarity, generator");
	run_quality_add(&q, "rejected", "under_warmed");
	run_quality_add(&q, NULL, NULL);                    /* planned */
	q.load_start = run_quality_parse_load("1.93");
	q.load_end = run_quality_parse_load("2.31");
	CHECK(q.windows == 6 && q.accepted == 2 && q.failed == 1 && q.rejected == 3);
	CHECK(q.not_done == 1);
	CHECK_STR(run_quality_top(&q, &n), "generator");
	CHECK(n == 2);
	check_format(&q, "6 windows: 2 accepted, 1 failed, 3 rejected (top: generator 2),"
			 " 1 not run; load 1.9 -> 2.3");
	run_quality_release(&q);
}

TEST(ties_and_unknowns)
{
	struct run_quality q;
	size_t n;

	run_quality_init(&q);
	run_quality_add(&q, "rejected", "throttled");
	run_quality_add(&q, "rejected", "generator");
	CHECK_STR(run_quality_top(&q, &n), "generator");   /* 1 each: first by name */
	q.load_start = run_quality_parse_load("unknown");
	CHECK(isnan(q.load_start) && isnan(run_quality_parse_load(NULL)));
	CHECK(isnan(run_quality_parse_load("1.5x")));
	check_format(&q, "2 windows: 0 accepted, 0 failed, 2 rejected (top: generator 1); load ? -> ?");
	run_quality_release(&q);
	run_quality_init(&q);
	run_quality_add(&q, "accepted", "");
	check_format(&q, "1 window: 1 accepted, 0 failed, 0 rejected; load ? -> ?");
	CHECK(run_quality_top(&q, &n) == NULL && n == 0);
	run_quality_release(&q);
}

int main(void)
{
	RUN(counts_top_and_load);
	RUN(ties_and_unknowns);
	return t_done();
}
