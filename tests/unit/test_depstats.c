/*
 * test_depstats: a dependency's own output read as numbers
 * (base/depstats.h): redis-cli INFO and psql -At lines as counters, the
 * ladder's throughput pattern over pgbench's and redis-benchmark's
 * output, and when a rung keeps up.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/depstats.h"
#include "t.h"

TEST(redis_info_and_psql_lines)
{
	static const char text[] =
		"# Stats\r\n"
		"total_commands_processed:12345\r\n"
		"keyspace_hits:807\r\n"
		"keyspace_misses:193\r\n"
		"executable:/usr/bin/redis-server\r\n"
		"db0:keys=10,expires=0,avg_ttl=0\r\n"
		"xact_commit|4242\n"
		"time:SELECT id FROM invoices WHERE id = $1|12.5\n"
		"calls:SELECT a | b FROM t|7\n"
		"keyspace_hits:810\n"
		"=== harness: build of dep-db in /src\n";
	struct depstats s;

	depstats_parse(text, strlen(text), &s);
	NEAR(depstats_get(&s, "total_commands_processed"), 12345, 0, "exact");
	NEAR(depstats_get(&s, "keyspace_hits"), 810, 0, "a repeated name keeps its last value");
	NEAR(depstats_get(&s, "keyspace_misses"), 193, 0, "exact");
	NEAR(depstats_get(&s, "xact_commit"), 4242, 0, "'|' separates");
	NEAR(depstats_get(&s, "time:SELECT id FROM invoices WHERE id = $1"), 12.5, 0,
	     "the last separator: a statement's spaces stay in its name");
	NEAR(depstats_get(&s, "calls:SELECT a | b FROM t"), 7, 0, "the last '|'");
	CHECK(isnan(depstats_get(&s, "executable")));     /* not a number */
	CHECK(isnan(depstats_get(&s, "db0")));
	CHECK(isnan(depstats_get(&s, "absent")));
	CHECK(s.n == 6);
	depstats_release(&s);
}

TEST(throughput_from_the_commands_output)
{
	static const char pgbench[] =
		"transaction type: pgbench.sql\nnumber of clients: 4\n"
		"latency average = 0.412 ms\nrate limit schedule lag: avg 0.1 (max 3.2) ms\n"
		"initial connection time = 5.123 ms\n"
		"tps = 1987.654321 (without initial connection time)\n";
	static const char redis[] =
		"SET: rps=0.0 (overall: nan) avg_msec=nan (overall: nan)\r"
		"SET: 54347.82 requests per second, p50=0.111 msec\n"
		"GET: 61349.69 requests per second, p50=0.103 msec\n";
	double v;

	CHECK(depstats_throughput("tps = ([0-9.]+)", pgbench, &v) == 0);
	NEAR(v, 1987.654321, 1e-9, "exact");
	CHECK(depstats_throughput("GET: ([0-9.]+) requests per second", redis, &v) == 0);
	NEAR(v, 61349.69, 1e-9, "exact");
	CHECK(depstats_throughput("tps = ([0-9.]+)", redis, &v) == -1);
	CHECK(isnan(v));
	CHECK(depstats_throughput("(", pgbench, &v) == -1);        /* does not compile */
}

TEST(a_rung_keeps_up)
{
	CHECK(depstats_kept_up(2000, 1987.65, 0, 5));            /* 99.4% of its rate */
	CHECK(!depstats_kept_up(4000, 3100, 0, 5));              /* 77.5% */
	CHECK(depstats_kept_up(4000, 3800, 0, 5));               /* exactly 95% */
	CHECK(!depstats_kept_up(2000, 2000, 1, 5));              /* exited 1 */
	CHECK(!depstats_kept_up(2000, NAN, 0, 5));               /* no throughput read */
	CHECK(depstats_kept_up(NAN, 61349.69, 0, 5));            /* closed loop */
}

int main(void)
{
	RUN(redis_info_and_psql_lines);
	RUN(throughput_from_the_commands_output);
	RUN(a_rung_keeps_up);
	return t_done();
}
