/* test_decide_guard: median_cs's guard on "no change" under each stored
 * rule (harness/stat/decide_guard.c, decide.h struct decide_guard): one
 * window a host stalled in one arm does not hold "no change" under
 * drop_worst, the same tail in two windows does, fewer than 2 windows of
 * an arm at a rate holds (fail closed), a rule stored before schema 21
 * is judged by the merged rule as it was, and the window set aside does
 * not depend on the order the windows are added in (the runner and
 * compare read them in their own orders); drop_worst_rise holds a tail
 * of NEW's and not one of BASE's. */
#include "stat/decide.h"
#include "base/hist.h"
#include "base/util.h"
#include "t.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ fixtures */

#define NWIN 20                /* pairs per rate: kmin 4 at 20 (test_median_cs) */
#define STALL_MS 30.0

static const double rates[] = { 200, 400 };
/* stalled windows of an arm: a tail in two (3 and 15), in one (3) */
static const int stalls_two[NWIN] = { [3] = 1, [15] = 1 };
static const int stalls_one[NWIN] = { [3] = 1 };

/* A window of 1000 requests spread evenly over 2 .. 4 ms (p99 ~3.98 ms);
 * stalled: 300 more held STALL_MS by the host (its own p99 30 ms). */
static void window(struct hist *h, int stalled)
{
	int i;

	hist_reset(h);
	for (i = 0; i < 1000; i++)
		hist_record(h, (uint64_t)(2e6 + 2e6 * i / 1000.0));
	for (i = 0; stalled && i < 300; i++)
		hist_record(h, (uint64_t)(STALL_MS * 1e6));
}

/* Latency by median_cs at nrates rates, NWIN pairs at each, every pair's
 * value its window's p99; NEW's window k at rate 0 stalled when
 * new_stall[k], BASE's when base_stall[k] (NULL: none). The guard
 * values by rule g, from the pairs' histograms; at the last rate only
 * the first hists_last pairs have histograms. */
static void judge(enum decide_guard_rule g, size_t nrates, const int *new_stall,
		  const int *base_stall, size_t hists_last, struct decide_metric *out)
{
	struct decide_obs obs[2 * NWIN];
	struct decide_guard dg;
	struct hist hn, hb;
	double gn[2], gb[2];
	struct decide_rule r = { 0.05, DECIDE_T_STAR, 10, 0, DECIDE_MEDIAN_CS, gn, gb, g,
				 DECIDE_MARGIN_POINT };
	size_t j, k, n = 0;

	hist_init(&hn);
	hist_init(&hb);
	decide_guard_init(&dg, nrates, g, 99);
	for (j = 0; j < nrates; j++)
		for (k = 0; k < NWIN; k++) {
			window(&hn, j == 0 && new_stall && new_stall[k]);
			window(&hb, j == 0 && base_stall && base_stall[k]);
			obs[n].rate = rates[j];
			obs[n].order = (int64_t)(k * nrates + j);
			obs[n].new_ = hist_percentile_ms(&hn, 99);
			obs[n].base = hist_percentile_ms(&hb, 99);
			if (j + 1 < nrates || k < hists_last)
				decide_guard_add(&dg, j, &hn, (int64_t)(2 * n + 1), &hb,
						 (int64_t)(2 * n + 2));
			n++;
		}
	decide_guard_values(&dg, gn, gb);
	decide_metric(&r, rates, nrates, obs, n, out);
	decide_guard_release(&dg);
	hist_release(&hn);
	hist_release(&hb);
}

/* judge()'s answer in a word: "held" (undecided: the guard held "no
 * change"), "passed" (no change, the guard passed), else the verdict's
 * name. */
static const char *answer(enum decide_guard_rule g, const int *new_stall, const int *base_stall,
			  size_t hists_last, struct decide_metric *out)
{
	judge(g, 2, new_stall, base_stall, hists_last, out);
	if (out->verdict == DECIDE_UNDECIDED && out->guard_held == 1 && out->guard == 0)
		return "held";
	if (out->verdict == DECIDE_NO_CHANGE && out->guard == 1 && out->guard_held == 0)
		return "passed";
	return decide_verdict_name(out->verdict);
}

