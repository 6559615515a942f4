/*
 * test_spec: the spec module through its API: every key of full.yaml lands
 * in the right field, every default of a minimal spec is filled in, the
 * rungs are exact products, the hash covers spec and body bytes, stored
 * text re-parses to the same spec, errors are collected with positions, and
 * YAML edge cases neither crash nor pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "spec/spec.h"
#include "stat/decide.h"
#include "spec/spec_internal.h"
#include "spec_minimal.h"
#include "t.h"
#include "base/util.h"

#define VALID "tests/specs/valid/"

/* Parse text with extra YAML appended; errors into errs. */
static struct spec *parse_with(const char *extra, struct sbuf *errs)
{
	struct sbuf sb = SBUF_INIT;
	struct spec *s;

	sbuf_adds(&sb, minimal);
	sbuf_adds(&sb, extra);
	s = spec_parse_diag(sb.buf, sb.len, "t.yaml", "/tmp", errs);
	sbuf_release(&sb);
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A gate parameter as a string, NULL when absent or not a string. */
static const char *spec_gate_str(const struct gate_params *g, const char *key)
{
	const struct gate_value *v = spec_gate_value(g, key);

	return v && v->type == GATE_VAL_STR ? v->str : NULL;
}

TEST(defaults_filled)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s = parse_with("", &errs);

	CHECK(s != NULL);
	if (!s) {
		printf("# %s", errs.buf);
		return;
	}
	CHECK(s->version == 1);
	CHECK(s->seed == 1);
	NEAR(s->slo.percentile, 99, 0, "default");
	NEAR(s->slo.error_rate_max, 0.001, 0, "default");
	CHECK(s->nimpls == 2);
	CHECK_STR(s->impls[0].repo, "/tmp");
	CHECK(s->impls[0].build == NULL);
	CHECK_STR(s->impls[0].start[2], "{port}");
	CHECK(s->impls[0].start[3] == NULL);
	NEAR(s->impls[0].health_timeout_s, 30, 0, "default");
	CHECK(s->impls[0].stats_url == NULL);
	NEAR(s->impls[0].stats_poll_hz, 1, 0, "default even without stats");
	CHECK(s->impls[0].restart == RESTART_PER_WINDOW);
	CHECK(s->impls[0].memory_max_bytes == 0 && s->impls[0].pids_max == 0);
	CHECK(s->impls[1].line == 8 && s->impls[1].col == 5);
	CHECK(s->workload.arrival == ARRIVAL_CONSTANT);
	CHECK(s->workload.connections == 64);
	CHECK(s->workload.backlog_max == 10000);
	CHECK(s->workload.timeout_ms == 5000);
	CHECK(s->workload.threads == 1);
	CHECK(s->workload.cpus == NULL);
	CHECK(s->workload.transport == TRANSPORT_AUTO);
	CHECK(s->workload.nrequests == 1);
	CHECK_STR(s->workload.requests[0].method, "GET");
	NEAR(s->workload.requests[0].weight, 1, 0, "default");
	CHECK(s->workload.requests[0].body == NULL);
	CHECK(s->ladder.reps == 3);
	NEAR(s->ladder.discard_s, 0, 0, "default");
	CHECK(s->ladder.rungs_past_knee == 1);
	CHECK(!s->confirm.present && !s->soak.present);
	NEAR(s->warmup.knee_fraction, 0.5, 0, "default");
	NEAR(s->warmup.fixed_rps, 0, 0, "default");
	NEAR(s->warmup.min_rps, 100, 0, "default");
	NEAR(s->warmup.min_s, 20, 0, "default");
	NEAR(s->warmup.max_s, 180, 0, "default");
	NEAR(s->warmup.trailing_s, 30, 0, "default");
	CHECK(s->warmup.ngates == 3);
	CHECK_STR(s->warmup.gates[0], "p99_flat");
	CHECK(s->warmup.gates[3] == NULL);
	CHECK(s->nwindow_gates == 10);
	CHECK_STR(s->window_gates[6], "sut_alive");
	CHECK_STR(s->window_gates[7], "idle_arms_quiet");
	CHECK_STR(s->window_gates[8], "acct_span");
	CHECK_STR(s->window_gates[9], "host_held");
	CHECK(s->accounting.backend == ACCT_AUTO && s->accounting.sample_ms == 50);
	NEAR(s->compare.margin_pct, 5, 0, "default");
	CHECK(s->compare.metrics == (CMP_P99 | CMP_CPU_PER_REQUEST));
	NEAR(s->compare.alpha, 0.05, 0, "default");
	CHECK_STR(s->sandbox.user, "harness-sut");
	NEAR(s->sandbox.build_timeout_s, 600, 0, "default");
	CHECK(s->sandbox.memory_max_bytes == 4096ull << 20);
	CHECK(s->sandbox.pids_max == 4096);
	/* every gate of both lists has a struct with its defaults */
	CHECK(s->ngates == 13);
	NEAR(spec_gate_num(spec_gate_find(s, "p99_flat"), "alpha", -1), 0.05, 0, "registry default");
	NEAR(spec_gate_num(spec_gate_find(s, "stationarity"), "min_points", -1), 10, 0,
	     "registry default");
	CHECK(spec_gate_find(s, "oom") && spec_gate_find(s, "oom")->enforce == 1);
	/* error_rate.max has no registry default (NaN): left to the gate */
	CHECK(spec_gate_value(spec_gate_find(s, "error_rate"), "max") == NULL);
	CHECK(spec_gate_find(s, "gc_steady") == NULL);
	CHECK(strlen(s->hash) == 64);
	spec_free(s);
	sbuf_release(&errs);
}

