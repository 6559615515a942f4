/* test_sut_wire: the --sut frames' payloads (docs/AGENT_PROTOCOL.md):
 * a start request, an accounting window with its samples and host facts
 * decode to what was encoded; a truncated payload is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sut/bind.h"
#include "sut/sut_wire.h"
#include "t.h"
#include "base/util.h"

TEST(start_round_trip)
{
	char *argv[] = { "/bin/srv", "--port", "{port}", "--host", "10.0.0.2", NULL };
	struct kv env[] = { { "A", "1" }, { "B", "{port}" } };
	struct spec_signal sig[] = { { "gc", "gc_total" }, { "calls", "calls_total{x=\"y\"}" } };
	struct sut_wire_start w, got;
	struct sbuf sb = SBUF_INIT;
	struct dec d;

	memset(&w, 0, sizeof(w));
	w.impl.name = "go";
	w.impl.repo = "/srv/go";
	w.impl.start = argv;
	w.impl.env = env;
	w.impl.nenv = 2;
	w.impl.health_url = "http://127.0.0.1:{port}/healthz";
	w.impl.health_timeout_s = 12.5;
	w.impl.cpus = "1-2";
	w.impl.memory_max_bytes = 64ull << 20;
	w.impl.pids_max = 99;
	w.label = "harness.r1.go";
	w.port = 0;
	w.backend = ACCT_PROCFS;
	w.sample_ms = 50;
	w.stop_grace_s = 3;
	w.https = 1;
	w.impl.stats_url = "http://127.0.0.1:{port}/runtime-stats";
	w.impl.stats_poll_hz = 4;
	w.impl.stats_format = STATS_PROMETHEUS;
	w.impl.signals = sig;
	w.impl.nsignals = 2;
	sut_wire_enc_start(&sb, &w);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_start(&d, &got) == 0);
	CHECK(!strcmp(got.impl.name, "go") && !strcmp(got.impl.repo, "/srv/go"));
	CHECK(got.impl.start[4] && !strcmp(got.impl.start[4], "10.0.0.2") && !got.impl.start[5]);
	CHECK(got.impl.nenv == 2 && !strcmp(got.impl.env[1].value, "{port}"));
	CHECK(!strcmp(got.impl.health_url, w.impl.health_url));
	CHECK(got.impl.health_timeout_s == 12.5 && !strcmp(got.impl.cpus, "1-2"));
	CHECK(got.impl.memory_max_bytes == 64ull << 20 && got.impl.pids_max == 99);
	CHECK(!strcmp(got.label, "harness.r1.go") && got.port == 0);
	CHECK(got.backend == ACCT_PROCFS && got.sample_ms == 50 && got.stop_grace_s == 3);
	CHECK(got.https == 1 && !got.insecure && !got.ca_file);
	CHECK_STR(got.impl.stats_url, w.impl.stats_url);
	CHECK(got.impl.stats_poll_hz == 4 && got.impl.stats_format == STATS_PROMETHEUS);
	CHECK(got.impl.nsignals == 2 && !strcmp(got.impl.signals[1].pointer, sig[1].pointer));
	sut_wire_start_release(&got);
	/* Truncated anywhere: refused, nothing to release. */
	dec_init(&d, sb.buf, sb.len - 3);
	CHECK(sut_wire_dec_start(&d, &got) == -1);
	sbuf_release(&sb);
}

