/* test_hist: the histogram's 1% error bound, merge, serialisation. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/rng.h"
#include "t.h"
#include "base/util.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact percentile with hist.h's definition: the smallest sample v
 * such that at least p% of the samples are <= v. */
static uint64_t exact_pct(const uint64_t *sorted, size_t n, double p)
{
	double r = p / 100.0 * (double)n;
	size_t rank = (size_t)r;

	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static const double pcts[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };

/* Record samples, compare every percentile with the exact one; returns the
 * worst relative error seen. */
static double worst_error(uint64_t *v, size_t n)
{
	struct hist h;
	double worst = 0;
	size_t i;

	hist_init(&h);
	for (i = 0; i < n; i++)
		hist_record(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		double want = (double)exact_pct(v, n, pcts[i]);
		double got = (double)hist_percentile(&h, pcts[i]);
		double err = fabs(got - want) / want;

		if (err > worst)
			worst = err;
	}
	CHECK(h.total == n);
	CHECK(h.min == v[0] && h.max == v[n - 1]);
	hist_release(&h);
	return worst;
}

#define N 200000

TEST(error_uniform_1us_100s)
{
	uint64_t *v = xmalloc(N * sizeof(*v));
	struct rng r;
	size_t i;

	rng_seed(&r, 1, 0);
	for (i = 0; i < N; i++)
		v[i] = 1000 + rng_below(&r, 100000000000ull);
	/* Layout bound: half a bucket width over its lower bound, 1/128. */
	NEAR(worst_error(v, N), 0, 0.01, "documented bound 1%, layout gives 0.78%");
	free(v);
}

TEST(error_lognormal)
{
	uint64_t *v = xmalloc(N * sizeof(*v));
	struct rng r;
	size_t i;

	rng_seed(&r, 2, 0);
	for (i = 0; i < N; i++) {
		/* Box-Muller: median 2 ms, heavy right tail. */
		double u1 = 1.0 - rng_uniform(&r), u2 = rng_uniform(&r);
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		v[i] = (uint64_t)(2e6 * exp(1.5 * z)) + 1000;
	}
	NEAR(worst_error(v, N), 0, 0.01, "documented bound 1%");
	free(v);
}

TEST(error_every_octave)
{
	/* One value at the top of each bucket and one at the bottom, from
	 * 1 us to 100 s: the worst cases of the midpoint representation. */
	uint64_t v;
	double worst = 0;

	for (v = 1000; v <= 100000000000ull; v = v + v / 97 + 1) {
		struct hist h;
		double err;

		hist_init(&h);
		hist_record(&h, 1);         /* min below, so clamping does not help */
		hist_record(&h, v);
		hist_record(&h, UINT64_C(1) << 40); /* max above */
		err = fabs((double)hist_percentile(&h, 50) - (double)v) / (double)v;
		if (err > worst)
			worst = err;
		hist_release(&h);
	}
	NEAR(worst, 0, 1.0 / 128 + 1e-9, "midpoint of a bucket of width <= 1/64 of its lower bound");
}

TEST(buckets_monotonic)
{
	size_t b, prev = 0;
	uint64_t v;

	for (v = 0; v < (UINT64_C(1) << 38); v = v < 1000 ? v + 1 : v + v / 200) {
		b = hist_bucket_of(v);
		CHECK(b >= prev);
		CHECK(b < hist_nbuckets());
		prev = b;
	}
	CHECK(hist_bucket_of(UINT64_C(1) << 40) == hist_nbuckets() - 1);
	for (b = 0; b + 1 < hist_nbuckets(); b++)
		CHECK(hist_bucket_of(hist_bucket_value(b)) == b);
}

TEST(merge_equals_concatenation)
{
	struct hist parts[7], merged, all;
	struct rng r;
	size_t i, k;

	rng_seed(&r, 3, 0);
	hist_init(&merged);
	hist_init(&all);
	for (k = 0; k < 7; k++) {
		hist_init(&parts[k]);
		for (i = 0; i < 10000 + k * 1000; i++) {
			uint64_t v = (uint64_t)rng_exp(&r, 1e6 * (double)(k + 1));

			hist_record(&parts[k], v);
			hist_record(&all, v);
		}
	}
	for (k = 0; k < 7; k++)
		hist_merge(&merged, &parts[k]);
	CHECK(merged.total == all.total);
	CHECK(merged.min == all.min && merged.max == all.max);
	CHECK(memcmp(merged.counts, all.counts, hist_nbuckets() * sizeof(uint64_t)) == 0);
	NEAR(merged.sum, all.sum, all.sum * 1e-12, "float addition order");
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		CHECK(hist_percentile(&merged, pcts[i]) == hist_percentile(&all, pcts[i]));
	for (k = 0; k < 7; k++)
		hist_release(&parts[k]);
	hist_release(&merged);
	hist_release(&all);
}

TEST(serialize_roundtrip)
{
	struct hist h, back;
	struct sbuf sb = SBUF_INIT;
	struct rng r;
	size_t i;

	rng_seed(&r, 4, 0);
	hist_init(&h);
	hist_init(&back);
	for (i = 0; i < 50000; i++)
		hist_record(&h, (uint64_t)rng_exp(&r, 3e6));
	hist_record(&h, UINT64_C(1) << 39); /* overflow bucket */
	hist_serialize(&h, &sb);
	CHECK(sb.len < 4096); /* compact: only non-zero buckets */
	CHECK(hist_deserialize(&back, sb.buf, sb.len) == 0);
	CHECK(back.total == h.total && back.min == h.min && back.max == h.max);
	CHECK(back.sum == h.sum);
	CHECK(memcmp(back.counts, h.counts, hist_nbuckets() * sizeof(uint64_t)) == 0);
	CHECK(hist_percentile(&back, 100) == UINT64_C(1) << 39);
	/* Corrupt blobs are refused and leave an empty histogram. */
	CHECK(hist_deserialize(&back, sb.buf, sb.len - 1) == -1);
	CHECK(back.total == 0);
	CHECK(hist_deserialize(&back, "X\x01", 2) == -1);
	sbuf_reset(&sb);
	hist_reset(&h);
	hist_serialize(&h, &sb);
	CHECK(hist_deserialize(&back, sb.buf, sb.len) == 0 && back.total == 0);
	CHECK(hist_percentile(&back, 99) == 0);
	sbuf_release(&sb);
	hist_release(&h);
	hist_release(&back);
}

TEST(percentile_edges)
{
	struct hist h;

	hist_init(&h);
	CHECK(hist_percentile(&h, 50) == 0);
	hist_record(&h, 5000000);
	CHECK(hist_percentile(&h, 0) == 5000000);
	CHECK(hist_percentile(&h, 50) == 5000000); /* clamped to exact min/max */
	NEAR(hist_percentile_ms(&h, 99), 5.0, 1e-9, "single sample is exact");
	NEAR(hist_mean_ns(&h), 5e6, 1e-6, "exact sum");
	hist_release(&h);
}

/* hgrm (HdrHistogram's percentile-distribution text), parsed back: a
 * known distribution (1..100000 us, one sample each, so the exact
 * percentile p is ceil(p * 1000) us) matches at every printed level
 * within the histogram's bucket error (< 0.79%, hist.c) plus the 3
 * printed decimals (0.0005 ms); the levels step as HdrHistogram's (5 per
 * half distance); counts, 1/(1-p), the 100% line and the footer agree. */
struct hgrm_line { double v, p, inv; unsigned long long n; };

static size_t hgrm_parse(const char *text, struct hgrm_line *l, size_t max, double *mean,
			 double *maxv, unsigned long long *total)
{
	const char *p = strstr(text, "1/(1-Percentile)\n\n");
	size_t n = 0;

	if (!p)
		return 0;
	p += strlen("1/(1-Percentile)\n\n");
	while (*p && *p != '#' && n < max) {
		int k = sscanf(p, "%lf %lf %llu %lf", &l[n].v, &l[n].p, &l[n].n, &l[n].inv);

		if (k < 3)
			return 0;
		if (k == 3)
			l[n].inv = INFINITY;
		n++;
		p = strchr(p, '\n');
		if (!p)
			return 0;
		p++;
	}
	if (sscanf(p, "#[Mean    = %lf, StdDeviation   = %*f]\n#[Max     = %lf, Total count    = "
		   "%llu]", mean, maxv, total) != 3)
		return 0;
	return n;
}

TEST(hgrm_known_distribution)
{
	static struct hgrm_line l[2000];
	struct hist h;
	struct sbuf out = SBUF_INIT;
	unsigned long long total = 0, prev = 0;
	double mean = 0, maxv = 0;
	size_t n, i;
	uint64_t us;

	hist_init(&h);
	for (us = 1; us <= 100000; us++)
		hist_record(&h, us * 1000);
	hist_hgrm(&h, 1e6, 5, &out);
	n = hgrm_parse(out.buf, l, 2000, &mean, &maxv, &total);
	CHECK(n > 30);
	CHECK(!strncmp(out.buf, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n", 57));
	/* HdrHistogram's levels: 0, 10 .. 50 by 10, then 55, 60 .. by 5 */
	CHECK(n > 8 && l[0].p == 0 && fabs(l[1].p - 0.1) < 1e-12 && fabs(l[5].p - 0.5) < 1e-12 &&
	      fabs(l[6].p - 0.55) < 1e-12 && fabs(l[10].p - 0.75) < 1e-12 &&
	      fabs(l[11].p - 0.775) < 1e-12);
	for (i = 0; i < n; i++) {
		double exact = ceil(l[i].p * 100000 - 1e-9) / 1000;   /* ms */

		if (exact < 0.001)
			exact = 0.001;
		if (i + 1 == n) {   /* the 100% line */
			CHECK(l[i].p == 1 && l[i].n == 100000 && isinf(l[i].inv));
			NEAR(l[i].v, 100.0, 0.0005, "the exact max, 3 decimals");
			continue;
		}
		NEAR(l[i].v, exact, exact * 0.0079 + 0.0005, "bucket error 1/128 + 3 decimals");
		NEAR(l[i].inv, 1 / (1 - l[i].p), 0.005 + 1e-9 / (1 - l[i].p), "printed with 2 decimals");
		/* every sample of the bucket holding the level is counted */
		CHECK(l[i].n >= (unsigned long long)ceil(l[i].p * 100000 - 1e-9) && l[i].n >= prev);
		CHECK(l[i].n <= (unsigned long long)(l[i].v * 1000 * 1.0079 + 1));
		prev = l[i].n;
	}
	NEAR(mean, 50.0005, 0.0005, "the exact sum / count");
	NEAR(maxv, 100.0, 0.0005, "exact max");
	CHECK(total == 100000);
	hist_release(&h);
	sbuf_release(&out);
}

int main(void)
{
	RUN(error_uniform_1us_100s);
	RUN(error_lognormal);
	RUN(error_every_octave);
	RUN(buckets_monotonic);
	RUN(merge_equals_concatenation);
	RUN(serialize_roundtrip);
	RUN(percentile_edges);
	RUN(hgrm_known_distribution);
	return t_done();
}
