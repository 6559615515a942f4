/*
 * runner_clock: the one clock of the runner's decisions (runner_internal.h),
 * so a unit test can run them on a fake one (runner.h struct runner_seams).
 */
#include <unistd.h>

#include "runner/runner_internal.h"
#include "base/util.h"

double runner_now(const struct run_ctx *rc)
{
	if (rc->seams && rc->seams->now)
		return rc->seams->now(rc->seams->ctx);
	return now_wall();
}

void runner_sleep(const struct run_ctx *rc, double s)
{
	if (rc->seams && rc->seams->sleep) {
		rc->seams->sleep(rc->seams->ctx, s);
		return;
	}
	usleep((useconds_t)(s * 1e6));
}