/* Since protocol 5: the sandbox fields of a start or build, and FETCH. */
TEST(sandbox_and_fetch_round_trip)
{
	char *argv[] = { "./run.sh", NULL };
	struct sut_wire_start w, got;
	struct sut_wire_fetch f, fg;
	struct sbuf sb = SBUF_INIT;
	struct dec d;

	memset(&w, 0, sizeof(w));
	w.impl.name = "a";
	w.impl.start = argv;
	w.sandbox.on = 1;
	w.sandbox.user = "harness-sut";
	w.sandbox.uid = 1000000123;
	w.sandbox.ro = 1;
	w.sandbox.cpu_max = 1.5;
	w.sandbox.hide = "/tmp/harness-agent-src.abc";
	sut_wire_enc_start(&sb, &w);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_start(&d, &got) == 0);
	CHECK(got.sandbox.on == 1 && got.sandbox.uid == 1000000123 && got.sandbox.ro == 1);
	CHECK(got.sandbox.cpu_max == 1.5 && !strcmp(got.sandbox.user, "harness-sut"));
	CHECK(!strcmp(got.sandbox.hide, "/tmp/harness-agent-src.abc"));
	sut_wire_start_release(&got);
	/* a sandbox as root (uid 0) is refused */
	sbuf_reset(&sb);
	w.sandbox.uid = 0;
	sut_wire_enc_start(&sb, &w);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_start(&d, &got) == -1);
	sbuf_reset(&sb);
	memset(&f, 0, sizeof(f));
	f.name = "a@base";
	f.repo = "file:///srv/repo";
	f.password = "tok";
	sut_wire_enc_fetch(&sb, &f);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_fetch(&d, &fg) == 0);
	CHECK(!strcmp(fg.name, "a@base") && !strcmp(fg.repo, "file:///srv/repo"));
	CHECK(!fg.ref && !fg.user && !strcmp(fg.password, "tok"));
	sut_wire_fetch_release(&fg);
	dec_init(&d, sb.buf, sb.len - 2);
	CHECK(sut_wire_dec_fetch(&d, &fg) == -1);
	/* since protocol 8: the checkout's disk quota there */
	sbuf_reset(&sb);
	f.disk_max_bytes = 64ull << 20;
	sut_wire_enc_fetch(&sb, &f);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_fetch(&d, &fg) == 0 && fg.disk_max_bytes == 64ull << 20);
	sut_wire_fetch_release(&fg);
	{
		struct sut_wire_hits h = { { 1, 7, 1, 2 }, "62 KiB free of 64 MiB" }, hg;

		sbuf_reset(&sb);
		sut_wire_enc_hits(&sb, &h);
		dec_init(&d, sb.buf, sb.len);
		CHECK(sut_wire_dec_hits(&d, &hg) == 0);
		CHECK(hg.kernel.has_pids == 1 && hg.kernel.pids_refused == 7);
		CHECK(hg.kernel.has_oom == 1 && hg.kernel.oom_kill == 2);
		CHECK_STR(hg.disk_full, "62 KiB free of 64 MiB");
		dec_init(&d, sb.buf, sb.len - 1);
		CHECK(sut_wire_dec_hits(&d, &hg) == -1 && hg.kernel.pids_refused == 0 &&
		      !hg.disk_full[0]);
		/* not full: absent, read as "" */
		h.disk_full[0] = '\0';
		sbuf_reset(&sb);
		sut_wire_enc_hits(&sb, &h);
		dec_init(&d, sb.buf, sb.len);
		CHECK(sut_wire_dec_hits(&d, &hg) == 0 && !hg.disk_full[0] && d.p == d.end);
	}
	sbuf_release(&sb);
}

TEST(window_and_facts_round_trip)
{
	struct account_sample s[3] = { { 50, 1000, 0.01 }, { 100, 3000, 0.02 }, { 150, 2000, 0.03 } };
	struct account_window w, got;
	struct hostfacts h = HOSTFACTS_INIT, hg = HOSTFACTS_INIT;
	struct sbuf sb = SBUF_INIT;
	struct dec d;
	uint64_t n = 0;

	memset(&w, 0, sizeof(w));
	w.backend = "cgroup1";
	w.duration_s = 2;
	w.cpu_s = 0.125;
	w.user_s = 0.1;
	w.system_s = 0.025;
	w.has_throttle = 1;
	w.nr_throttled = 7;
	w.throttled_usec = 1234;
	w.anon_p50 = 2000;
	w.anon_p99 = 3000;
	w.anon_max = 3000;
	w.samples = s;
	w.nsamples = 3;
	w.has_peak = 1;
	w.mem_peak = 4096;
	w.peak_scope = "window";
	w.has_oom = 1;
	w.oom_kill = 2;
	w.sampler_cpu_s = 0.001;
	w.has_wait = 1;
	w.wait_s = 0.069;
	w.has_held = 1;
	w.held_s = 0.415;
	w.held_max_s = 0.038;
	w.foreign_cpu_s = 5.8;
	w.held_wait_s = 0.42;
	hostfacts_set(&h, "kernel", "Linux 6");
	hostfacts_set(&h, "cpus_online", "2");
	sut_wire_enc_window(&sb, &w);
	sut_wire_enc_facts(&sb, &h);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_window(&d, &got, &n) == 0);
	CHECK(!strcmp(got.backend, "cgroup1") && !strcmp(got.peak_scope, "window"));
	CHECK(got.cpu_s == 0.125 && got.user_s == 0.1 && got.system_s == 0.025);
	CHECK(got.has_throttle && got.nr_throttled == 7 && got.throttled_usec == 1234);
	/* the samples were streamed before it: their number only */
	CHECK(n == 3 && got.nsamples == 0 && !got.samples);
	CHECK(got.has_peak && got.mem_peak == 4096 && got.has_oom && got.oom_kill == 2);
	CHECK(got.sampler_cpu_s == 0.001 && !got.has_majfault);
	/* since protocol 9: the threads' run-queue wait there */
	CHECK(got.has_wait && got.wait_s == 0.069);
	/* since protocol 10: the host-held wait there */
	CHECK(got.has_held && got.held_s == 0.415 && got.held_max_s == 0.038 &&
	      got.foreign_cpu_s == 5.8 && got.held_wait_s == 0.42);
	CHECK(sut_wire_dec_facts(&d, &hg) == 0 && !d.bad && d.p == d.end);
	CHECK(hg.n == 2 && !strcmp(hostfacts_get(&hg, "kernel"), "Linux 6"));
	account_window_release(&got);
	dec_init(&d, sb.buf, 20);
	CHECK(sut_wire_dec_window(&d, &got, &n) == -1);
	hostfacts_release(&h);
	hostfacts_release(&hg);
	sbuf_release(&sb);
}

