/* test_agent: the agent protocol's frames, payload fields, the load
 * config and stats on the wire (lossless), the four-timestamp arithmetic
 * and the checks of destinations and binary paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_link.h"
#include "base/frame.h"
#include "base/hist.h"
#include "load/load_wire.h"
#include "base/rng.h"
#include "t.h"
#include "base/util.h"

TEST(frames_round_trip_and_eof)
{
	int p[2], type = 0;
	struct sbuf got = SBUF_INIT;
	const char *why;

	CHECK(pipe(p) == 0);
	CHECK(frame_write(p[1], FRAME_TIME, "abc", 3) == 0);
	CHECK(frame_write(p[1], FRAME_STOP, "", 0) == 0);
	CHECK(frame_read(p[0], &type, &got, 1000, &why) == 0);
	CHECK(type == FRAME_TIME && got.len == 3 && !memcmp(got.buf, "abc", 3));
	CHECK(frame_read(p[0], &type, &got, 1000, &why) == 0);
	CHECK(type == FRAME_STOP && got.len == 0);
	/* Nothing there: a timeout, then EOF once the writer closes. */
	CHECK(frame_read(p[0], &type, &got, 20, &why) == -2);
	close(p[1]);
	CHECK(frame_read(p[0], &type, &got, 1000, &why) == 1);
	close(p[0]);
	/* A length of 0 is malformed. */
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "\0\0\0\0", 4) == 4);
	CHECK(frame_read(p[0], &type, &got, 1000, &why) == -1);
	close(p[0]);
	close(p[1]);
	sbuf_release(&got);
}

TEST(fields_round_trip)
{
	struct sbuf sb = SBUF_INIT;
	struct dec d;
	size_t n;
	const void *b;
	char *s;

	enc_u64(&sb, 0);
	enc_u64(&sb, UINT64_MAX);
	enc_i64(&sb, -5);
	enc_i64(&sb, INT64_MIN);
	enc_f64(&sb, 0.1);
	enc_str(&sb, NULL);
	enc_str(&sb, "");
	enc_bytes(&sb, "x\0y", 3);
	dec_init(&d, sb.buf, sb.len);
	CHECK(dec_u64(&d) == 0);
	CHECK(dec_u64(&d) == UINT64_MAX);
	CHECK(dec_i64(&d) == -5);
	CHECK(dec_i64(&d) == INT64_MIN);
	CHECK(dec_f64(&d) == 0.1);
	CHECK(dec_str(&d) == NULL);
	s = dec_str(&d);
	CHECK_STR(s, "");
	free(s);
	b = dec_bytes(&d, &n);
	CHECK(n == 3 && b && !memcmp(b, "x\0y", 3));
	CHECK(!d.bad && d.p == d.end);
	/* Past the end: bad sticks, values are 0. */
	CHECK(dec_u64(&d) == 0 && d.bad);
	sbuf_release(&sb);
}

