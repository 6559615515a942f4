/*
 * zipf: rejection-inversion. h(x) = x^-s is decreasing; H is an
 * antiderivative of h, H(x) = (x^(1-s) - 1) / (1 - s) (log x at s = 1),
 * written with expm1/log1p so that s near 1 loses no precision.
 *
 * Rank k owns the interval [H(k + 1/2) - h(k), H(k + 1/2)] of the H axis
 * (length h(k), so probability proportional to k^-s), and these
 * intervals tile [H(n + 1/2), H(3/2) - 1]. A uniform u on that range is
 * mapped back by H^-1 to x, rounded to k; u is accepted when it falls in
 * k's own interval (u >= H(k + 1/2) - h(k)). Because h is convex, the
 * test can be skipped when k - x <= cut (Hörmann & Derflinger's
 * squeeze), which is most draws; the acceptance rate is above 0.9 for
 * every s and n, so a draw costs one or two log/exp pairs.
 */
#include "load/zipf.h"

#include <math.h>

/* log1p(x) / x, continuous at 0. */
static double log1p_over(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x / 3.0);
}

/* expm1(x) / x, continuous at 0. */
static double expm1_over(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * (0.5 + x / 6.0);
}

static double h(const struct zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static double H(const struct zipf *z, double x)
{
	double lx = log(x);

	return expm1_over((1 - z->s) * lx) * lx;
}

static double H_inv(const struct zipf *z, double y)
{
	double t = y * (1 - z->s);

	if (t < -1)
		t = -1;   /* rounding at the range's end */
	return exp(log1p_over(t) * y);
}

void zipf_init(struct zipf *z, uint64_t n, double s)
{
	z->n = n ? n : 1;
	z->s = s;
	z->h_x1 = H(z, 1.5) - 1;
	z->h_n = H(z, (double)z->n + 0.5);
	z->cut = 2 - H_inv(z, H(z, 2.5) - h(z, 2));
}

uint64_t zipf_draw(const struct zipf *z, struct rng *r)
{
	for (;;) {
		double u = z->h_n + rng_uniform(r) * (z->h_x1 - z->h_n);
		double x = H_inv(z, u);
		double k = floor(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > (double)z->n)
			k = (double)z->n;
		if (k - x <= z->cut || u >= H(z, k + 0.5) - h(z, k))
			return (uint64_t)k;
	}
}
