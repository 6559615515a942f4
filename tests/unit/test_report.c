/*
 * test_report: roll-ups from a known run database (tests/fixtures/
 * report_fixture.h) and the four formats.
 *
 *   test_report                      run the tests
 *   test_report --write-fixture DIR  write DIR/fixture/run.db and exit
 *                                    (tests/fixtures/report_run.sql is its dump)
 */
#include <jansson.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "../fixtures/report_fixture.h"
#include "report/report.h"
#include "stat/stat.h"

static char tmpdir[] = "/tmp/test_report.XXXXXX";

static int load_fixture(struct report *r, struct store *st, const char *update_sql)
{
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;
	int ret = -1;

	if (fx_write(tmpdir))
		return -1;
	if (store_open_run(st, tmpdir, "fixture", &dir, &id))
		goto out;
	if (update_sql && store_exec(st, update_sql))
		goto out;
	ret = report_load(r, st, id.buf);
out:
	sbuf_release(&dir);
	sbuf_release(&id);
	return ret;
}

static const struct report_rung *rung(const struct report *r, const char *impl,
				      const char *stage, double rate)
{
	size_t i;

	for (i = 0; i < r->nrungs; i++)
		if (!strcmp(r->impls[r->rungs[i].impl].name, impl) &&
		    !strcmp(r->rungs[i].stage, stage) && r->rungs[i].rate == rate)
			return &r->rungs[i];
	return NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Two windows of one rung, of different sizes: A has 10000 requests in
 * 1..2 ms, B has 1000 of which 100 took 50 ms. p99(A) ~ 2 ms, p99(B) = 50
 * ms, their mean ~ 26 ms; the pooled 11000 samples hold 100 slow ones
 * (0.91% < 1%), so the pooled p99 is a fast one (~2 ms). The report must
 * give the pooled value (within the histogram's 0.78% bucket error, 1%
 * tolerance), not the mean.
 */
TEST(merged_p99_not_mean_of_p99s)
{
	static double all[11000];
	struct hist ha, hb;
	struct store st;
	struct store_row row;
	struct report r;
	struct sbuf path = SBUF_INIT, blob = SBUF_INIT, dir = SBUF_INIT, id = SBUF_INIT;
	struct rng g;
	const struct report_rung *gr;
	size_t i, n = 0;
	double exact, mean;
	char hash[65];
	int w;

	hist_init(&ha);
	hist_init(&hb);
	rng_seed(&g, 99, 1);
	for (i = 0; i < 10000; i++) {
		double ms = 1 + rng_uniform(&g);

		hist_record(&ha, (uint64_t)(ms * 1e6));
		all[n++] = (double)(uint64_t)(ms * 1e6) / 1e6;
	}
	for (i = 0; i < 1000; i++) {
		double ms = i < 100 ? 50 : 1 + rng_uniform(&g);

		hist_record(&hb, (uint64_t)(ms * 1e6));
		all[n++] = (double)(uint64_t)(ms * 1e6) / 1e6;
	}
	qsort(all, n, sizeof(*all), cmp_d);
	exact = all[(size_t)ceil(0.99 * (double)n) - 1];   /* nearest rank */
	mean = (hist_percentile_ms(&ha, 99) + hist_percentile_ms(&hb, 99)) / 2;

	sbuf_addf(&path, "%s/two", tmpdir);
	CHECK(!mkdir_p(path.buf, 0755));
	sbuf_adds(&path, "/run.db");
	CHECK(!store_open(&st, path.buf, 1));
	fx_run_row(&row, "two", "two", "two.yaml", 1, "ladder", 1, hash);
	store_row_text(&row, "status", "finished");
	store_row_text(&row, "harness_version", "t");
	CHECK(!store_row_insert(&st, &row, NULL));
	for (w = 0; w < 2; w++) {
		struct hist *h = w ? &hb : &ha;

		sbuf_reset(&blob);
		hist_serialize(h, &blob);
		store_row_init(&row, "windows");
		store_row_text(&row, "run_id", "two");
		store_row_text(&row, "stage", "ladder");
		store_row_int(&row, "rung", 0);
		store_row_int(&row, "block", w);
		store_row_int(&row, "slot", 0);
		store_row_text(&row, "impl", "evloop");
		store_row_real(&row, "rate", 1000);
		store_row_text(&row, "state", "done");
		store_row_text(&row, "status", "accepted");
		store_row_int(&row, "due", (int64_t)h->total);
		store_row_int(&row, "completed", (int64_t)h->total);
		store_row_real(&row, "p99_ms", hist_percentile_ms(h, 99));
		store_row_blob(&row, "latency_hist", blob.buf, blob.len);
		CHECK(!store_row_insert(&st, &row, NULL));
	}
	store_close(&st);

	CHECK(!store_open_run(&st, tmpdir, "two", &dir, &id));
	CHECK(!report_load(&r, &st, "two"));
	gr = rung(&r, "evloop", "ladder", 1000);
	CHECK(gr != NULL);
	if (gr) {
		CHECK(gr->accepted == 2 && gr->completed == 11000);
		NEAR(gr->p99.ms, exact, exact * 0.01, "histogram buckets: <= 0.78% relative error");
		CHECK(fabs(gr->p99.ms - mean) > 20);   /* ~2 ms vs ~26 ms */
		CHECK(gr->p99.lo_ms <= gr->p99.ms && gr->p99.ms <= gr->p99.hi_ms);
	}
	printf("# merged p99 %.4f ms, exact pooled %.4f ms, mean of p99s %.4f ms\n",
	       gr ? gr->p99.ms : NAN, exact, mean);
	report_release(&r);
	store_close(&st);
	hist_release(&ha);
	hist_release(&hb);
	sbuf_release(&path);
	sbuf_release(&blob);
	sbuf_release(&dir);
	sbuf_release(&id);
}

TEST(fixture_counts_and_reasons)
{
	struct store st;
	struct report r;
	const struct report_rung *g;
	const struct report_reason *q;

	CHECK(!load_fixture(&r, &st, NULL));
	CHECK(r.nimpls == 2);
	CHECK_STR(r.impls[0].name, "evloop");
	CHECK_STR(r.impls[1].name, "threads");
	CHECK(r.total == 40 && r.accepted == 36 && r.not_done == 0);
	CHECK(r.nrungs == 14);   /* 2 x (4 ladder + 3 confirm) */
	g = rung(&r, "evloop", "ladder", 4000);
	CHECK(g && g->total == 2 && g->accepted == 1);
	if (g) {
		q = report_reason_find(g->reasons, g->nreasons, "achieved_vs_offered");
		CHECK(q && q->rejected == 1);
		q = report_reason_find(g->reasons, g->nreasons, "generator");
		CHECK(q && q->rejected == 1);
	}
	g = rung(&r, "threads", "confirm", 1000);
	CHECK(g && g->total == 4 && g->accepted == 3);
	if (g) {
		q = report_reason_find(g->reasons, g->nreasons, "under_warmed");
		CHECK(q && q->rejected == 1);
	}
	/* Recorded-only failure: counted, rejects nothing. */
	q = report_reason_find(r.impls[0].reasons, r.impls[0].nreasons, "p999_flat");
	CHECK(q && q->recorded == 1 && q->rejected == 0);
	CHECK(r.impls[0].total == 20 && r.impls[0].accepted == 18);
	CHECK(r.impls[1].total == 20 && r.impls[1].accepted == 18);
	CHECK(r.nevents == 1);
	report_release(&r);
	store_close(&st);
}

TEST(fixture_cpu_memory_ratios)
{
	static const double ev[4] = { 0.05, 0.055, 0.06, 0.065 };
	struct store st;
	struct report r;
	const struct report_rung *g;
	double mean = 0, var = 0;
	size_t i;
	int k;

	CHECK(!load_fixture(&r, &st, NULL));
	for (k = 0; k < 4; k++) {
		g = rung(&r, "evloop", "ladder", fx_rates[k]);
		CHECK(g != NULL);
		if (g)   /* cpu_s = completed * cost exactly: only float rounding */
			NEAR(g->cpu_ms_per_req, ev[k], 1e-9, "exact by construction");
	}
	/* CV by hand: sample sd / mean of 0.05, 0.055, 0.06, 0.065. */
	for (i = 0; i < 4; i++)
		mean += ev[i] / 4;
	for (i = 0; i < 4; i++)
		var += (ev[i] - mean) * (ev[i] - mean) / 3;
	NEAR(r.impls[0].cpu_cv, sqrt(var) / mean, 1e-9, "exact by construction");
	CHECK(r.impls[0].cpu_cv_rungs == 4);
	/* Ratio threads / evloop at ladder 500: 0.08 / 0.05 = 1.6. */
	for (i = 0; i < r.nratios; i++)
		if (!strcmp(r.ratios[i].stage, "ladder") && r.ratios[i].rate == 500)
			NEAR(r.ratios[i].cpu, 1.6, 1e-9, "exact by construction");
	CHECK(r.nratios == 7);
	/* Memory: p99 (nearest rank) of 20 pooled samples = the largest:
	 * (80 + 500/100 + 9) MiB for threads at 500. */
	g = rung(&r, "threads", "ladder", 500);
	CHECK(g && g->anon_p99 == 94 * FX_MIB);
	report_release(&r);
	store_close(&st);
}

TEST(fixture_knees_promise_verdicts)
{
	struct store st;
	struct report r;
	const struct report_rung *g;
	size_t i, promise = 0, found = 0;

	CHECK(!load_fixture(&r, &st, NULL));
	/* evloop crosses 20 ms between 2000 (5.6 ms) and 4000 (~59 ms);
	 * threads between 1000 (6.4 ms) and 2000 (~57 ms). */
	CHECK(r.impls[0].has_knee && r.impls[0].knee.crossed);
	CHECK(r.impls[0].knee.knee_rps > 2000 && r.impls[0].knee.knee_rps < 4000);
	CHECK(r.impls[1].has_knee && r.impls[1].knee.crossed);
	CHECK(r.impls[1].knee.knee_rps > 1000 && r.impls[1].knee.knee_rps < 2000);
	/* Ladder rungs hold 2 (or 1) windows < confirm.reps 4, but the
	 * confirm windows at the bracketing rungs count too (harness/model/knee.h):
	 * 2000 and 4000 hold 5 valid windows each. */
	CHECK(r.impls[0].has_knee_ci && r.impls[0].knee_ci.inferential);
	CHECK(r.min_reps == 4 && r.nboot == 2000);
	CHECK(r.impls[0].knee_ci.lo <= r.impls[0].knee.knee_rps &&
	      r.impls[0].knee.knee_rps <= r.impls[0].knee_ci.hi);
	/* The isotonic fit is non-decreasing and drawn for each ladder rung. */
	for (i = 1; i < 4; i++) {
		const struct report_rung *a = rung(&r, "threads", "ladder", fx_rates[i - 1]);
		const struct report_rung *b = rung(&r, "threads", "ladder", fx_rates[i]);

		CHECK(a && b && a->fit_ms <= b->fit_ms);
	}
	/* Promise: confirm groups; evloop holds at 2000, threads does not. */
	for (i = 0; i < r.nrungs; i++)
		promise += !strcmp(r.rungs[i].stage, "confirm");
	CHECK(promise == 6);
	g = rung(&r, "evloop", "confirm", 2000);
	CHECK(g && g->pslo.ms <= 20 && g->accepted == 3 && g->under_slo == 3);
	g = rung(&r, "threads", "confirm", 2000);
	CHECK(g && g->pslo.ms > 20 && g->under_slo == 0);
	/* Verdict at confirm 2000: block 6 evloop rejected -> 3 pairs of 4.
	 * By default (Hodges-Lehmann, Holm): 3 pairs cannot reach 95 % (the
	 * signed-rank test's best two-sided p is 1/4): inconclusive, no
	 * shift detectable. */
	for (i = 0; i < r.nverdicts; i++) {
		const struct report_verdict *v = &r.verdicts[i];

		if (strcmp(v->stage, "confirm") || v->rate != 2000 || strcmp(v->metric, "p99_ms"))
			continue;
		found++;
		CHECK(v->blocks == 4 && v->ci.n == 3);
		CHECK(v->method == STAT_HL && isnan(v->p) && isinf(v->mde));
		CHECK(v->ci.verdict == VERDICT_INCONCLUSIVE);
		CHECK(v->a == 0 && v->b == 1);
	}
	CHECK(found == 1);
	report_release(&r);
	store_close(&st);

	/* compare.interval t, correction none: the paired t interval decides
	 * (as before intervals that fit the data). */
	CHECK(!load_fixture(&r, &st, "UPDATE runs SET spec_text = CAST(replace(CAST(spec_text AS "
			    "TEXT), 'compare: { margin_pct: 5 }', 'compare: { margin_pct: 5, "
			    "interval: t, correction: none }') AS BLOB)"));
	for (i = 0, found = 0; i < r.nverdicts; i++) {
		const struct report_verdict *v = &r.verdicts[i];

		if (strcmp(v->stage, "confirm") || v->rate != 2000 || strcmp(v->metric, "p99_ms"))
			continue;
		found++;
		CHECK(v->method == STAT_T && v->p < 0.05 && isfinite(v->mde));
		CHECK(v->ci.verdict == VERDICT_A_LOWER);
	}
	CHECK(found == 1);
	/* The table (issue 29): tested verdicts only, the decided ones first;
	 * the untested (one pair: no t interval) in one line below it. */
	{
		struct sbuf md = SBUF_INIT;
		const char *tab, *end, *row;
		size_t decided = 0, undecided = 0, untested = 0, disorder = 0;

		for (i = 0; i < r.nverdicts; i++)
			untested += isnan(r.verdicts[i].p);
		report_md(&r, &md);
		tab = strstr(md.buf, "| stage | rate (req/s) | A | B | metric | pairs/blocks");
		CHECK(tab != NULL);
		end = tab ? strstr(tab, "\n\n") : NULL;
		for (row = tab ? strstr(tab, "\n| ") : NULL; row && row < end;
		     row = strstr(row + 1, "\n| ")) {
			const char *eol = strchr(row + 1, '\n');
			int dec = !memmem(row, (size_t)(eol - row), "| inconclusive |", 16);

			CHECK(!memmem(row, (size_t)(eol - row), "not tested", 10));
			disorder += dec && undecided;
			decided += dec;
			undecided += !dec;
		}
		CHECK(decided >= 1 && disorder == 0);
		CHECK(decided + undecided + untested == r.nverdicts);
		CHECK(untested >= 1);
		CHECK(strstr(md.buf, "verdicts not tested (too few pairs for a 95% interval): ladder, "
				     "evloop / threads at ") != NULL);
		sbuf_release(&md);
	}
	report_release(&r);
	store_close(&st);
}

static void render_all(const struct report *r, struct sbuf out[4])
{
	report_md(r, &out[0]);
	report_html(r, &out[1]);
	report_json(r, &out[2]);
	report_csv(r, &out[3]);
}

TEST(exploratory_stamp_in_every_format)
{
	struct sbuf out[4] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct store st;
	struct report r;
	int k;

	CHECK(!load_fixture(&r, &st, "UPDATE runs SET exploratory = 1"));
	render_all(&r, out);
	for (k = 0; k < 3; k++)
		CHECK(strstr(out[k].buf, "EXPLORATORY") != NULL);
	CHECK(strstr(out[3].buf, ",exploratory,") != NULL);   /* csv column, 1 on every row */
	CHECK(count(out[3].buf, ",fixture,") == 40);
	CHECK(strstr(out[3].buf, ",1,0\n") != NULL && !strstr(out[3].buf, ",0,0\n"));
	report_release(&r);
	store_close(&st);
	for (k = 0; k < 4; k++)
		sbuf_reset(&out[k]);

	CHECK(!load_fixture(&r, &st, NULL));
	render_all(&r, out);
	for (k = 0; k < 3; k++)
		CHECK(strstr(out[k].buf, "EXPLORATORY") == NULL);
	CHECK(strstr(out[3].buf, ",1,0\n") == NULL);
	report_release(&r);
	store_close(&st);
	for (k = 0; k < 4; k++)
		sbuf_release(&out[k]);
}

/* CPU per request reads in microseconds, as in compare, load and history:
 * evloop's 0.05 ms at ladder 500 (exact by construction) is 50.0 in the md
 * rungs row and the html's cpu_per_request chart; report.json keeps
 * cpu_ms_per_req and carries cpu_us_per_request beside it. */
TEST(cpu_per_request_in_microseconds)
{
	struct sbuf out[4] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct store st;
	struct report r;
	json_t *j = NULL, *g;
	const char *row;
	size_t i, found = 0;
	int k;

	CHECK(!load_fixture(&r, &st, NULL));
	render_all(&r, out);
	for (k = 0; k < 2; k++) {
		CHECK(strstr(out[k].buf, "CPU µs/request") != NULL);
		CHECK(!strstr(out[k].buf, "ms/req") && !strstr(out[k].buf, "ms per request") &&
		      !strstr(out[k].buf, "CPU per request (ms)"));
	}
	/* the charts are inline in the html only */
	CHECK(strstr(out[1].buf, "CPU per request (µs)") != NULL);   /* axis */
	CHECK(strstr(out[1].buf, "50.0 µs per request") != NULL);    /* a point */
	row = strstr(out[0].buf, "\n| evloop | ladder | 500 |");
	CHECK(row && strstr(row, "| 50.0 |") && strstr(row, "| 50.0 |") < strchr(row + 1, '\n'));
	j = json_loads(out[2].buf, 0, NULL);
	CHECK(j != NULL);
	json_array_foreach(json_object_get(j, "rungs"), i, g) {
		double ms = json_real_value(json_object_get(g, "cpu_ms_per_req"));
		double us = json_real_value(json_object_get(g, "cpu_us_per_request"));

		if (!json_is_real(json_object_get(g, "cpu_ms_per_req")))
			continue;
		found++;
		NEAR(us, ms * 1000, 1e-9 * us, "the same number in two units");
		if (!strcmp(json_string_value(json_object_get(g, "impl")), "evloop") &&
		    !strcmp(json_string_value(json_object_get(g, "stage")), "ladder") &&
		    json_real_value(json_object_get(g, "rate_rps")) == 500)
			NEAR(us, 50, 1e-9, "exact by construction");
	}
	CHECK(found == r.nrungs);
	json_decref(j);
	report_release(&r);
	store_close(&st);
	for (k = 0; k < 4; k++)
		sbuf_release(&out[k]);
}

/* Every axis tick label is a plain number: digits, one '.', then an
 * optional k, M or %; never an exponent or more than 3 decimals. */
static int plain_ticks(const char *html)
{
	const char *p = html;
	size_t n = 0;

	while ((p = strstr(p, "class=\"tick\""))) {
		const char *t = strchr(p, '>'), *e;
		size_t dec = 0;
		int dot = 0;

		if (!t)
			return 0;
		e = strchr(++t, '<');
		if (!e || e == t)
			return 0;
		for (p = t; p < e; p++) {
			if (*p == '.') {
				if (dot++)
					return 0;
			} else if ((*p == 'k' || *p == 'M' || *p == '%') && p == e - 1) {
				continue;
			} else if (*p < '0' || *p > '9') {
				fprintf(stderr, "# tick label '%.*s'\n", (int)(e - t), t);
				return 0;
			} else if (dot) {
				dec++;
			}
		}
		if (e[-1] != '%') {   /* round: at most 3 significant digits */
			const char *a = t, *b = e - 1;

			while (a < b && (*a == '0' || *a == '.'))
				a++;
			while (b > a && (*b == 'k' || *b == 'M' || *b == '0' || *b == '.'))
				b--;
			if (b - a + 1 - (memchr(a, '.', (size_t)(b - a + 1)) != NULL) > 3 || dec > 3) {
				fprintf(stderr, "# tick label '%.*s'\n", (int)(e - t), t);
				return 0;
			}
		}
		n++;
	}
	return n > 20;
}

TEST(formats_shape)
{
	struct sbuf out[4] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct store st;
	struct report r;
	json_t *j;
	json_error_t err;
	int k;

	CHECK(!load_fixture(&r, &st, NULL));
	render_all(&r, out);
	/* html: one <svg> per chart, inside its figure; nothing external. */
	CHECK(count(out[1].buf, "<svg") == report_nchart());
	CHECK(count(out[1].buf, "<figure class=\"chart\"") == report_nchart());
	CHECK(!strstr(out[1].buf, "<script") && !strstr(out[1].buf, "src=") &&
	      count(out[1].buf, "href=") == count(out[1].buf, "href=\"#") &&
	      !strstr(out[1].buf, "@import"));
	/* every chart by name, once; the table of contents links it */
	for (k = 0; k < (int)report_nchart(); k++) {
		char want[96];

		snprintf(want, sizeof(want), "data-chart=\"%s\"", report_chart_name((size_t)k));
		CHECK(count(out[1].buf, want) == 1);
		snprintf(want, sizeof(want), "href=\"#chart-%s\"", report_chart_name((size_t)k));
		CHECK(count(out[1].buf, want) == 1);
	}
	CHECK(plain_ticks(out[1].buf));
	/* csv: the knee's columns first, one row per finished window. */
	CHECK(!strncmp(out[3].buf, "impl,stage,offered_rps,block,p99_ms,requests,errors,"
			"achieved_rps,warm,", 70));
	CHECK(count(out[3].buf, "\n") == 41);
	/* json parses and carries the numbers. */
	j = json_loads(out[2].buf, 0, &err);
	CHECK(j != NULL);
	if (j) {
		CHECK(json_array_size(json_object_get(j, "impls")) == 2);
		CHECK(json_array_size(json_object_get(j, "rungs")) == r.nrungs);
		CHECK(json_array_size(json_object_get(j, "windows")) == 40);
		CHECK(json_array_size(json_object_get(j, "promise")) == 6);
		CHECK(json_is_string(json_object_get(json_object_get(j, "run"), "spec_hash")));
		json_decref(j);
	}
	/* md: the provenance and a rung's merged p99 as the table shows it. */
	CHECK(strstr(out[0].buf, r.spec_hash) != NULL);
	CHECK(strstr(out[0].buf, "| spec commit | 0123456789abcdef0123456789abcdef01234567 (clean") != NULL);
	CHECK(strstr(out[0].buf, "| kernel | 6.1.0-fixture |") != NULL);
	report_release(&r);
	store_close(&st);
	for (k = 0; k < 4; k++)
		sbuf_release(&out[k]);
}

/* A stored spec this binary cannot parse: the report still renders its
 * counts and merged percentiles, says why the knees are missing, and
 * every chart is still drawn. */
TEST(unparsable_spec_degrades)
{
	struct sbuf out[4] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	struct store st;
	struct report r;
	const struct report_rung *g;
	int k;

	CHECK(!load_fixture(&r, &st, "UPDATE runs SET spec_text = CAST('version: 99' AS BLOB)"));
	CHECK(!r.spec_ok && isnan(r.slo_ms));
	CHECK(!r.impls[0].has_knee && !r.impls[1].has_knee);
	CHECK(r.total == 40 && r.accepted == 36);
	g = rung(&r, "evloop", "ladder", 500);
	CHECK(g && isfinite(g->p99.ms) && g->under_slo == 0);
	render_all(&r, out);
	CHECK(strstr(out[0].buf, "could not be parsed") != NULL);
	CHECK(count(out[1].buf, "<svg") == report_nchart());
	for (k = 0; k < 2; k++)   /* no NaN printed as a number */
		CHECK(!strstr(out[k].buf, " nan") && !strstr(out[k].buf, ">nan") &&
		      !strstr(out[k].buf, "[nan"));
	CHECK(strstr(out[2].buf, "\"spec_parsed\": false") != NULL);
	report_release(&r);
	store_close(&st);
	for (k = 0; k < 4; k++)
		sbuf_release(&out[k]);
}

TEST(write_run_writes_the_chosen_files)
{
	struct store st;
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT, out = SBUF_INIT, f = SBUF_INIT;
	unsigned bit;

	CHECK(!fx_write(tmpdir));
	CHECK(!store_open_run(&st, tmpdir, "fixture", &dir, &id));
	sbuf_addf(&out, "%s/out/nested", tmpdir);
	CHECK(!report_write_run(&st, id.buf, out.buf, REPORT_MD | REPORT_CSV));
	for (bit = 1; bit & REPORT_ALL; bit <<= 1) {
		sbuf_reset(&f);
		sbuf_addf(&f, "%s/%s", out.buf, report_file_name(bit));
		CHECK((access(f.buf, R_OK) == 0) == !!(bit & (REPORT_MD | REPORT_CSV)));
	}
	store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&id);
	sbuf_release(&out);
	sbuf_release(&f);
}

TEST(unknown_run_is_an_error)
{
	struct store st;
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;

	CHECK(store_open_run(&st, tmpdir, "no-such-run", &dir, &id) == -1);
	sbuf_release(&dir);
	sbuf_release(&id);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-fixture"))
		return fx_write(argv[2]) ? 1 : 0;
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(merged_p99_not_mean_of_p99s);
	RUN(fixture_counts_and_reasons);
	RUN(fixture_cpu_memory_ratios);
	RUN(fixture_knees_promise_verdicts);
	RUN(exploratory_stamp_in_every_format);
	RUN(cpu_per_request_in_microseconds);
	RUN(formats_shape);
	RUN(unparsable_spec_degrades);
	RUN(write_run_writes_the_chosen_files);
	RUN(unknown_run_is_an_error);
	t_rm_rf(tmpdir);
	return t_done();
}
