/*
 * runner_held: the host_held gate's reference, the arm's usual
 * (gates/host_held.c, docs/DESIGN.md "Host-held windows"): the median
 * host-held wait per request due (windows.host_held_s / due) over the
 * arm's last three windows measured in this run (any stage and rate,
 * voided or not), times this window's due. The median of three is not
 * moved by one held window; a host that stays busier is the arm's usual
 * two windows later. (Taking only windows the gate did not void locked an
 * arm out: once a busier host voided its first window at a rate, every
 * later one there was judged against its quieter windows at the rate
 * below and voided too, while the other arm's first one passed.)
 * Never another arm's windows: nothing an implementation does may move
 * another arm's verdicts (an arm that starves itself would raise the
 * others' limit), so an arm's first window has no usual (and passes).
 * A host that holds an arm the same way in every window is a condition
 * of the comparison, not an accident of one window; an implementation
 * whose own demand makes it wait beside a busy host waits so in every
 * window. Only a window held well beyond its arm's usual is void.
 */
#include <math.h>
#include <stdlib.h>

#include "runner/runner_internal.h"
#include "stat/stat.h"
#include "store/store_window.h"
#include "base/util.h"

#define RECENT 3   /* the arm's last windows the usual is the median of */

double runner_held_ref(struct run_ctx *rc, const struct window_plan *wp,
		       uint64_t due)
{
	struct window_query q = { .impl = wp->arm->name, .done_only = 1 };
	struct window_rows rows;
	double x[RECENT], t[RECENT], ref = NAN;
	size_t i, j, k, n = 0;

	if (!due || store_windows_load(&rc->st, rc->run_id, &q, &rows))
		return NAN;
	/* the RECENT latest by the start of their measured part */
	for (i = 0; i < rows.n; i++) {
		const struct window_row *r = &rows.v[i];
		double per;

		if (r->id == wp->id || !isfinite(r->host_held_s) || r->due <= 0 ||
		    !isfinite(r->started_at))
			continue;
		per = r->host_held_s / (double)r->due;
		if (n < RECENT) {
			x[n] = per;
			t[n++] = r->started_at;
			continue;
		}
		k = 0;                     /* the oldest kept gives way */
		for (j = 1; j < n; j++)
			if (t[j] < t[k])
				k = j;
		if (r->started_at > t[k]) {
			x[k] = per;
			t[k] = r->started_at;
		}
	}
	if (n)
		ref = stat_median(x, n) * (double)due;
	window_rows_release(&rows);
	return ref;
}
