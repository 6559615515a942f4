/*
 * hist: log-linear latency histogram (HdrHistogram's layout, reduced).
 *
 * Layout. Values below 128 ns have one bucket each (exact). Above that,
 * every power-of-two range [2^m, 2^(m+1)) with m >= 7 is cut into 64
 * equal sub-buckets of width 2^(m-6):
 *
 *     e   = m - 6                       (1 for m = 7, 30 for m = 36)
 *     sub = (v >> e) - 64               (0..63)
 *     idx = 128 + (e - 1) * 64 + sub
 *
 * Error bound. A bucket of width w = 2^e starts at a lower bound
 * L >= 64 * 2^e, so w / L <= 1/64. A value is reported as its bucket's
 * midpoint L + w/2, which differs from any value in the bucket by at most
 * w/2, i.e. a relative error of at most 1/128 = 0.78% (< 1%). Reported
 * percentiles are also clamped to the exact [min, max], which only
 * reduces the error.
 *
 * Range. The last regular bucket ends at 2^37 ns (137 s > 100 s); larger
 * values land in one overflow bucket (HIST_BUCKETS - 1), which reads as the
 * exact recorded max. 2049 buckets * 8 bytes = 16 KiB per histogram.
 */
#include "base/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define SUB_BITS 6
#define SUB_HALF (1u << SUB_BITS)            /* 64 sub-buckets per octave */
#define LINEAR_MAX (2u * SUB_HALF)           /* 128: exact below this */
#define TOP_BIT 37                           /* regular range ends at 2^37 ns */
#define REGULAR_BUCKETS (LINEAR_MAX + (TOP_BIT - 1 - SUB_BITS - 1 + 1) * SUB_HALF)
#define HIST_BUCKETS (REGULAR_BUCKETS + 1)   /* + overflow */

size_t hist_nbuckets(void)
{
	return HIST_BUCKETS;
}

size_t hist_bucket_of(uint64_t ns)
{
	unsigned m, e;

	if (ns < LINEAR_MAX)
		return (size_t)ns;
	m = 63u - (unsigned)__builtin_clzll(ns);
	if (m >= TOP_BIT)
		return HIST_BUCKETS - 1;
	e = m - SUB_BITS;
	return LINEAR_MAX + (size_t)(e - 1) * SUB_HALF + (size_t)((ns >> e) - SUB_HALF);
}

/* Lower bound and width of a regular bucket. */
static void bucket_range(size_t b, uint64_t *lo, uint64_t *width)
{
	size_t e, sub;

	if (b < LINEAR_MAX) {
		*lo = b;
		*width = 1;
		return;
	}
	e = (b - LINEAR_MAX) / SUB_HALF + 1;
	sub = (b - LINEAR_MAX) % SUB_HALF;
	*lo = (uint64_t)(SUB_HALF + sub) << e;
	*width = (uint64_t)1 << e;
}

uint64_t hist_bucket_value(size_t b)
{
	uint64_t lo, w;

	if (b >= HIST_BUCKETS - 1)
		return (uint64_t)1 << TOP_BIT;
	bucket_range(b, &lo, &w);
	return lo + w / 2;
}

void hist_init(struct hist *h)
{
	h->counts = xcalloc(HIST_BUCKETS, sizeof(*h->counts));
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
}

void hist_release(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
	h->total = 0;
}

void hist_reset(struct hist *h)
{
	if (h->total)
		memset(h->counts, 0, HIST_BUCKETS * sizeof(*h->counts));
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
}

void hist_record(struct hist *h, uint64_t ns)
{
	h->counts[hist_bucket_of(ns)]++;
	h->total++;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->sum += (double)ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	if (!src->total)
		return;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
}

/* The bucket holding rank (at least 1) in ascending order; *seen: the
 * samples up to and including it. HIST_BUCKETS when rank > total. */
