/*
 * test_bind: the one mapping from the spec to the mechanisms. Every
 * workload key lands in the load configuration (full.yaml sets each one
 * away from its default), the defaults `harness load URL` uses are the
 * ones a spec gets, window seeds are distinct and reproducible, and the
 * start and build configurations follow the sandbox rules.
 */
#include <stdlib.h>
#include <string.h>

#include "sut/bind.h"
#include "spec/spec.h"
#include "spec_minimal.h"
#include "t.h"
#include "base/util.h"

TEST(load_from_every_workload_key)
{
	struct spec *s = spec_load("tests/specs/valid/full.yaml");
	struct load_config c;

	CHECK(s != NULL);
	if (!s)
		return;
	bind_load(&c, s, "http://127.0.0.1:9", 250, 3.5, 77);
	CHECK_STR(c.url, "http://127.0.0.1:9");
	NEAR(c.rate, 250, 0, "copied");
	NEAR(c.duration_s, 3.5, 0, "copied");
	CHECK(c.seed == 77);
	CHECK(c.requests == s->workload.requests && c.nrequests == 2);
	CHECK(c.arrival == ARRIVAL_POISSON);
	CHECK(c.connections == 256);
	CHECK(c.backlog_max == 0);
	CHECK(c.timeout_ms == 2000);
	CHECK(c.threads == 2);
	CHECK(c.transport == TRANSPORT_CURL);
	CHECK_STR(c.cpus, "0-1");
	CHECK(c.on_second == NULL && c.stop == NULL && c.send_times_path == NULL);
	spec_free(s);
}

TEST(url_defaults_are_the_spec_defaults)
{
	struct spec *s = spec_parse(minimal, sizeof(minimal) - 1, "t.yaml", "/tmp");
	struct load_config d, c;

	CHECK(s != NULL);
	if (!s)
		return;
	bind_load(&d, NULL, "http://x", 1, 1, 1);
	bind_load(&c, s, "http://x", 1, 1, 1);
	CHECK(d.requests == NULL && d.nrequests == 0);
	CHECK(d.arrival == c.arrival);
	CHECK(d.connections == c.connections);
	CHECK(d.backlog_max == c.backlog_max);
	CHECK(d.timeout_ms == c.timeout_ms);
	CHECK(d.threads == c.threads);
	CHECK(d.transport == c.transport);
	CHECK(d.cpus == NULL && c.cpus == NULL);
	spec_free(s);
}

static const char with_deps[] =
	"version: 1\n"
	"name: deps\n"
	"slo: { threshold_ms: 20 }\n"
	"dependencies:\n"
	"  - name: db\n"
	"    start: [./db, --port, \"{port}\"]\n"
	"    health: { tcp: \"127.0.0.1:{port}\" }\n"
	"  - name: cache.1\n"
	"    start: [./cache, \"--db={dep.db.host}:{dep.db.port}\", \"{port}\"]\n"
	"implementations:\n"
	"  - name: a\n"
	"    start: [./a, \"{port}\", \"{dep.db.port}\"]\n"
	"    env: { CACHE: \"{dep.cache.1.host}:{dep.cache.1.port}\" }\n"
	"    health: { url: \"http://127.0.0.1:{port}/?db={dep.db.port}\" }\n"
	"workload:\n"
	"  requests:\n"
	"    - { name: r, path: \"/x/{dep.db.port}\", headers: { X-Db: \"{dep.db.host}\" },"
	" body: \"{dep.cache.1.port}{dep.other.port}\" }\n"
	"stages:\n"
	"  ladder: { start_rps: 500, step: 1.2, max_rps: 2000, window_s: 60 }\n";

/* {dep.NAME.port} / {dep.NAME.host} land everywhere they may appear; the
 * dependency's own {port} is left for sut; dotted names resolve by the
 * last '.'; a reference to no dependency is left as written. */
