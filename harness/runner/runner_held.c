/*
 * runner_held: the host_held gate's reference, the arm's usual
 * (gates/host_held.c, docs/DESIGN.md "Host-held windows"): the median
 * host-held wait per request due (windows.host_held_s / due) over the
 * arm's windows already measured in this run, times this window's due.
 * Which windows, the first set that has any:
 *   1. at the same stage and rate, not voided by host_held;
 *   2. at any stage and rate, not voided by host_held;
 *   3. any (a window voided by host_held too).
 * A voided window does not set the usual while others can: a held window
 * would raise the limit of the next. Never another arm's windows: nothing
 * an implementation does may move another arm's verdicts (an arm that
 * starves itself would raise the others' limit), so an arm's first window
 * has no usual (and passes).
 * A host that holds an arm the same way in every window is a condition
 * of the comparison, not an accident of one window; an implementation
 * whose own demand makes it wait beside a busy host waits so in every
 * window. Only a window held well beyond its arm's usual is void.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_internal.h"
#include "stat/stat.h"
#include "store/store_window.h"
#include "base/util.h"

/* Whether the host_held gate voided window r (its reasons name it). */
static int held_voided(const struct window_row *r)
{
	return r->reasons && strstr(r->reasons, "host_held") != NULL;
}

double runner_held_ref(struct run_ctx *rc, const struct window_plan *wp,
		       uint64_t due)
{
	struct window_query q = { .impl = wp->arm->name, .done_only = 1 };
	struct window_rows rows;
	double *x[3], ref = NAN;
	size_t i, k, n[3] = { 0, 0, 0 };

	if (!due || store_windows_load(&rc->st, rc->run_id, &q, &rows))
		return NAN;
	for (k = 0; k < 3; k++)
		x[k] = xcalloc(rows.n + 1, sizeof(*x[k]));
	for (i = 0; i < rows.n; i++) {
		const struct window_row *r = &rows.v[i];
		double per;

		if (r->id == wp->id || !isfinite(r->host_held_s) || r->due <= 0)
			continue;
		per = r->host_held_s / (double)r->due;
		x[2][n[2]++] = per;
		if (held_voided(r))
			continue;
		x[1][n[1]++] = per;
		if (!strcmp(r->stage, wp->stage) && r->rate == wp->rate)
			x[0][n[0]++] = per;
	}
	for (k = 0; k < 3 && isnan(ref); k++)
		if (n[k])
			ref = stat_median(x[k], n[k]) * (double)due;
	for (k = 0; k < 3; k++)
		free(x[k]);
	window_rows_release(&rows);
	return ref;
}