static size_t rank_bucket(const struct hist *h, uint64_t rank, uint64_t *seen)
{
	size_t i;

	if (rank < 1)
		rank = 1;
	*seen = 0;
	for (i = 0; i < HIST_BUCKETS; i++) {
		*seen += h->counts[i];
		if (*seen >= rank)
			break;
	}
	return i;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen, v;
	size_t i;

	if (!h->total)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* The smallest rank r with r >= p% of total (ceil), at least 1. */
	rank = (uint64_t)((p / 100.0) * (double)h->total);
	if ((double)rank < (p / 100.0) * (double)h->total)
		rank++;
	i = rank_bucket(h, rank, &seen);
	if (i >= HIST_BUCKETS - 1)
		return h->max;
	v = hist_bucket_value(i);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double hist_percentile_ms(const struct hist *h, double p)
{
	return (double)hist_percentile(h, p) / 1e6;
}

double hist_mean_ns(const struct hist *h)
{
	return h->total ? h->sum / (double)h->total : 0;
}

/* ------------------------------------------------------- serialisation */

/*
 * Format (version 1): byte 'H', byte 1, varint nnz, then nnz pairs
 * (varint gap from the previous index + 1, varint count), then varint min,
 * varint max (only when non-empty), then the sum as 8 little-endian bytes
 * of its IEEE-754 representation. The total is recomputed on reading.
 */

static void put_varint(struct sbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (unsigned char)v;
	sbuf_add(sb, b, n);
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		unsigned char c = *(*p)++;

		if (shift > 63)
			return -1;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

void hist_serialize(const struct hist *h, struct sbuf *out)
{
	size_t i, nnz = 0, prev = 0;
	unsigned char sumb[8];
	uint64_t bits;
	double sum = h->sum;

	sbuf_add(out, "H\x01", 2);
	for (i = 0; i < HIST_BUCKETS; i++)
		nnz += h->counts[i] != 0;
	put_varint(out, nnz);
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		put_varint(out, i - prev);
		put_varint(out, h->counts[i]);
		prev = i + 1;
	}
	if (nnz) {
		put_varint(out, h->min);
		put_varint(out, h->max);
	}
	memcpy(&bits, &sum, 8);
	for (i = 0; i < 8; i++)
		sumb[i] = (unsigned char)(bits >> (8 * i));
	sbuf_add(out, sumb, 8);
}

int hist_deserialize(struct hist *h, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t nnz, gap, count, bits = 0;
	size_t idx = 0, k, i;
	double sum;

	hist_reset(h);
	if (len < 2 || p[0] != 'H' || p[1] != 1)
		goto bad;
	p += 2;
	if (get_varint(&p, end, &nnz) || nnz > HIST_BUCKETS)
		goto bad;
	for (k = 0; k < nnz; k++) {
		if (get_varint(&p, end, &gap) || get_varint(&p, end, &count))
			goto bad;
		if (gap >= HIST_BUCKETS - idx || !count)
			goto bad;
		idx += gap;
		h->counts[idx] = count;
		h->total += count;
		idx++;
	}
	if (nnz) {
		if (get_varint(&p, end, &h->min) || get_varint(&p, end, &h->max) ||
		    h->min > h->max)
			goto bad;
	}
	if (end - p != 8)
		goto bad;
	for (i = 0; i < 8; i++)
		bits |= (uint64_t)p[i] << (8 * i);
	memcpy(&sum, &bits, 8);
	h->sum = sum;
	return 0;
bad:
	memset(h->counts, 0, HIST_BUCKETS * sizeof(*h->counts));
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
	return -1;
}

/* ------------------------------------------------ HdrHistogram text */

/*
 * HdrHistogram's percentile distribution ("hgrm", as its
 * outputPercentileDistribution prints it): a header, one line per
 * percentile level (value, percentile as a fraction, cumulative count,
 * 1/(1-percentile)), the levels stepping by halves of the remaining
 * distance with `ticks` lines per half (0, 10, 20 .. 50, 55, 60 .. 75,
 * 77.5 .. for 5), a last line at 100%, and the mean/max footer. The value
 * at a level is hist_percentile()'s (bucket midpoint, clamped to the exact
 * min and max); the count is every sample up to and including its bucket.
 */
void hist_hgrm(const struct hist *h, double unit_ns, int ticks, struct sbuf *out)
{
	double level = 0, mean = hist_mean_ns(h), var = 0;
	uint64_t below = 0;
	size_t i;

	if (ticks < 1)
		ticks = 5;
	sbuf_addf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		  "1/(1-Percentile)");
	while (h->total) {
		uint64_t seen;
		double reporting;

		/* the bucket holding this level's rank, as hist_percentile */
		rank_bucket(h, (uint64_t)ceil(level / 100.0 * (double)h->total - 1e-9), &seen);
		if (seen >= h->total && level > 0)
			break;   /* the last bucket: the 100% line says it */
		sbuf_addf(out, "%12.3f %2.12f %10llu %14.2f\n",
			  (double)hist_percentile(h, level) / unit_ns, level / 100.0,
			  (unsigned long long)seen, 1.0 / (1.0 - level / 100.0));
		reporting = ticks * pow(2, floor(log2(100.0 / (100.0 - level))) + 1);
		level += 100.0 / reporting;
		if (100.0 - level < 1e-10)
			break;
	}
	if (h->total)
		sbuf_addf(out, "%12.3f %2.12f %10llu\n", (double)h->max / unit_ns, 1.0,
			  (unsigned long long)h->total);
	for (i = 0; i < HIST_BUCKETS && h->total; i++) {
		double d;

		if (!h->counts[i])
			continue;
		d = (double)hist_bucket_value(i) - mean;
		var += d * d * (double)h->counts[i];
		below += h->counts[i];
	}
	sbuf_addf(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean / unit_ns,
		  below ? sqrt(var / (double)below) / unit_ns : 0.0);
	sbuf_addf(out, "#[Max     = %12.3f, Total count    = %12llu]\n",
		  h->total ? (double)h->max / unit_ns : 0.0, (unsigned long long)h->total);
	sbuf_addf(out, "#[Buckets = %12d, SubBuckets     = %12d]\n",
		  (int)(REGULAR_BUCKETS - LINEAR_MAX) / (int)SUB_HALF + 1, (int)(2 * SUB_HALF));
}
