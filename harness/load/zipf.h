/*
 * zipf: a Zipf sampler over ranks 1..n, P(k) = k^-s / H(n, s), for any
 * s > 0 and n up to 2^53, in O(1) memory and O(1) expected time per draw:
 * rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion
 * to generate variates from monotone discrete distributions", ACM TOMACS
 * 6(3), 1996); docs/templates.md explains it. Exact: every rank's
 * probability is the Zipf one, not an approximation of it (the accepted
 * region under each rank's box has area exactly k^-s).
 */
#ifndef HARNESS_ZIPF_H
#define HARNESS_ZIPF_H

#include <stdint.h>

#include "base/rng.h"

struct zipf {
	uint64_t n;
	double s;
	double h_x1;    /* H(1.5) - 1 */
	double h_n;     /* H(n + 0.5) */
	double cut;     /* accept without the test when k - x <= cut */
};

/* n >= 1, s > 0 (the caller validated them). */
void zipf_init(struct zipf *z, uint64_t n, double s);
/* A rank in 1..n. */
uint64_t zipf_draw(const struct zipf *z, struct rng *r);

#endif
