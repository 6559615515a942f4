/*
 * test_promtext: the Prometheus text reader on stored /metrics output of
 * three client libraries (tests/fixtures/prom/: Go client_golang,
 * prometheus-net, Micrometer in both its 0.0.4 and OpenMetrics forms) and
 * on the edge cases of the format: label escaping, +Inf/NaN, counters with
 * and without _total, trailing commas, exemplars, malformed lines.
 */
#include <stdlib.h>

#include "base/promtext.h"
#include "t.h"
#include "base/util.h"

static int load(const char *name, struct promtext *p)
{
	struct sbuf path = SBUF_INIT, body = SBUF_INIT;
	char *err = NULL;
	int ret;

	sbuf_addf(&path, "tests/fixtures/prom/%s", name);
	ret = read_file(path.buf, &body, 1 << 20);
	if (!ret) {
		ret = promtext_parse(body.buf, body.len, p, &err);
		if (ret)
			printf("#   %s: %s\n", name, err);
	}
	free(err);
	sbuf_release(&path);
	sbuf_release(&body);
	return ret;
}

/* The one sample sel picks, or NAN when it picks none or several. */
static double one(const struct promtext *p, const char *sel_text)
{
	struct prom_selector sel;
	const struct prom_sample **m;
	char *err = NULL;
	double v = NAN;
	size_t n;

	if (prom_selector_parse(sel_text, &sel, &err)) {
		printf("#   selector %s\n", err);
		free(err);
		return NAN;
	}
	n = promtext_select(p, &sel, &m);
	if (n == 1)
		v = m[0]->value;
	free(m);
	prom_selector_release(&sel);
	return v;
}

static size_t count(const struct promtext *p, const char *sel_text)
{
	struct prom_selector sel;
	const struct prom_sample **m;
	char *err = NULL;
	size_t n;

	if (prom_selector_parse(sel_text, &sel, &err)) {
		free(err);
		return (size_t)-1;
	}
	n = promtext_select(p, &sel, &m);
	free(m);
	prom_selector_release(&sel);
	return n;
}

TEST(client_golang)
{
	struct promtext p;
	const struct prom_family *f;
	struct prom_selector sel;
	const struct prom_sample **m;
	char *err = NULL, *name;
	size_t i, n;

	if (load("client_golang.txt", &p)) {
		CHECK(0);
		return;
	}
	CHECK(p.nsamples == 46);   /* grep -vc "^#" of the file */
	/* the spec example of issue 15: a runtime/metrics counter */
	CHECK(one(&p, "go_gc_cycles_total_gc_cycles_total") == 41);
	f = promtext_family(&p, "go_gc_cycles_total_gc_cycles_total");
	CHECK(f && !strcmp(f->type, "counter"));
	CHECK(one(&p, "go_goroutines") == 73);
	CHECK(one(&p, "go_gc_duration_seconds_count") == 41);
	CHECK(one(&p, "go_gc_duration_seconds{quantile=\"0.5\"}") == 5.0834e-05);
	f = promtext_family(&p, "go_gc_duration_seconds_count");
	CHECK(f && !strcmp(f->type, "summary"));
	/* +Inf as a label value, and 1e18-sized values */
	CHECK(one(&p, "go_gc_heap_allocs_by_size_bytes_bucket{le=\"+Inf\"}") == 1.956098e+06);
	CHECK(one(&p, "go_gc_gomemlimit_bytes") == 9.223372036854776e+18);
	/* a pool signal, as in the issue: db_pool{state="busy"} */
	CHECK(one(&p, "go_sql_pool_connections{state=\"in_use\"}") == 4);
	CHECK(one(&p, "go_sql_pool_connections{db=\"ledger\",state=\"idle\"}") == 20);
	CHECK(isnan(one(&p, "go_sql_pool_connections")));   /* two series: not one number */
	CHECK(count(&p, "go_sql_pool_connections") == 2);
	CHECK(count(&p, "go_sql_pool_connections{state=\"gone\"}") == 0);
	/* escaping: \\ \" \n in label values and in HELP */
	CHECK(count(&p, "ledger_build_info{path=\"C:\\\\build\\\\ledger\"}") == 1);
	for (i = 0; i < p.nsamples; i++)
		if (!strcmp(p.samples[i].name, "ledger_build_info"))
			break;
	CHECK(i < p.nsamples && p.samples[i].nlabels == 3);
	if (i < p.nsamples && p.samples[i].nlabels == 3) {
		CHECK_STR(p.samples[i].labels[0].value, "tag \"v1.4.2\"\nsigned");
		CHECK_STR(p.samples[i].labels[1].value, "C:\\build\\ledger");
	}
	f = promtext_family(&p, "ledger_build_info");
	CHECK(f && f->help && strstr(f->help, "C:\\build\\ledger on the CI runner,\nand") != NULL);
	/* per-route counters: several series, named by what differs */
	CHECK(prom_selector_parse("ledger_http_requests_total{method=\"GET\"}", &sel, &err) == 0);
	n = promtext_select(&p, &sel, &m);
	CHECK(n == 2);
	if (n == 2) {
		name = promtext_series_name(m[0], &sel);
		CHECK_STR(name, "code=200,route=/invoices/{id}");
		free(name);
	}
	free(m);
	prom_selector_release(&sel);
	CHECK(prom_selector_parse("promhttp_metric_handler_requests_total", &sel, &err) == 0);
	n = promtext_select(&p, &sel, &m);
	CHECK(n == 3);
	if (n == 3) {
		name = promtext_series_name(m[2], &sel);
		CHECK_STR(name, "503");
		free(name);
	}
	free(m);
	prom_selector_release(&sel);
	promtext_release(&p);
}

