/*
 * t_rng: the unit tests' seeded random draws (xorshift64, Box-Muller):
 * the same sequence on every run and host, so a statistical unit test's
 * figures are reproducible. Header-only (one .c per test program); each
 * program has its own state.
 */
#ifndef T_RNG_H
#define T_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double unif(void)   /* (0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

#endif
