/*
 * rng: seeded pseudo-random numbers (xoshiro256**, seeded by splitmix64).
 * Everything random in a run (block orders, Poisson gaps, request mix,
 * bootstrap resamples) comes from the spec's seed through this, so the same
 * spec makes the same choices. Not thread-safe: one struct per user.
 */
#ifndef HARNESS_RNG_H
#define HARNESS_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seed from a 64-bit seed and a stream id (so independent users of one
 * seed, e.g. thread 0 and thread 1, get independent sequences). */
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);
/* Uniform integer in [0, n). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Exponential with the given mean. */
double rng_exp(struct rng *r, double mean);

#endif