TEST(every_key_read)
{
	struct spec *s = spec_load(VALID "full.yaml");
	const struct spec_impl *go;
	const struct load_request *r;
	const struct gate_params *g;
	const struct gate_value *v;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_STR(s->name, "every-key");
	CHECK(s->seed == 987654321);
	NEAR(s->slo.percentile, 99.9, 0, "as written");
	NEAR(s->slo.threshold_ms, 50, 0, "as written");
	NEAR(s->slo.error_rate_max, 0.01, 0, "as written");
	go = spec_impl_find(s, "go");
	CHECK(go != NULL && spec_impl_find(s, "dotnet") != NULL && !spec_impl_find(s, "java"));
	if (go) {
		CHECK(go->repo[0] == '/' && !strstr(go->repo, ".."));
		CHECK_STR(go->build[0], "go");
		CHECK_STR(go->build[4], "./cmd/server");
		CHECK_STR(go->start[2], "127.0.0.1:{port}");
		CHECK(go->nenv == 3);
		CHECK_STR(go->env[1].key, "GOMAXPROCS");
		CHECK_STR(go->env[1].value, "2");
		NEAR(go->health_timeout_s, 45, 0, "as written");
		CHECK_STR(go->stats_url, "http://127.0.0.1:{port}/debug/stats");
		NEAR(go->stats_poll_hz, 2, 0, "as written");
		CHECK(go->nsignals == 7);
		CHECK_STR(go->signals[5].pointer, "/a~1b/c~0d");
		CHECK_STR(go->signals[6].pointer, "");
		CHECK_STR(go->cpus, "2-3");
		CHECK(go->restart == RESTART_PER_BLOCK);
		CHECK(go->memory_max_bytes == 2048ull << 20);
		CHECK(go->pids_max == 512);
	}
	CHECK_STR(s->impls[1].cpus, "4,5");
	CHECK(s->impls[1].restart == RESTART_NEVER);
	CHECK(s->workload.arrival == ARRIVAL_POISSON);
	CHECK(s->workload.connections == 256 && s->workload.backlog_max == 0);
	CHECK(s->workload.timeout_ms == 2000 && s->workload.threads == 2);
	CHECK_STR(s->workload.cpus, "0-1");
	CHECK(s->workload.transport == TRANSPORT_CURL);
	r = &s->workload.requests[0];
	NEAR(r->weight, 2.5, 0, "as written");
	CHECK_STR(r->method, "POST");
	CHECK_STR(r->path, "/invoices?x=1");
	CHECK(r->nheaders == 2);
	CHECK_STR(r->headers[1].value, "1");
	CHECK(r->body_len == 26 && r->body && !memcmp(r->body, "{\"id\":42,", 9));
	CHECK(r->body_file && r->body_file[0] == '/' && strstr(r->body_file, "bodies/invoice.json"));
	r = &s->workload.requests[1];
	CHECK(r->body && r->body_len == 0 && r->body_file == NULL);
	NEAR(s->ladder.start_rps, 100, 0, "");
	NEAR(s->ladder.step, 1.5, 0, "");
	NEAR(s->ladder.max_rps, 1000, 0, "");
	CHECK(s->ladder.reps == 2 && s->ladder.rungs_past_knee == 2);
	NEAR(s->ladder.window_s, 90, 0, "");
	NEAR(s->ladder.discard_s, 15, 0, "");
	CHECK(s->confirm.present && s->confirm.reps == 4);
	NEAR(s->confirm.window_s, 60, 0, "");
	NEAR(s->confirm.discard_s, 10, 0, "");
	CHECK(s->soak.present);
	NEAR(s->soak.window_s, 300, 0, "");
	NEAR(s->soak.discard_s, 30, 0, "");
	NEAR(s->soak.at_knee_fraction, 0.5, 0, "");
	NEAR(s->warmup.fixed_rps, 300, 0, "");
	NEAR(s->warmup.knee_fraction, 0, 0, "fixed_rps given");
	NEAR(s->warmup.min_s, 10, 0, "");
	NEAR(s->warmup.max_s, 60, 0, "");
	NEAR(s->warmup.trailing_s, 20, 0, "");
	CHECK(s->warmup.ngates == 5);
	/* its own four, and idle_arms_quiet (always judged: spec_gates.c) */
	CHECK(s->nwindow_gates == 5);
	CHECK_STR(s->window_gates[4], "idle_arms_quiet");
	g = spec_gate_find(s, "p99_flat");
	NEAR(spec_gate_num(g, "alpha", -1), 0.01, 0, "");
	NEAR(spec_gate_num(g, "min_points", -1), 12, 0, "");
	CHECK_STR(spec_gate_str(spec_gate_find(s, "gc_steady"), "committed"), "heap");
	NEAR(spec_gate_num(spec_gate_find(s, "gc_steady"), "min_points", -1), 5, 0, "registry default");
	v = spec_gate_value(spec_gate_find(s, "min_calls"), "min");
	CHECK(v && v->type == GATE_VAL_MAP && v->nmap == 2);
	if (v && v->nmap == 2) {
		CHECK_STR(v->map[1].key, "get");
		CHECK_STR(v->map[1].value, "1000");
	}
	CHECK(spec_gate_find(s, "major_faults_equal")->enforce == 0);
	NEAR(spec_gate_num(spec_gate_find(s, "error_rate"), "max", -1), 0.02, 0, "");
	CHECK(s->accounting.backend == ACCT_CGROUP1 && s->accounting.sample_ms == 100);
	NEAR(s->compare.margin_pct, 10, 0, "");
	CHECK(s->compare.metrics == CMP_CPU_PER_REQUEST);
	NEAR(s->compare.alpha, 0.1, 0, "");
	CHECK_STR(s->sandbox.user, "bench");
	NEAR(s->sandbox.build_timeout_s, 300, 0, "");
	CHECK(s->sandbox.memory_max_bytes == 1024ull << 20 && s->sandbox.pids_max == 1024);
	spec_free(s);
}