TEST(dep_substitution)
{
	struct spec *s = spec_parse(with_deps, sizeof(with_deps) - 1, "t.yaml", "/tmp");
	static const int ports[] = { 5432, 6379 };
	const char *t = "a{dep.db.port}b{dep.db.host}{dep.nope.port}{port}";
	size_t n;
	char *x;

	CHECK(s == NULL); /* {dep.other.port} names no dependency: refused */
	spec_free(s);
	x = bind_subst_deps(t, strlen(t), NULL, ports, &n);
	CHECK_STR(x, "a{dep.db.port}b{dep.db.host}{dep.nope.port}{port}");
	free(x);
	{
		char *fixed = xstrdup(with_deps);
		char *o = strstr(fixed, "{dep.other.port}");

		memmove(o, o + 16, strlen(o + 16) + 1);
		s = spec_parse(fixed, strlen(fixed), "t.yaml", "/tmp");
		free(fixed);
	}
	CHECK(s != NULL);
	if (!s)
		return;
	x = bind_subst_deps(t, strlen(t), s, ports, &n);
	CHECK_STR(x, "a5432b127.0.0.1{dep.nope.port}{port}");
	CHECK(n == strlen(x));
	free(x);
	bind_deps(s, ports);
	CHECK_STR(s->impls[0].start[2], "5432");
	CHECK_STR(s->impls[0].start[1], "{port}");
	CHECK_STR(s->impls[0].env[0].value, "127.0.0.1:6379");
	CHECK_STR(s->impls[0].health_url, "http://127.0.0.1:{port}/?db=5432");
	CHECK_STR(s->deps[1].impl.start[1], "--db=127.0.0.1:5432");
	CHECK_STR(s->deps[0].health_tcp, "127.0.0.1:{port}");
	CHECK_STR(s->workload.requests[0].path, "/x/5432");
	CHECK_STR(s->workload.requests[0].headers[0].value, "127.0.0.1");
	CHECK(s->workload.requests[0].body_len == 4 && !memcmp(s->workload.requests[0].body, "6379", 4));
	spec_free(s);
}

static const char forwards[] =
	"version: 1\n"
	"name: fwd\n"
	"slo: { threshold_ms: 20 }\n"
	"dependencies:\n"
	"  - { name: db, start: [./db, \"{port}\"] }\n"
	"  - { name: cache, start: [./cache, \"{port}\"] }\n"
	"  - { name: mq, start: [./mq, \"{port}\"] }\n"
	"  - { name: far, start: [./far, \"{port}\"], host: bench@far.example }\n"
	"implementations:\n"
	"  - { name: a, start: [./a, \"{port}\", \"{dep.db.port}\"], health: { url: \"http://127.0.0.1:{port}/\" } }\n"
	"  - { name: b, start: [./b, \"{port}\"], env: { C: \"{dep.cache.host}:{dep.cache.port}\" },\n"
	"      reset: [./r, \"{dep.db.port}\"], health: { url: \"http://127.0.0.1:{port}/\" } }\n"
	"  - { name: c, start: [./c, \"{port}\"],\n"
	"      health: { url: \"http://127.0.0.1:{port}/?mq={dep.mq.port}\" } }\n"
	"  - { name: d, start: [./d, \"{port}\", \"{dep.far.port}\"], health: { url: \"http://127.0.0.1:{port}/\" } }\n"
	"workload:\n"
	"  requests: [ { name: r, path: \"/x@@\" } ]\n"
	"stages:\n"
	"  ladder: { start_rps: 500, step: 1.2, max_rps: 2000, window_s: 60 }\n";

static struct spec *forwards_spec(const char *path)
{
	struct sbuf t = SBUF_INIT;
	const char *at = strstr(forwards, "@@");
	struct spec *s;

	sbuf_add(&t, forwards, (size_t)(at - forwards));
	sbuf_adds(&t, path);
	sbuf_adds(&t, at + 2);
	s = spec_parse(t.buf, t.len, "t.yaml", "/tmp");
	sbuf_release(&t);
	return s;
}

/* A sandbox relays the ports of the dependencies its implementation is
 * told about (bind_deps: start, env, reset, health, stats, the requests),
 * and no other (issue 17 item 3); one on another host is not on this
 * loopback, never relayed. */
TEST(dep_forward_per_impl)
{
	static const int ports[] = { 5432, 6379, 5672, 7000 };
	struct spec *s = forwards_spec("");

	CHECK(s != NULL);
	if (!s)
		return;
	bind_deps(s, ports);
	CHECK(s->impls[0].ndep_forward == 1 && s->impls[0].dep_forward[0] == 5432);
	CHECK(s->impls[1].ndep_forward == 2 && s->impls[1].dep_forward[0] == 5432 &&
	      s->impls[1].dep_forward[1] == 6379);
	CHECK(s->impls[2].ndep_forward == 1 && s->impls[2].dep_forward[0] == 5672);
	CHECK(s->impls[3].ndep_forward == 0);   /* far is on another host: not relayed */
	spec_free(s);
	/* a request naming a dependency: every implementation may need it */
	s = forwards_spec("?cache={dep.cache.port}");
	CHECK(s != NULL);
	if (!s)
		return;
	bind_deps(s, ports);
	CHECK(s->impls[0].ndep_forward == 2 && s->impls[0].dep_forward[1] == 6379);
	CHECK(s->impls[3].ndep_forward == 1 && s->impls[3].dep_forward[0] == 6379);
	CHECK(s->impls[2].ndep_forward == 2 && s->impls[2].dep_forward[0] == 6379 &&
	      s->impls[2].dep_forward[1] == 5672);
	spec_free(s);
}