TEST(streamed_sample_and_poll_round_trip)
{
	struct account_sample s = { 150, 2000, 0.03 }, sg;
	struct rtstats_counter c[2] = { { "echo", 12 }, { "healthz", 3 } };
	struct rtstats_value v[3] = { { RTV_NUMBER, 7.5, NULL, 0 }, { RTV_COUNTERS, 0, c, 2 },
				      { RTV_MISSING, 0, NULL, 0 } };
	struct rtstats_poll p, pg;
	struct sbuf sb = SBUF_INIT;
	struct dec d;
	int64_t t = 0;

	sut_wire_enc_sample(&sb, &s);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_sample(&d, &sg) == 0 && d.p == d.end);
	CHECK(sg.t_ms == 150 && sg.anon == 2000 && sg.cpu_s == 0.03);
	sbuf_reset(&sb);
	memset(&p, 0, sizeof(p));
	p.latency_ms = 1.5;
	p.status = RTS_OK;
	p.http_status = 200;
	p.values = v;
	p.nvalues = 3;
	sut_wire_enc_poll(&sb, -123456789012345LL, &p);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_poll(&d, &t, &pg) == 0 && d.p == d.end);
	CHECK(t == -123456789012345LL && pg.latency_ms == 1.5 && pg.status == RTS_OK);
	CHECK(pg.http_status == 200 && !pg.error && pg.nvalues == 3);
	CHECK(pg.values[0].kind == RTV_NUMBER && pg.values[0].num == 7.5);
	CHECK(pg.values[1].kind == RTV_COUNTERS && pg.values[1].ncounters == 2);
	CHECK_STR(pg.values[1].counters[1].name, "healthz");
	CHECK(pg.values[1].counters[1].value == 3 && pg.values[2].kind == RTV_MISSING);
	rtstats_poll_release(&pg);
	/* truncated anywhere: refused, nothing left to release */
	dec_init(&d, sb.buf, sb.len - 2);
	CHECK(sut_wire_dec_poll(&d, &t, &pg) == -1 && !pg.values && !pg.error);
	sbuf_release(&sb);
}

/* A request encoded and decoded, as it crosses the wire. */
static void cross(const struct sut_wire_start *w, struct sut_wire_start *got)
{
	struct sbuf sb = SBUF_INIT;
	struct dec d;

	sut_wire_enc_start(&sb, w);
	dec_init(&d, sb.buf, sb.len);
	CHECK(sut_wire_dec_start(&d, got) == 0);
	sbuf_release(&sb);
}

/* The one mapping: what bind_sut / bind_build make of the spec here is
 * what the agent rebuilds there (sut_wire_config.c), limits included
 * (the impl's pids, the sandbox's memory where the impl sets none), with
 * only the jail, its group, the logs and the stop flag its own. */
