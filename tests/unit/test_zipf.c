/*
 * test_zipf: the rejection-inversion sampler against the exact Zipf law,
 * and the request pool drawn with it (load_pool.c): the same seed gives
 * the same pool, a smaller pool is a prefix of a larger one, values land
 * in their ranges, UUIDs have their version and variant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_pool.h"
#include "t.h"
#include "load/zipf.h"

/* The exact probability of rank k: k^-s / sum_{i<=n} i^-s (O(n)). */
static double zipf_pmf_slow(uint64_t n, double s, uint64_t k)
{
	double sum = 0;
	uint64_t i;

	/* smallest terms first, for accuracy */
	for (i = n; i >= 1; i--)
		sum += pow((double)i, -s);
	return pow((double)k, -s) / sum;
}

/* Chi-square of `draws` draws of Zipf(n, s) over all n ranks (n small),
 * against the exact probabilities. */
static double chi_square(uint64_t n, double s, int draws, uint64_t seed)
{
	struct zipf z;
	struct rng r;
	int *count = calloc(n + 1, sizeof(int));
	double chi = 0;
	uint64_t k;
	int i;

	zipf_init(&z, n, s);
	rng_seed(&r, seed, 1);
	for (i = 0; i < draws; i++) {
		k = zipf_draw(&z, &r);
		if (k < 1 || k > n) {
			free(count);
			return 1e9;
		}
		count[k]++;
	}
	for (k = 1; k <= n; k++) {
		double e = draws * zipf_pmf_slow(n, s, k);

		chi += (count[k] - e) * (count[k] - e) / e;
	}
	free(count);
	return chi;
}

/* 1% critical values of chi-square: df 9 -> 21.67, df 19 -> 36.19. Each
 * case fails 1% of the time for a correct sampler under a random seed;
 * the seeds are fixed, so the result is the same on every run. */
TEST(zipf_matches_the_law)
{
	NEAR(chi_square(10, 1.1, 200000, 1), 0, 21.67, "chi-square df 9, 1%");
	NEAR(chi_square(10, 0.5, 200000, 2), 0, 21.67, "chi-square df 9, 1%");
	NEAR(chi_square(20, 1.0, 200000, 3), 0, 36.19, "s = 1 exactly (log branch)");
	NEAR(chi_square(20, 2.5, 200000, 4), 0, 36.19, "chi-square df 19, 1%");
	NEAR(chi_square(10, 1.0000001, 200000, 5), 0, 21.67, "s next to 1");
}

TEST(zipf_edges)
{
	struct zipf z;
	struct rng r;
	uint64_t k, hi = 0, ones = 0;
	int i;

	zipf_init(&z, 1, 1.1);
	rng_seed(&r, 9, 0);
	for (i = 0; i < 1000; i++)
		CHECK(zipf_draw(&z, &r) == 1);
	/* n = 5e9: ranks stay in range, rank 1 keeps its share 1/H(n, 1.1)
	 * (H(5e9, 1.1) = 9.513: zeta(1.1) = 10.58 less the tail beyond n). */
	zipf_init(&z, 5000000000ull, 1.1);
	for (i = 0; i < 100000; i++) {
		k = zipf_draw(&z, &r);
		CHECK(k >= 1 && k <= 5000000000ull);
		hi = k > hi ? k : hi;
		ones += k == 1;
	}
	CHECK(hi > 1000000);
	NEAR((double)ones / 100000, 1.0 / 9.513, 0.004, "binomial sd 0.001");
}

static const struct load_var test_vars[] = {
	{ .name = (char *)"id", .kind = LVAR_ZIPF, .zipf = { 1000000, 1.1, 1 } },
	{ .name = (char *)"day", .kind = LVAR_UNIFORM, .uniform = (int[]){ 1, 28 }, .nuniform = 2 },
	{ .name = (char *)"n", .kind = LVAR_SEQUENCE, .sequence = { 5, 1 } },
	{ .name = (char *)"key", .kind = LVAR_UUID, .uuid = { 1 } },
};

static const struct load_request test_reqs[] = {
	{ .name = (char *)"a", .weight = 3, .path = (char *)"/a/{id}/{day}" },
	{ .name = (char *)"b", .weight = 1, .path = (char *)"/b/{n}", .body = (char *)"{key}", .body_len = 5 },
	{ .name = (char *)"c", .weight = 1, .path = (char *)"/c" },
};