static int has(const struct decide_metric *m, const char *s)
{
	struct sbuf o = SBUF_INIT;
	int r;

	decide_note(m, &o);
	r = o.buf && strstr(o.buf, s) != NULL;
	sbuf_release(&o);
	return r;
}

/* A tail in two of NEW's windows at a rate holds "no change" under g:
 * the merged rest's percentile is the stall's, and the note says so,
 * the margin in g's words. */
static void new_tail_holds(enum decide_guard_rule g, const char *margin)
{
	struct decide_metric d;

	CHECK_STR(answer(g, stalls_two, NULL, NWIN, &d), "held");
	CHECK(d.guard_log > log(STALL_MS / 4.0));
	CHECK(has(&d, "; the guard held it: the merged histograms' (each arm's worst window set "
		      "aside) SLO percentile +"));
	CHECK(has(&d, margin));
}

/* ------------------------------------------------------------ tests */

/* The measured case (a comment-only branch, one NEW window at 400 req/s
 * stalled): the median says "no change"; the merged rule (main's before
 * schema 21) holds it on that one window, drop_worst does not. */
TEST(one_stalled_window_does_not_hold)
{
	int one[NWIN] = { 0 };
	struct decide_metric d;

	one[7] = 1;
	CHECK_STR(answer(DECIDE_GUARD_MERGED, one, NULL, NWIN, &d), "held");
	CHECK(d.guard_log > log(STALL_MS / 4.0));   /* the merged p99 is the stall's */
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, one, NULL, NWIN, &d), "passed");
	NEAR(d.guard_log, 0, 1e-12, "both arms' rest: 19 clean windows");
	/* in BASE alike, and one in each arm at one rate */
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, NULL, one, NWIN, &d), "passed");
	one[7] = 0;
	one[12] = 1;
	{
		int other[NWIN] = { 0 };

		other[3] = 1;
		CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, one, other, NWIN, &d), "passed");
	}
}

/* A tail in two windows of an arm still shows: one is set aside, the
 * other is in the merged rest (a trim by fraction, 10 % of 20 windows,
 * would drop both). */
TEST(tail_in_two_windows_holds)
{
	struct decide_metric d;

	new_tail_holds(DECIDE_GUARD_DROP_WORST, "margin +-10.0%");
	/* in both arms, at one rate: both rests carry one: no shift */
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, stalls_two, stalls_two, NWIN, &d), "passed");
}

/* drop_worst_rise (new reruns' rule): a tail in two of NEW's windows
 * holds, as under drop_worst; the same tail in BASE's does not (under
 * drop_worst it does: on a shared host which arm the stalls fall on is
 * chance, and BASE's tail is no reason to withhold "no change"). */
TEST(rise_holds_new_tail_not_base_tail)
{
	struct decide_metric d;

	new_tail_holds(DECIDE_GUARD_DROP_WORST_RISE, "above the margin +10.0%");
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, NULL, stalls_two, NWIN, &d), "held");
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST_RISE, NULL, stalls_two, NWIN, &d), "passed");
	/* it sets one window aside as drop_worst does */
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST_RISE, stalls_one, NULL, NWIN, &d), "passed");
	/* and holds with fewer than 2 windows of an arm at a rate */
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST_RISE, NULL, NULL, 1, &d), "held");
	CHECK(has(&d, "fewer than 2 histograms of an arm at a rate"));
}

/* Fewer than 2 windows of an arm at a rate: drop_worst cannot judge it
 * and holds (the merged rule judged the one window: "no change"). */
TEST(too_few_windows_holds)
{
	struct decide_metric d;

	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, NULL, NULL, 1, &d), "held");
	CHECK(isnan(d.guard_worst));
	CHECK(has(&d, "; the guard held it: fewer than 2 histograms of an arm at a rate"));
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, NULL, NULL, 0, &d), "held");
	CHECK(isnan(d.guard_worst));
	CHECK_STR(answer(DECIDE_GUARD_DROP_WORST, NULL, NULL, 2, &d), "passed");
	CHECK_STR(answer(DECIDE_GUARD_MERGED, NULL, NULL, 1, &d), "passed");
	CHECK_STR(answer(DECIDE_GUARD_MERGED, NULL, NULL, 0, &d), "held");
}

