/*
 * hist: latency histogram with log-linear buckets.
 *
 * Values are nanoseconds. Buckets cover 1 us .. 100 s with a relative error
 * of at most 1% for any value in that range (see hist.c for the layout and
 * the proof of the bound); smaller values land in the first bucket, larger
 * ones in an overflow bucket whose percentile reads as the recorded max.
 * Recording is O(1); merging adds counts and is lossless; min, max and sum
 * are exact.
 *
 * Ownership: hist_init() allocates the bucket array; hist_release() frees
 * it. A struct hist is not thread-safe: one per thread, merged after.
 */
#ifndef HARNESS_HIST_H
#define HARNESS_HIST_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;

struct hist {
	uint64_t *counts;   /* HIST_BUCKETS entries */
	uint64_t total;
	uint64_t min, max;  /* exact, ns; min = UINT64_MAX when empty */
	double sum;         /* exact sum, ns */
};

void hist_init(struct hist *h);
void hist_release(struct hist *h);
void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* Value (ns) at percentile p in [0, 100]: the smallest recorded bucket
 * value v such that at least p% of samples are <= v. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_percentile_ms(const struct hist *h, double p);
double hist_mean_ns(const struct hist *h);

/* The bucket index of a value and the representative value of a bucket
 * (its midpoint); exposed for the order-statistic intervals in stat. */
size_t hist_bucket_of(uint64_t ns);
uint64_t hist_bucket_value(size_t bucket);
size_t hist_nbuckets(void);

/* HdrHistogram's percentile-distribution text ("hgrm": the format of its
 * outputPercentileDistribution, read by its plotters) of h, values divided
 * by unit_ns (1e6: milliseconds), `ticks` percentile lines per half
 * distance (HdrHistogram's default is 5). Appends to out. */
void hist_hgrm(const struct hist *h, double unit_ns, int ticks, struct sbuf *out);

/* Compact serialisation: only non-zero buckets (varints). */
void hist_serialize(const struct hist *h, struct sbuf *out);
/* h must be initialised; it is reset first. -1 on a corrupt blob. */
int hist_deserialize(struct hist *h, const void *data, size_t len);

#endif