TEST(rungs_exact)
{
	struct spec *s = parse_with("", NULL);
	double *r = NULL;
	size_t n;

	CHECK(s != NULL);
	if (!s)
		return;
	n = spec_ladder_rungs(s, &r);
	CHECK(n == 8);
	/* exact products: 500 * 1.2^7 = 1791.5904 (no accumulated error) */
	NEAR(r[7], 1791.5904, 1e-9, "one pow() rounding");
	NEAR(r[4], 1036.8, 1e-9, "one pow() rounding");
	free(r);
	/* max equal to a product is included despite rounding: 100 * 1.1^10 */
	s->ladder.start_rps = 100;
	s->ladder.step = 1.1;
	s->ladder.max_rps = 259.37424601;
	n = spec_ladder_rungs(s, &r);
	CHECK(n == 11);
	free(r);
	spec_free(s);
}

TEST(hash_and_stored_text)
{
	struct spec *a = spec_load(VALID "full.yaml"), *b;
	struct sbuf sb = SBUF_INIT;
	struct sha256 c;
	char want[65];

	CHECK(a != NULL);
	if (!a)
		return;
	CHECK(read_file(VALID "full.yaml", &sb, 0) == 0);
	sha256_init(&c);
	sha256_update(&c, sb.buf, sb.len);
	sha256_update(&c, a->workload.requests[0].body, a->workload.requests[0].body_len);
	sha256_final_hex(&c, want);
	CHECK_STR(a->hash, want);
	CHECK(a->text_len == sb.len && !memcmp(a->text, sb.buf, sb.len));
	/* resume/rerun: the stored text with the original base_dir */
	b = spec_parse(a->text, a->text_len, "stored", a->base_dir);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->hash, a->hash);
		CHECK_STR(b->impls[0].repo, a->impls[0].repo);
		spec_free(b);
	}
	/* a comment changes the hash */
	sbuf_adds(&sb, "# comment\n");
	b = spec_parse(sb.buf, sb.len, "edited", a->base_dir);
	CHECK(b && strcmp(b->hash, a->hash));
	spec_free(b);
	sbuf_release(&sb);
	spec_free(a);
}