TEST(config_crosses_the_wire_unchanged)
{
	char *argv[] = { "/bin/srv", "--listen", "{host}:{port}", NULL };
	char *build[] = { "make", "HOST={host}", NULL };
	struct spec sp;
	struct spec_impl im;
	struct bind_sandbox sb;
	struct sut_wire_sandbox ws = { 1, "bench", 1000000007, 1, 0, "/tmp/agentdir", 0, 0 };
	struct sut_config here, there;
	struct sut_build_config bhere, bthere;
	struct sut_wire_start w, got;
	struct spec_impl bim;
	struct jail jail;

	memset(&sp, 0, sizeof(sp));
	memset(&im, 0, sizeof(im));
	memset(&sb, 0, sizeof(sb));
	memset(&jail, 0, sizeof(jail));
	sp.sandbox.memory_max_bytes = 256ull << 20;
	sp.sandbox.pids_max = 100;
	sp.sandbox.cpu_max = 1.5;
	sp.sandbox.build_timeout_s = 300;
	sp.sandbox.log_max_bytes = 3ull << 20;
	sp.sandbox.relay_connections = 17;
	sp.accounting.backend = ACCT_CGROUP2;
	sp.accounting.sample_ms = 20;
	sp.workload.tls.present = 1;
	sp.workload.tls.insecure = 1;
	im.name = "go";
	im.repo = "/srv/go";
	im.start = argv;
	im.build = build;
	im.pids_max = 50;
	im.health_url = "http://{host}:{port}/healthz";
	sb.uid = 1000000007;
	sb.jail.frozen = 1;

	/* a jailed start */
	bind_sut(&here, &sp, &im, "/srv/go-rerun", NULL, "harness.r.go", &sb);
	here.port = 4242;
	sut_wire_request_start(&w, &here, "10.0.0.9", &ws);
	cross(&w, &got);
	sut_wire_start_config(&got, &jail, 777, &there);
	CHECK_STR(there.workdir, "/srv/go-rerun");
	CHECK_STR(there.cgroup_name, "harness.r.go");
	CHECK(there.memory_max_bytes == (256ull << 20) && here.memory_max_bytes == (256ull << 20));
	CHECK(there.pids_max == 50 && here.pids_max == 50);
	NEAR(there.cpu_max, here.cpu_max, 0, "copied");
	NEAR(there.cpu_max, 1.5, 0, "the sandbox's");
	CHECK(there.port == 4242 && there.backend == ACCT_CGROUP2 && there.sample_ms == 20);
	CHECK(there.https == 1 && there.insecure == 1 && there.ca_file == NULL);
	CHECK(there.run_as_uid == 1000000007 && there.run_as_gid == 777 && there.jail == &jail);
	/* since protocol 8, the spec's caps, not a default of the agent's */
	CHECK(here.log_max_bytes == (3ull << 20) && there.log_max_bytes == here.log_max_bytes);
	CHECK(here.relay_max == 17 && there.relay_max == here.relay_max);
	/* jailed: {host} is its own loopback there */
	CHECK_STR(there.impl->start[1], "--listen");
	CHECK_STR(there.impl->start[2], "127.0.0.1:{port}");
	CHECK_STR(there.impl->health_url, "http://127.0.0.1:{port}/healthz");
	sut_wire_start_release(&w);
	sut_wire_start_release(&got);

	/* not jailed: {host} is the address ssh reached, the impl's limits */
	bind_sut(&here, &sp, &im, NULL, NULL, "harness.r.go", NULL);
	sut_wire_request_start(&w, &here, "10.0.0.9", NULL);
	cross(&w, &got);
	sut_wire_start_config(&got, &jail, 777, &there);
	CHECK_STR(there.impl->start[2], "10.0.0.9:{port}");
	CHECK_STR(there.workdir, "/srv/go");
	CHECK(there.memory_max_bytes == 0 && there.pids_max == 50 && there.cpu_max == 0);
	CHECK(there.run_as_uid == -1 && there.run_as_gid == -1 && there.jail == NULL);
	sut_wire_start_release(&w);
	sut_wire_start_release(&got);

	/* a jailed command: bind_build's sandbox limits */
	bind_build(&bhere, &sp, &im, "/srv/go-rerun", "/tmp/b.log", &sb);
	sut_wire_request_build(&w, &bhere, "harness.r.go.command", "10.0.0.9", &ws);
	cross(&w, &got);
	sut_wire_build_config(&got, &bim, &jail, 777, &bthere);
	CHECK_STR(bthere.impl->build[0], "make");
	CHECK_STR(bthere.impl->build[1], "HOST=127.0.0.1");
	CHECK_STR(bthere.workdir, "/srv/go-rerun");
	CHECK_STR(bthere.cgroup_name, "harness.r.go.command");
	CHECK(bthere.memory_max_bytes == bhere.memory_max_bytes);
	CHECK(bthere.pids_max == bhere.pids_max && bhere.pids_max == 100);
	NEAR(bthere.cpu_max, bhere.cpu_max, 0, "copied");
	CHECK(bthere.uid == 1000000007 && bthere.gid == 777 && bthere.jail == &jail);
	CHECK(bthere.backend == ACCT_CGROUP2);
	CHECK(bhere.log_max_bytes == (3ull << 20) && bthere.log_max_bytes == bhere.log_max_bytes);
	sut_wire_start_release(&w);
	sut_wire_start_release(&got);
}

int main(void)
{
	RUN(start_round_trip);
	RUN(config_crosses_the_wire_unchanged);
	RUN(sandbox_and_fetch_round_trip);
	RUN(window_and_facts_round_trip);
	RUN(streamed_sample_and_poll_round_trip);
	return t_done();
}
