/* knee_run: the knee's per-window rules (contract in knee_run.h). */
#include "model/knee_run.h"

#include <math.h>

double knee_window_bad(int failed, double due, double errors, double ok)
{
	double bad = errors > 0 ? errors : 0;

	if (failed && due - ok > bad)
		bad = due - ok;
	return bad;
}

double knee_apply_ratio(double pct_ms, double threshold_ms, double ratio)
{
	if (isnan(pct_ms) || !(ratio > 0) || !isfinite(threshold_ms))
		return pct_ms;
	return pct_ms > threshold_ms * ratio ? pct_ms : threshold_ms * ratio;
}