TEST(window_seeds)
{
	struct spec *s = spec_parse(minimal, sizeof(minimal) - 1, "t.yaml", "/tmp");
	uint64_t a, b, c;

	CHECK(s != NULL);
	if (!s)
		return;
	a = bind_window_seed(s, 5, 1);
	b = bind_window_seed(s, 5, 2);
	c = bind_window_seed(s, 6, 1);
	CHECK(a != b && a != c && b != c);
	CHECK(a == bind_window_seed(s, 5, 1));
	CHECK(bind_window_seed(s, 0, 0) == s->seed);
	spec_free(s);
}

TEST(sut_trusted_and_sandboxed)
{
	struct spec *s = spec_load("tests/specs/valid/full.yaml");
	static const int fwd[] = { 5432 };
	struct bind_sandbox sb = { .uid = 1234, .gid = 4321, .jail = { "/runs", 0 },
				   .forward_ports = fwd, .nforward = 1 };
	struct sut_config c;
	const struct spec_impl *go, *dn;

	CHECK(s != NULL);
	if (!s)
		return;
	go = spec_impl_find(s, "go");
	dn = spec_impl_find(s, "dotnet");
	bind_sut(&c, s, dn, NULL, "/logs", "label", NULL);
	CHECK(c.impl == dn);
	CHECK_STR(c.workdir, dn->repo);
	CHECK_STR(c.log_dir, "/logs");
	CHECK_STR(c.cgroup_name, "label");
	CHECK(c.backend == ACCT_CGROUP1);
	CHECK(c.sample_ms == 100);
	CHECK(c.run_as_uid == -1 && c.run_as_gid == -1);
	CHECK(c.jail == NULL && c.nforward == 0 && c.cpu_max == 0);
	CHECK(c.memory_max_bytes == 0 && c.pids_max == 0);
	CHECK(c.port == 0);
	/* untrusted: the sandbox's limits where the impl sets none */
	bind_sut(&c, s, dn, "/src", "/logs", "label", &sb);
	CHECK_STR(c.workdir, "/src");
	CHECK(c.run_as_uid == 1234 && c.run_as_gid == 4321);
	CHECK(c.jail == &sb.jail && !strcmp(c.jail->hide, "/runs"));
	CHECK(c.nforward == 1 && c.forward_ports[0] == 5432);
	NEAR(c.cpu_max, 1.5, 0, "sandbox.cpu_max");
	CHECK(c.memory_max_bytes == 1024ull << 20);
	CHECK(c.pids_max == 1024);
	/* ... and the impl's own where it sets them */
	bind_sut(&c, s, go, NULL, "/logs", "label", &sb);
	CHECK(c.memory_max_bytes == 2048ull << 20);
	CHECK(c.pids_max == 512);
	spec_free(s);
}

TEST(build_trusted_and_sandboxed)
{
	struct spec *s = spec_load("tests/specs/valid/full.yaml");
	static const int fwd[] = { 5432 };
	struct bind_sandbox sb = { .uid = 1234, .gid = 4321, .jail = { "/runs", 0 },
				   .forward_ports = fwd, .nforward = 1 };
	struct sut_build_config c;
	const struct spec_impl *go;

	CHECK(s != NULL);
	if (!s)
		return;
	go = spec_impl_find(s, "go");
	bind_build(&c, s, go, NULL, "/logs/b.log", NULL);
	CHECK(c.impl == go);
	CHECK_STR(c.workdir, go->repo);
	CHECK_STR(c.log_path, "/logs/b.log");
	CHECK(c.backend == ACCT_CGROUP1);
	CHECK(c.uid == -1 && c.gid == -1);
	CHECK(c.jail == NULL);
	NEAR(c.timeout_s, 0, 0, "trusted builds have no timeout");
	CHECK(c.memory_max_bytes == 0 && c.pids_max == 0);
	CHECK(c.cgroup_name == NULL);
	bind_build(&c, s, go, "/src", "/logs/b.log", &sb);
	CHECK_STR(c.workdir, "/src");
	CHECK(c.uid == 1234 && c.gid == 4321);
	CHECK(c.jail == &sb.jail);
	NEAR(c.cpu_max, 1.5, 0, "sandbox.cpu_max");
	NEAR(c.timeout_s, 300, 0, "sandbox.build_timeout_s");
	CHECK(c.memory_max_bytes == 1024ull << 20);
	CHECK(c.pids_max == 1024);
	spec_free(s);
}

int main(void)
{
	RUN(load_from_every_workload_key);
	RUN(url_defaults_are_the_spec_defaults);
	RUN(dep_substitution);
	RUN(dep_forward_per_impl);
	RUN(window_seeds);
	RUN(sut_trusted_and_sandboxed);
	RUN(build_trusted_and_sandboxed);
	return t_done();
}