/* A rule stored without a guard (schema 20 and before) or with a name
 * this binary does not know is judged by the merged rule, and says so
 * in the words it always did. */
TEST(old_stored_rule_gives_the_old_answer)
{
	int one[NWIN] = { 0 };
	struct decide_metric d;
	struct sbuf o = SBUF_INIT;
	const char *old = " [median_cs]; the guard held it: the merged histograms' SLO "
			  "percentile +";

	CHECK_STR(decide_guard_rule_name(DECIDE_GUARD_MERGED), "merged");
	CHECK_STR(decide_guard_rule_name(DECIDE_GUARD_DROP_WORST), "drop_worst");
	CHECK(decide_guard_rule_stored(NULL) == DECIDE_GUARD_MERGED);
	CHECK(decide_guard_rule_stored("merged") == DECIDE_GUARD_MERGED);
	CHECK(decide_guard_rule_stored("drop_worst") == DECIDE_GUARD_DROP_WORST);
	CHECK_STR(decide_guard_rule_name(DECIDE_GUARD_DROP_WORST_RISE), "drop_worst_rise");
	CHECK(decide_guard_rule_stored("drop_worst_rise") == DECIDE_GUARD_DROP_WORST_RISE);
	CHECK(decide_guard_rule_stored("drop_worst2") == DECIDE_GUARD_MERGED);
	one[7] = 1;
	CHECK_STR(answer(decide_guard_rule_stored(NULL), one, NULL, NWIN, &d), "held");
	decide_note(&d, &o);
	CHECK(o.buf && !strncmp(o.buf, old, strlen(old)));
	CHECK(o.buf && !strstr(o.buf, "set aside"));
	sbuf_release(&o);
}

/* Which window is set aside does not depend on the order of adding:
 * the highest percentile, and of equal ones the larger id. W1 and W2
 * tie at p50 2 ms; setting W2 (id 2) aside leaves W1 + W3, p50 2 ms;
 * setting W1 aside would leave p50 1.5 ms. */
TEST(set_aside_window_is_independent_of_order)
{
	static const int orders[3][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 0, 2 } };
	struct hist w[3], b;
	struct decide_guard g;
	double gn[1], gb[1];
	int i, o;

	for (i = 0; i < 3; i++)
		hist_init(&w[i]);
	hist_init(&b);
	for (i = 0; i < 20; i++)
		hist_record(&w[0], 2000000);                       /* W1: 20 at 2 ms */
	for (i = 0; i < 20; i++)
		hist_record(&w[1], i < 9 ? 1500000 : 2000000);     /* W2: 9 at 1.5, 11 at 2 */
	for (i = 0; i < 2; i++)
		hist_record(&w[2], 1000000);                       /* W3: 2 at 1 ms */
	hist_record(&b, 2000000);
	NEAR(hist_percentile_ms(&w[0], 50), hist_percentile_ms(&w[1], 50), 0, "a tie");
	for (o = 0; o < 3; o++) {
		decide_guard_init(&g, 1, DECIDE_GUARD_DROP_WORST, 50);
		for (i = 0; i < 3; i++)
			decide_guard_add(&g, 0, &w[orders[o][i]], orders[o][i] + 1, &b,
					 orders[o][i] + 11);
		decide_guard_values(&g, gn, gb);
		NEAR(gn[0], hist_percentile_ms(&w[0], 50), 0, "W2 set aside, W1 + W3 merged");
		CHECK(gb[0] > 0);
		decide_guard_release(&g);
	}
	for (i = 0; i < 3; i++)
		hist_release(&w[i]);
	hist_release(&b);
}

int main(void)
{
	RUN(one_stalled_window_does_not_hold);
	RUN(tail_in_two_windows_holds);
	RUN(rise_holds_new_tail_not_base_tail);
	RUN(too_few_windows_holds);
	RUN(old_stored_rule_gives_the_old_answer);
	RUN(set_aside_window_is_independent_of_order);
	return t_done();
}
