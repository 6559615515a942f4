/* rate: one rung, one definition (rate.h says why this tolerance). */
#include <math.h>

#include "base/rate.h"

int rate_same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}
