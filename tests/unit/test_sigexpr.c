/*
 * test_sigexpr: derived signals (sigexpr.h) against hand-computed values:
 * a cache hit rate from two counters over a window (and across a
 * restart), a pool total summed over label sets per poll, a histogram's
 * p99 interpolated as Prometheus's histogram_quantile does, and the
 * values that cannot be computed (NAN with a reason, never 0).
 */
#include <math.h>
#include <stdlib.h>

#include "base/sigexpr.h"
#include "t.h"

static const char *const known[] = { "hits", "misses", "pool", "pause_bucket", "heap" };

static struct sigexpr *parse_ok(const char *s)
{
	struct sigexpr *x = NULL;
	char *err = NULL;

	if (sigexpr_parse(s, known, 5, &x, &err)) {
		printf("#   parse \"%s\": %s\n", s, err);
		free(err);
		return NULL;
	}
	return x;
}

static char *parse_err(const char *s)
{
	struct sigexpr *x = NULL;
	char *err = NULL;

	if (!sigexpr_parse(s, known, 5, &x, &err)) {
		sigexpr_free(x);
		return NULL;
	}
	return err;
}

/* hits 100 -> 180 -> 260, misses 50 -> 70 -> 90: 160 hits, 40 misses */
static const struct sigexpr_row counters[] = {
	{ 0.0, "hits", NULL, 100 }, { 0.0, "misses", NULL, 50 },
	{ 0.5, "hits", NULL, 180 }, { 0.5, "misses", NULL, 70 },
	{ 1.0, "", NULL, NAN },      /* a failed poll */
	{ 2.0, "hits", NULL, 260 }, { 2.0, "misses", NULL, 90 },
};

TEST(hit_rate_over_the_window)
{
	struct sigexpr *x = parse_ok("delta(hits) / (delta(hits) + delta(misses))");
	const char *why = "x";

	CHECK(x && sigexpr_kind(x) == SIGEXPR_WINDOW);
	if (!x)
		return;
	NEAR(sigexpr_window(x, counters, 7, &why), 0.8, 1e-12, "160 / 200, exact");
	CHECK(why == NULL);
	sigexpr_free(x);
	x = parse_ok("rate(hits)");
	NEAR(sigexpr_window(x, counters, 7, &why), 80.0, 1e-12, "160 over 2 s");
	sigexpr_free(x);
}

TEST(a_restart_counts_its_new_value)
{
	/* 100 -> 150 (+50), restart -> 30 (+30), -> 45 (+15): 95 */
	static const struct sigexpr_row r[] = {
		{ 0, "hits", NULL, 100 }, { 1, "hits", NULL, 150 },
		{ 2, "hits", NULL, 30 }, { 3, "hits", NULL, 45 },
	};
	struct sigexpr *x = parse_ok("delta(hits)");
	const char *why;

	NEAR(sigexpr_window(x, r, 4, &why), 95, 1e-12, "exact");
	sigexpr_free(x);
}

TEST(per_poll_sum_over_label_sets)
{
	/* pool{state=idle} + pool{state=busy}, then + 1 */
	static const struct sigexpr_row r[] = {
		{ 0, "pool", "idle", 6 }, { 0, "pool", "busy", 2 },
		{ 1, "pool", "idle", 3 }, { 1, "pool", "busy", 5 }, { 1, "heap", NULL, 7 },
		{ 2, "heap", NULL, 9 },   /* pool not read: no point */
	};
	struct sigexpr *x = parse_ok("pool + 1");
	double *t, *v;
	const char *why;
	size_t n;

	CHECK(x && sigexpr_kind(x) == SIGEXPR_POLL);
	n = sigexpr_series(x, r, 6, &t, &v);
	CHECK(n == 2);
	if (n == 2) {
		NEAR(v[0], 9, 0, "6 + 2 + 1");
		NEAR(v[1], 9, 0, "3 + 5 + 1");
		NEAR(t[1], 1, 0, "the poll's time");
	}
	NEAR(sigexpr_window(x, r, 6, &why), 9, 0, "the mean of the polls");
	free(t);
	free(v);
	sigexpr_free(x);
	x = parse_ok("max(pool) - min(heap)");
	NEAR(sigexpr_window(x, r, 6, &why), 1, 0, "8 - 7");
	sigexpr_free(x);
}