TEST(config_round_trip)
{
	struct load_request r[2];
	struct kv hdr = { (char *)"X-A", (char *)"1" }, js = { (char *)"/id", (char *)"42" };
	int st[2] = { 200, 201 };
	struct load_config c;
	struct load_wire_config w;
	struct sbuf sb = SBUF_INIT, got = SBUF_INIT;
	struct dec d;
	char ca[256];
	int fd;

	memset(r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	r[0].name = (char *)"get";
	r[0].weight = 3;
	r[0].method = (char *)"GET";
	r[0].path = (char *)"/a";
	r[0].headers = &hdr;
	r[0].nheaders = 1;
	r[0].expect.status = st;
	r[0].expect.nstatus = 2;
	r[0].expect.json = &js;
	r[0].expect.njson = 1;
	r[1].name = (char *)"post";
	r[1].weight = 1;
	r[1].method = (char *)"POST";
	r[1].path = (char *)"/b";
	r[1].body = (char *)"{\"a\":\0}";
	r[1].body_len = 7;
	r[1].expect.body_contains = (char *)"ok";
	r[1].expect.body_contains_len = 2;
	r[1].expect.content_type = (char *)"application/json";
	c.url = "http://10.0.0.1:8080";
	c.requests = r;
	c.nrequests = 2;
	c.rate = 1234.5;
	c.duration_s = 2;
	c.arrival = ARRIVAL_POISSON;
	c.seed = 99;
	c.connections = 7;
	c.backlog_max = 100;
	c.timeout_ms = 500;
	c.threads = 2;
	c.transport = TRANSPORT_NATIVE;
	c.cpus = "1-2";
	c.part = 1;
	c.parts = 3;
	c.http = HTTPV_H2C;
	c.insecure = 1;
	/* the CA file goes as its bytes; the agent writes a file of its own */
	snprintf(ca, sizeof(ca), "%s/harness-test-ca.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(ca);
	CHECK(fd >= 0 && write(fd, "-----PEM-----\n", 14) == 14);
	close(fd);
	c.ca_file = ca;
	CHECK(load_wire_enc_config(&sb, &c) == 0);
	unlink(ca);
	dec_init(&d, sb.buf, sb.len);
	CHECK(load_wire_dec_config(&d, &w) == 0);
	CHECK(w.cfg.http == HTTPV_H2C && w.cfg.insecure == 1);
	CHECK(w.cfg.ca_file && strcmp(w.cfg.ca_file, ca) && read_file(w.cfg.ca_file, &got, 0) == 0);
	CHECK(got.len == 14 && !memcmp(got.buf, "-----PEM-----\n", 14));
	sbuf_release(&got);
	snprintf(ca, sizeof(ca), "%s", w.cfg.ca_file);
	CHECK_STR(w.cfg.url, c.url);
	CHECK(w.cfg.rate == c.rate && w.cfg.duration_s == 2 && w.cfg.arrival == ARRIVAL_POISSON);
	CHECK(w.cfg.seed == 99 && w.cfg.connections == 7 && w.cfg.backlog_max == 100);
	CHECK(w.cfg.timeout_ms == 500 && w.cfg.threads == 2 && w.cfg.transport == TRANSPORT_NATIVE);
	CHECK_STR(w.cfg.cpus, "1-2");
	CHECK(w.cfg.part == 1 && w.cfg.parts == 3 && w.cfg.nrequests == 2);
	CHECK_STR(w.reqs[0].headers[0].value, "1");
	CHECK(w.reqs[0].expect.nstatus == 2 && w.reqs[0].expect.status[1] == 201);
	CHECK_STR(w.reqs[0].expect.json[0].key, "/id");
	CHECK(w.reqs[1].body_len == 7 && !memcmp(w.reqs[1].body, r[1].body, 7));
	CHECK(w.reqs[1].expect.body_contains_len == 2);
	CHECK_STR(w.reqs[1].expect.content_type, "application/json");
	load_wire_config_release(&w);
	CHECK(access(ca, F_OK) != 0);   /* the release removed the agent's copy */
	/* Truncated: refused, nothing leaked. */
	dec_init(&d, sb.buf, sb.len - 3);
	CHECK(load_wire_dec_config(&d, &w) == -1);
	sbuf_release(&sb);
}

/* Stats split in two, sent, merged on the other side: the same buckets,
 * counts, min, max and sum as recording everything in one. */
TEST(stats_merge_lossless)
{
	struct load_stats a, b, all, ra, rb, merged;
	struct sbuf sa = SBUF_INIT, sb2 = SBUF_INIT;
	struct rng r;
	struct dec d;
	size_t i;

	load_stats_init(&a, 2);
	load_stats_init(&b, 2);
	load_stats_init(&all, 2);
	load_stats_init(&ra, 2);
	load_stats_init(&rb, 2);
	load_stats_init(&merged, 2);
	rng_seed(&r, 7, 1);
	for (i = 0; i < 20000; i++) {
		uint64_t v = 1000 + rng_below(&r, 50000000);
		struct load_stats *s = i % 2 ? &a : &b;

		hist_record(&s->latency, v);
		hist_record(&s->req_latency[i % 3 == 0], v);
		s->counts.due++;
		s->counts.completed++;
		hist_record(&all.latency, v);
		hist_record(&all.req_latency[i % 3 == 0], v);
	}
	a.counts.dropped = 3;
	a.nsamples = 1;
	a.samples[0].req = 1;
	a.samples[0].status = 404;
	snprintf(a.samples[0].why, sizeof(a.samples[0].why), "status 404");
	load_wire_enc_stats(&sa, &a);
	load_wire_enc_stats(&sb2, &b);
	dec_init(&d, sa.buf, sa.len);
	CHECK(load_wire_dec_stats(&d, &ra) == 0);
	dec_init(&d, sb2.buf, sb2.len);
	CHECK(load_wire_dec_stats(&d, &rb) == 0);
	load_stats_merge(&merged, &ra);
	load_stats_merge(&merged, &rb);
	CHECK(merged.counts.due == 20000 && merged.counts.dropped == 3);
	CHECK(merged.latency.total == all.latency.total);
	CHECK(merged.latency.min == all.latency.min && merged.latency.max == all.latency.max);
	CHECK(merged.latency.sum == all.latency.sum);
	CHECK(!memcmp(merged.latency.counts, all.latency.counts,
		      hist_nbuckets() * sizeof(uint64_t)));
	CHECK(!memcmp(merged.req_latency[1].counts, all.req_latency[1].counts,
		      hist_nbuckets() * sizeof(uint64_t)));
	CHECK(hist_percentile(&merged.latency, 99) == hist_percentile(&all.latency, 99));
	CHECK(merged.nsamples == 1 && merged.samples[0].status == 404);
	CHECK_STR(merged.samples[0].why, "status 404");
	/* Another nreq: refused. */
	load_stats_release(&ra);
	load_stats_init(&ra, 3);
	dec_init(&d, sa.buf, sa.len);
	CHECK(load_wire_dec_stats(&d, &ra) == -1);
	load_stats_release(&a);
	load_stats_release(&b);
	load_stats_release(&all);
	load_stats_release(&ra);
	load_stats_release(&rb);
	load_stats_release(&merged);
	sbuf_release(&sa);
	sbuf_release(&sb2);
}

/* Agent clock = coordinator + 250 ms; 3 ms out, 1 ms back, 0.5 ms in the
 * agent: offset off by half the asymmetry (1 ms), uncertainty 2 ms
 * covers it. */
TEST(clock_round)
{
	int64_t off, rtt, ms = 1000000, t1 = 1000 * ms, skew = 250 * ms;
	int64_t t2 = t1 + 3 * ms + skew, t3 = t2 + ms / 2, t4 = t3 - skew + ms;

	agent_clock_round(t1, t2, t3, t4, &off, &rtt);
	CHECK(rtt == 4 * ms);
	CHECK(off == skew + ms);
	CHECK(llabs(off - skew) <= rtt / 2);
}

TEST(destinations_and_binaries)
{
	const char *why;

	CHECK(agent_dest_check("bench@loadgen-2", &why) == 0);
	CHECK(agent_dest_check("ssh://bench@10.0.0.2:2222", &why) == 0);
	CHECK(agent_dest_check("-oProxyCommand=x", &why) == -1);
	CHECK(agent_dest_check("a b", &why) == -1);
	CHECK(agent_dest_is_local("local"));
	CHECK(agent_binary_check("/usr/local/bin/harness", &why) == 0);
	CHECK(agent_binary_check("~/bin/harness-1.2", &why) == 0);
	CHECK(agent_binary_check("harness; rm -rf /", &why) == -1);
	CHECK(agent_binary_check("$(id)", &why) == -1);
}

TEST(version_line)
{
	char buf[256], want[64];

	snprintf(want, sizeof(want), "harness-agent %d ", AGENT_PROTOCOL);
	CHECK(!strncmp(agent_version_line(buf, sizeof(buf)), want, strlen(want)));
}

int main(void)
{
	RUN(frames_round_trip_and_eof);
	RUN(fields_round_trip);
	RUN(config_round_trip);
	RUN(stats_merge_lossless);
	RUN(clock_round);
	RUN(destinations_and_binaries);
	RUN(version_line);
	return t_done();
}