TEST(errors_collected_with_positions)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s = parse_with("warmup: { min_s: -1, gates: [p99_flat, nope] }\n"
				    "accounting: { backend: cgroup3 }\n", &errs);

	CHECK(s == NULL);
	CHECK(count_lines(errs.buf) == 3);
	CHECK(strstr(errs.buf, "t.yaml:16:18: warmup.min_s: must be >= 0.0, got -1\n") != NULL);
	CHECK(strstr(errs.buf, "t.yaml:16:40: warmup.gates[1]: unknown gate \"nope\"") != NULL);
	CHECK(strstr(errs.buf, "t.yaml:17:24: accounting.backend: must be one of") != NULL);
	sbuf_release(&errs);
}

/* compare.sequential.margin_rule: point unless chosen (base_bound is
 * opt-in, docs/STATISTICS.md "No change against a bound on b_r"); any
 * other value is one error naming the field */
TEST(sequential_margin_rule)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s = parse_with("", &errs);

	CHECK(s && s->compare.sequential.margin_rule == DECIDE_MARGIN_POINT);
	spec_free(s);
	s = parse_with("compare: { sequential: { max_minutes: 10 } }\n", &errs);
	CHECK(s && s->compare.sequential.margin_rule == DECIDE_MARGIN_POINT);
	spec_free(s);
	s = parse_with("compare: { sequential: { margin_rule: point } }\n", &errs);
	CHECK(s && s->compare.sequential.margin_rule == DECIDE_MARGIN_POINT);
	spec_free(s);
	s = parse_with("compare: { sequential: { margin_rule: base_bound } }\n", &errs);
	CHECK(s && s->compare.sequential.margin_rule == DECIDE_MARGIN_BASE_BOUND);
	CHECK(s && s->compare.sequential.method == DECIDE_MEDIAN_CS);
	spec_free(s);
	CHECK(errs.len == 0);
	s = parse_with("compare: { sequential: { margin_rule: bound } }\n", &errs);
	CHECK(s == NULL);
	CHECK(count_lines(errs.buf) == 1);
	CHECK_STR(errs.buf, "t.yaml:16:39: compare.sequential.margin_rule: must be one of point, "
			    "base_bound, got bound\n");
	spec_free(s);
	sbuf_release(&errs);
}

TEST(yaml_edge_cases_fail_cleanly)
{
	static const char *const bad[] = {
		"", "\n", "~\n", "42\n", "[\n", "{a: 1\n", "a: *x\n", "a: &x 1\nb: *y\n",
		"a: 1\na: 2\n", "\ta: 1\n", "a:\n\t- 1\n", "--- 1\n--- 2\n", "a: !!binary aGk=\n",
		"\xff\xfe\x00a", "\"unterminated\n", "? [a]\n: 1\n", "version: 1\0\n",
	};
	struct sbuf errs = SBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = i == ARRAY_SIZE(bad) - 1 ? 12 : strlen(bad[i]);
		struct spec *s;

		sbuf_reset(&errs);
		s = spec_parse_diag(bad[i], len, "e.yaml", "/tmp", &errs);
		CHECK(s == NULL);
		CHECK(errs.len > 0 && !strncmp(errs.buf, "e.yaml:", 7));
		spec_free(s);
	}
	sbuf_release(&errs);
}