TEST(histogram_quantile_interpolates)
{
	/* cumulative buckets: the window adds 50 at <= 0.001, 40 more at
	 * <= 0.01 (90), 10 more at <= 0.1 (100); +Inf 100. p99: rank 99, in
	 * (0.01, 0.1]: 0.01 + 0.09 * (99 - 90) / 10 = 0.091. p50: rank 50 in
	 * the first bucket: 0 + 0.001 * 50 / 50 = 0.001. */
	static const struct sigexpr_row r[] = {
		{ 0, "pause_bucket", "0.001", 10 }, { 0, "pause_bucket", "0.01", 10 },
		{ 0, "pause_bucket", "0.1", 10 }, { 0, "pause_bucket", "+Inf", 10 },
		{ 1, "pause_bucket", "0.001", 60 }, { 1, "pause_bucket", "0.01", 100 },
		{ 1, "pause_bucket", "0.1", 110 }, { 1, "pause_bucket", "+Inf", 110 },
	};
	struct sigexpr *x = parse_ok("quantile(0.99, pause_bucket) * 1000");
	const char *why;

	NEAR(sigexpr_window(x, r, 8, &why), 91, 1e-9, "exact interpolation, in ms");
	sigexpr_free(x);
	x = parse_ok("quantile(0.5, pause_bucket)");
	NEAR(sigexpr_window(x, r, 8, &why), 0.001, 1e-12, "exact");
	sigexpr_free(x);
}

TEST(not_computable_is_nan_with_a_reason)
{
	static const struct sigexpr_row one[] = { { 0, "hits", NULL, 5 }, { 0, "misses", NULL, 0 } };
	struct sigexpr *x = parse_ok("delta(hits) / delta(misses)");
	const char *why = NULL;

	CHECK(isnan(sigexpr_window(x, one, 2, &why)));
	CHECK(why != NULL);
	sigexpr_free(x);
	x = parse_ok("hits / misses");
	why = NULL;
	CHECK(isnan(sigexpr_window(x, one, 2, &why)));    /* 5 / 0 */
	CHECK(why != NULL);
	sigexpr_free(x);
	x = parse_ok("quantile(0.9, hits)");
	CHECK(isnan(sigexpr_window(x, counters, 7, &why)));  /* not buckets */
	sigexpr_free(x);
}

TEST(parse_errors_name_the_column)
{
	char *e;

	e = parse_err("delta(nope)");
	CHECK(e && strstr(e, "column 7: 'nope' is not a polled signal"));
	free(e);
	e = parse_err("hits / delta(misses)");
	CHECK(e && strstr(e, "outside a window function"));
	free(e);
	e = parse_err("mean(delta(hits))");
	CHECK(e && strstr(e, "inside another"));
	free(e);
	e = parse_err("delta(hits + 1)");
	CHECK(e && strstr(e, "take a signal's name"));
	free(e);
	e = parse_err("quantile(2, pause_bucket)");
	CHECK(e && strstr(e, "[0, 1]"));
	free(e);
	e = parse_err("(hits + misses");
	CHECK(e && strstr(e, "column 15: ')' expected"));
	free(e);
	e = parse_err("hits misses");
	CHECK(e && strstr(e, "column 6"));
	free(e);
	e = parse_err("sqrt(hits)");
	CHECK(e && strstr(e, "unknown function"));
	free(e);
	e = parse_err("");
	CHECK(e != NULL);
	free(e);
}

/* A dependency's counters (known NULL: any name its command prints),
 * read before (t 0) and after (t 1) a window's load; sigexpr_uses finds
 * rate(), which spec_deps.c refuses there. */
TEST(any_name_and_the_functions_used)
{
	static const struct sigexpr_row two[] = {
		{ 0, "keyspace_hits", NULL, 300 }, { 0, "keyspace_misses", NULL, 100 },
		{ 1, "keyspace_hits", NULL, 390 }, { 1, "keyspace_misses", NULL, 110 },
	};
	struct sigexpr *x = NULL;
	const char *why = "x";
	char *err = NULL;

	CHECK(!sigexpr_parse("delta(keyspace_hits) / (delta(keyspace_hits) +"
			     " delta(keyspace_misses))", NULL, 0, &x, &err));
	if (!x)
		return;
	NEAR(sigexpr_window(x, two, 4, &why), 0.9, 1e-12, "90 / 100");
	CHECK(why == NULL);
	CHECK(sigexpr_uses(x, "delta") && !sigexpr_uses(x, "rate") && !sigexpr_uses(x, "nope"));
	sigexpr_free(x);
	CHECK(!sigexpr_parse("last(used_memory) / 2 + rate(total_commands_processed)", NULL, 0,
			     &x, &err));
	CHECK(x && sigexpr_uses(x, "rate") && sigexpr_uses(x, "last"));
	sigexpr_free(x);
	x = NULL;
	CHECK(sigexpr_parse("delta(keyspace_hits)", known, 5, &x, &err));   /* known: refused */
	CHECK(err && strstr(err, "'keyspace_hits' is not a polled signal"));
	free(err);
}

int main(void)
{
	RUN(hit_rate_over_the_window);
	RUN(a_restart_counts_its_new_value);
	RUN(per_poll_sum_over_label_sets);
	RUN(histogram_quantile_interpolates);
	RUN(not_computable_is_nan_with_a_reason);
	RUN(parse_errors_name_the_column);
	RUN(any_name_and_the_functions_used);
	return t_done();
}