TEST(pool_is_seeded_and_prefix_stable)
{
	struct load_pool a, b, c;
	const char *val[4];
	size_t len[4];
	uint64_t k, kinds[3] = { 0 };
	int ok = 1;

	CHECK(!load_pool_build(&a, test_reqs, 3, test_vars, 4, 42, 20000));
	CHECK(!load_pool_build(&b, test_reqs, 3, test_vars, 4, 42, 5000));
	CHECK(!load_pool_build(&c, test_reqs, 3, test_vars, 4, 43, 20000));
	CHECK(strcmp(a.digest, c.digest) != 0);
	for (k = 0; k < 5000; k++) {
		size_t oa = a.off[k + 1] - a.off[k], ob = k + 1 < b.n ? b.off[k + 1] - b.off[k] :
							       b.nvals - b.off[k];

		if (a.req[k] != b.req[k] || oa != ob || memcmp(a.vals + a.off[k], b.vals + b.off[k], oa))
			ok = 0;
	}
	CHECK(ok);
	for (k = 0; k < a.n; k++) {
		kinds[a.req[k]]++;
		load_pool_values(&a, k, val, len);
		if (a.req[k] == 0) {
			long id = strtol(val[0], NULL, 10), day = strtol(val[1], NULL, 10);

			if (id < 1 || id > 1000000 || day < 1 || day > 28 || len[0] > 7)
				ok = 0;
		} else if (a.req[k] == 1) {
			/* the sequence counts entries of the pool, not requests of b */
			if (strtoull(val[2], NULL, 10) != 5 + k || len[3] != 36 || val[3][14] != '4' ||
			    !strchr("89ab", val[3][19]) || val[3][8] != '-')
				ok = 0;
		}
	}
	CHECK(ok);
	NEAR((double)kinds[0] / a.n, 0.6, 0.02, "weight 3 of 5; binomial sd 0.0035");
	NEAR((double)kinds[2] / a.n, 0.2, 0.02, "weight 1 of 5");
	CHECK(a.uses[0 * 4 + 0] && a.uses[0 * 4 + 1] && !a.uses[0 * 4 + 2]);
	CHECK(!a.uses[2 * 4 + 0] && !a.uses[2 * 4 + 3]);
	CHECK(load_pool_bytes(&a) > 20000 * 12);
	load_pool_release(&a);
	load_pool_release(&b);
	load_pool_release(&c);
}

TEST(template_references)
{
	const char *s = "/x/{id}/{nope}/{9}/{}{day}{", *nm;
	size_t pos = 0, at, nl, n = 0;

	while (load_tmpl_next(s, strlen(s), &pos, &at, &nm, &nl))
		n++;
	CHECK(n == 3);   /* {id}, {nope}, {day}: {9} and {} are not names */
	CHECK(load_var_find(test_vars, 4, "day", 3) == 1);
	CHECK(load_var_find(test_vars, 4, "nope", 4) == -1);
	CHECK(load_request_uses_vars(&test_reqs[1], test_vars, 4));
	CHECK(!load_request_uses_vars(&test_reqs[2], test_vars, 4));
}

/* The pre-flight's expansion: entry k's values in path, headers and body;
 * braces that name no variable stay as written. */
TEST(expand_request)
{
	struct load_var vars[] = {
		{ .name = (char *)"id", .kind = LVAR_SEQUENCE, .sequence = { 40, 1 } },
		{ .name = (char *)"day", .kind = LVAR_UNIFORM, .uniform = (int[]){ 7, 7 }, .nuniform = 2 },
	};
	struct kv hdr[] = { { (char *)"X-Day", (char *)"d{day}" } };
	struct load_request reqs[] = {
		{ .name = (char *)"a", .weight = 1, .path = (char *)"/a/{id}?x={nope}",
		  .headers = hdr, .nheaders = 1, .body = (char *)"{\"id\":{id}}", .body_len = 11 },
	};
	struct load_request ex;
	struct load_pool p;
	int64_t k;

	CHECK(!load_pool_build(&p, reqs, 1, vars, 2, 5, 10));
	k = load_pool_nth(&p, 0, 2);
	CHECK(k == 2);
	load_pool_expand(&p, (uint64_t)k, &reqs[0], vars, &ex);
	CHECK_STR(ex.path, "/a/42?x={nope}");
	CHECK_STR(ex.headers[0].value, "d7");
	CHECK(ex.body_len == 9 && !memcmp(ex.body, "{\"id\":42}", 9));
	CHECK(load_pool_nth(&p, 0, 10) == -1);
	load_request_expanded_release(&ex);
	load_pool_release(&p);
}

int main(void)
{
	RUN(zipf_matches_the_law);
	RUN(zipf_edges);
	RUN(pool_is_seeded_and_prefix_stable);
	RUN(template_references);
	RUN(expand_request);
	return t_done();
}