/* A plan that can never pass parses (a stored spec is read as frozen) but
 * carries its refusals; check and run refuse on them. Warnings likewise. */
TEST(refusals_and_warnings_kept_apart)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s;

	/* minimal's default stationarity needs 10 s; 6 - 1 = 5 measured */
	s = parse_with("  confirm: { window_s: 6, discard_s: 1 }\n", &errs);
	CHECK(s != NULL && errs.len == 0);
	CHECK(s && s->refusals && strstr(s->refusals, "t.yaml:16:") &&
	      strstr(s->refusals, "stages.confirm.window_s: gate stationarity needs 10 seconds"));
	CHECK(s && count_lines(s->refusals) == 1);
	CHECK(s && !s->warnings);
	spec_free(s);

	/* top rung 1792 req/s x 20 ms = 36 in flight > 8 connections: a
	 * warning only */
	{
		struct sbuf sb = SBUF_INIT;
		const char *w = strstr(minimal, "workload:\n");
		sbuf_add(&sb, minimal, (size_t)(w - minimal));
		sbuf_adds(&sb, "workload:\n  connections: 8\n");
		sbuf_adds(&sb, w + strlen("workload:\n"));
		s = spec_parse_diag(sb.buf, sb.len, "t.yaml", "/tmp", &errs);
		sbuf_release(&sb);
	}
	CHECK(s != NULL && !s->refusals);
	CHECK(s && s->warnings && strstr(s->warnings, ": warning: stages.ladder.max_rps: the top rung, 1792 req/s,"));
	CHECK(s && s->warnings && strstr(s->warnings, "8 connections"));
	spec_free(s);
	sbuf_release(&errs);
}

TEST(aliases_shared_not_copied)
{
	struct spec *s = spec_load(VALID "anchors.yaml");

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(s->nimpls == 3);
	CHECK_STR(s->impls[2].start[0], "./srv");
	CHECK_STR(s->impls[1].env[0].value, "fast");
	NEAR(s->impls[1].health_timeout_s, 10, 0, "through the alias");
	/* distinct allocations: freeing must not double-free */
	CHECK(s->impls[1].start[0] != s->impls[0].start[0]);
	CHECK(s->warmup.ngates == 0 && s->warmup.gates && s->warmup.gates[0] == NULL);
	CHECK(s->soak.present);
	spec_free(s);
}

TEST(port_substitution)
{
	char *p = spec_subst_port("http://127.0.0.1:{port}/x?p={port}", 8080);

	CHECK_STR(p, "http://127.0.0.1:8080/x?p=8080");
	free(p);
	p = spec_subst_port("no port", 1);
	CHECK_STR(p, "no port");
	free(p);
	CHECK(spec_subst_port(NULL, 1) == NULL);
	p = spec_subst_port("--port={port}", 0);   /* no port (build argv): unchanged */
	CHECK_STR(p, "--port={port}");
	free(p);
}

TEST(suggestions)
{
	static const char *const keys[] = { "start_rps", "step", "max_rps", "window_s" };

	CHECK(spec_edit_distance("stpe", "step") == 1);
	CHECK(spec_edit_distance("windows_s", "window_s") == 1);
	CHECK_STR(spec_suggest("stpe", keys, 4), "step");
	CHECK_STR(spec_suggest("max-rps", keys, 4), "max_rps");
	CHECK(spec_suggest("color", keys, 4) == NULL);
}

TEST(schema_covers_tables)
{
	struct sbuf sb = SBUF_INIT;

	spec_schema_json(&sb);
	CHECK(strstr(sb.buf, "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\""));
	CHECK(strstr(sb.buf, "\"rungs_past_knee\""));
	CHECK(strstr(sb.buf, "\"min_slope_ms_per_min\""));
	CHECK(strstr(sb.buf, "\"sandbox\""));
	sbuf_release(&sb);
}

int main(void)
{
	RUN(defaults_filled);
	RUN(every_key_read);
	RUN(rungs_exact);
	RUN(hash_and_stored_text);
	RUN(errors_collected_with_positions);
	RUN(sequential_margin_rule);
	RUN(yaml_edge_cases_fail_cleanly);
	RUN(refusals_and_warnings_kept_apart);
	RUN(aliases_shared_not_copied);
	RUN(port_substitution);
	RUN(suggestions);
	RUN(schema_covers_tables);
	return t_done();
}