TEST(prometheus_net)
{
	struct promtext p;

	if (load("prometheus_net.txt", &p)) {
		CHECK(0);
		return;
	}
	CHECK(p.nsamples == 35);
	/* counters with _total, selected with or without the suffix */
	CHECK(one(&p, "dotnet_collection_count_total{generation=\"2\"}") == 4);
	CHECK(one(&p, "dotnet_collection_count{generation=\"0\"}") == 212);
	CHECK(count(&p, "dotnet_collection_count_total") == 3);
	NEAR(one(&p, "process_cpu_seconds_total"), 38.42, 0, "exact decimal parse");
	CHECK(one(&p, "process_virtual_memory_bytes") == 274985906176.0);
	/* empty label values, a label value holding '=' and ';' */
	CHECK(one(&p, "http_requests_received_total{code=\"201\",controller=\"\"}") == 19630);
	CHECK(one(&p, "npgsql_db_client_connections_usage{state=\"used\"}") == 6);
	CHECK(one(&p, "npgsql_db_client_connections_max{pool_name=\"Host=127.0.0.1;Database=ledger;Username=ledger\"}") == 24);
	CHECK(one(&p, "http_request_duration_seconds_bucket{endpoint=\"invoices/{id}\",le=\"+Inf\"}") == 176002);
	/* NaN is a value, read as NaN */
	CHECK(count(&p, "ledger_cache_hit_ratio{cache=\"quotes\"}") == 1);
	CHECK(isnan(one(&p, "ledger_cache_hit_ratio{cache=\"quotes\"}")));
	NEAR(one(&p, "ledger_cache_hit_ratio{cache=\"invoices\"}"), 0.807, 0, "exact");
	promtext_release(&p);
}

TEST(micrometer)
{
	struct promtext p;

	if (load("micrometer.txt", &p)) {
		CHECK(0);
		return;
	}
	CHECK(p.nsamples == 38);
	/* trailing commas in label sets, Java's 2.5165824E7 */
	CHECK(one(&p, "hikaricp_connections_active{pool=\"HikariPool-1\"}") == 5);
	CHECK(one(&p, "hikaricp_connections_max") == 24);
	CHECK(one(&p, "jvm_memory_used_bytes{id=\"G1 Eden Space\"}") == 2.5165824e7);
	CHECK(one(&p, "jvm_memory_max_bytes{id=\"Metaspace\"}") == -1);
	CHECK(one(&p, "executor_pool_max_threads") == 2147483647.0);
	CHECK(one(&p, "jvm_gc_pause_seconds_count{cause=\"G1 Evacuation Pause\"}") == 57);
	CHECK(count(&p, "jvm_gc_pause_seconds_count") == 2);
	CHECK(one(&p, "http_server_requests_seconds_count{uri=\"/invoices\"}") == 20112);
	/* HELP with quotes inside, unescaped as written */
	CHECK(promtext_family(&p, "process_cpu_usage") &&
	      strstr(promtext_family(&p, "process_cpu_usage")->help, "\"recent cpu usage\""));
	/* logback_events_total: a counter family keeping _total */
	CHECK(one(&p, "logback_events{level=\"info\"}") == 41);
	promtext_release(&p);
}

