/*
 * runner_testhook: HARNESS_TEST_STALL_GENERATOR, a TEST-ONLY hook that
 * stalls the load generator in chosen windows (load.h test_stall_ms:
 * every generator thread stops RUNNER_TEST_STALL_MS once, half way
 * through the window's schedule, in its measured part when discard_s is
 * at most half of window_s), so that its lateness is real and the
 * `generator` gate, a validity gate, fails on those windows for its own
 * reasons: the end-to-end tests drive replacement windows through a real
 * gate (tests/e2e/replace.sh), and `audit --recheck` recomputes the same
 * verdict from the stored series. Never set it in production: a run that
 * used it says so in its events (test_stall). Read once at start
 * (testhook.h, the list of every test hook).
 *
 * Format: comma-separated STAGE:IMPL:RATE:N entries; RATE is an offered
 * rate (one rung with it: rate.h) or `*` for any; N stalls the first N windows of
 * the cell (stage x rate x impl) in run order, `all` every one. Whether a
 * window is among the first N is read from the database (the cell's
 * windows already done), so a resumed run stalls the same windows.
 * Local generators only (the agent protocol does not carry it).
 */
#include <stdlib.h>
#include <string.h>

#include "model/cells.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "base/testhook.h"
#include "base/util.h"

static int entry_matches(const char *e, const struct window_plan *wp, long *n)
{
	char *copy = xstrdup(e), *f[4], *save = NULL, *tok;
	int k = 0, ok = 0;

	for (tok = strtok_r(copy, ":", &save); tok && k < 4; tok = strtok_r(NULL, ":", &save))
		f[k++] = tok;
	if (k == 4 && !strcmp(f[0], wp->stage) && !strcmp(f[1], wp->arm->name) &&
	    (!strcmp(f[2], "*") || rate_same(strtod(f[2], NULL), wp->rate))) {
		*n = !strcmp(f[3], "all") ? -1 : strtol(f[3], NULL, 10);
		ok = 1;
	}
	free(copy);
	return ok;
}

double runner_test_stall_ms(struct run_ctx *rc, const struct window_plan *wp)
{
	const char *env = testhooks()->stall_generator;
	char *copy, *tok, *save = NULL;
	long n = 0;
	int hit = 0;

	if (!env)
		return 0;
	copy = xstrdup(env);
	for (tok = strtok_r(copy, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
		hit = entry_matches(tok, wp, &n);
	free(copy);
	if (hit && n >= 0) {
		struct cells cells;
		const struct cell *c;

		if (cells_load(&rc->st, rc->run_id, wp->stage, wp->arm->name, &cells))
			return 0;
		c = cells_find(&cells, wp->stage, wp->arm->name, wp->rate);
		hit = !c || (long)(c->valid + c->rejected) < n;
		cells_release(&cells);
	}
	if (!hit)
		return 0;
	store_event(&rc->st, rc->run_id, wp->id, "test_stall",
		    "%s: the generator stalled %d ms by HARNESS_TEST_STALL_GENERATOR (a test hook)",
		    wp->arm->name, RUNNER_TEST_STALL_MS);
	return RUNNER_TEST_STALL_MS;
}