TEST(openmetrics)
{
	struct promtext p;
	const struct prom_family *f;
	size_t i;

	if (load("openmetrics_micrometer.txt", &p)) {
		CHECK(0);
		return;
	}
	CHECK(p.nsamples == 8);
	/* an exemplar after the value is not part of it */
	CHECK(one(&p, "http_server_requests_seconds_bucket{le=\"0.005\"}") == 160021);
	/* counter family without _total; the sample has it; ts in seconds */
	f = promtext_family(&p, "ledger_invoices_created_total");
	CHECK(f && !strcmp(f->name, "ledger_invoices_created") && !strcmp(f->type, "counter"));
	CHECK(one(&p, "ledger_invoices_created") == 20112);
	for (i = 0; i < p.nsamples && strcmp(p.samples[i].name, "ledger_invoices_created_total"); i++)
		;
	CHECK(i < p.nsamples && p.samples[i].has_ts && p.samples[i].ts_ms == 1721064253500LL);
	promtext_release(&p);
}

TEST(edge_cases)
{
	static const char ok_text[] =
		"# a free comment\n"
		"\n"
		"  metric_without_labels\t12 1700000000000\r\n"
		"m{a=\"1\"} +Inf\n"
		"m{a=\"2\"} -Inf\n"
		"m{a=\"3\"} 1e-3\n"
		"{\"my.dotted.metric\",a=\"x\"} 7\n"
		"escapes{v=\"a\\\\b\\\"c\\nd\"} 1\n"
		"# EOF\n";
	static const char *const bad[] = {
		"m{a=\"1\" 2\n",          /* unterminated label set */
		"m{a=1} 2\n",             /* unquoted value */
		"m{a=\"1} 2\n",           /* unterminated string */
		"m 12abc\n",              /* bad value */
		"m\n",                    /* no value */
		"9m 1\n",                 /* bad name */
		"m 1 2 3\n",              /* text after the timestamp */
		"m 1 12.5.5\n",           /* bad timestamp */
		"# TYPE\n",               /* TYPE without a name */
	};
	struct promtext p;
	char *err = NULL;
	size_t i;

	CHECK(promtext_parse(ok_text, sizeof(ok_text) - 1, &p, &err) == 0);
	CHECK(p.nsamples == 6);
	CHECK(one(&p, "metric_without_labels") == 12);
	CHECK(p.samples[0].has_ts && p.samples[0].ts_ms == 1700000000000LL);
	CHECK(isinf(one(&p, "m{a=\"1\"}")) && one(&p, "m{a=\"1\"}") > 0);
	CHECK(isinf(one(&p, "m{a=\"2\"}")) && one(&p, "m{a=\"2\"}") < 0);
	CHECK(one(&p, "{\"my.dotted.metric\"}") == 7);
	CHECK(one(&p, "escapes{v=\"a\\\\b\\\"c\\nd\"}") == 1);
	CHECK_STR(p.samples[5].labels[0].value, "a\\b\"c\nd");
	promtext_release(&p);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = promtext_parse(bad[i], strlen(bad[i]), &p, &err);
		if (r == 0)
			printf("#   accepted: %s", bad[i]);
		CHECK(r == -1 && err && !strncmp(err, "line 1: ", 8));
		free(err);
		err = NULL;
	}
	CHECK(promtext_parse("ok 1\nbad{\n", 10, &p, &err) == -1);
	CHECK(err && !strncmp(err, "line 2: ", 8));
	free(err);
}

TEST(selectors)
{
	CHECK(prom_selector_valid("go_goroutines"));
	CHECK(prom_selector_valid("db_pool{state=\"busy\"}"));
	CHECK(prom_selector_valid("db_pool{state=\"busy\",pool=\"main\",}"));
	CHECK(prom_selector_valid("{\"my.metric\"}"));
	CHECK(!prom_selector_valid("/gc/count"));
	CHECK(!prom_selector_valid(""));
	CHECK(!prom_selector_valid("db_pool{state=busy}"));
	CHECK(!prom_selector_valid("db_pool{state=\"busy\"} extra"));
	CHECK(!prom_selector_valid("rate(x[5m])"));
}

int main(void)
{
	RUN(client_golang);
	RUN(prometheus_net);
	RUN(micrometer);
	RUN(openmetrics);
	RUN(edge_cases);
	RUN(selectors);
	return t_done();
}
