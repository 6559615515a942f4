/*
 * test_hostfacts: the facts this host reports, and drift detection.
 */
#include "t.h"
#include "base/hostfacts.h"
#include "base/util.h"

#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *const keys[] = {
	"kernel", "hostname", "cpu_model", "cpus_online", "governor", "boost",
	"thp", "smt", "mem_total_kb", "loadavg_1m", "cgroup_mode", "generator_sched",
};

TEST(reads_every_key)
{
	struct hostfacts h = HOSTFACTS_INIT;
	struct utsname u;
	size_t i;
	long n;

	CHECK(hostfacts_read(&h) == 0);
	CHECK(h.n == ARRAY_SIZE(keys));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = hostfacts_get(&h, keys[i]);
		CHECK(v != NULL);
		CHECK(v && *v);
		if (i < h.n)
			CHECK_STR(h.keys[i], keys[i]);   /* documented order */
	}
	uname(&u);
	CHECK_STR(hostfacts_get(&h, "hostname"), u.nodename);
	CHECK(strstr(hostfacts_get(&h, "kernel"), u.release) != NULL);
	CHECK(parse_long(hostfacts_get(&h, "cpus_online"), &n) == 0);
	CHECK(n == sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(parse_long(hostfacts_get(&h, "mem_total_kb"), &n) == 0 && n > 0);
	{
		double la;
		CHECK(parse_double(hostfacts_get(&h, "loadavg_1m"), &la) == 0 && la >= 0);
	}
	{
		const char *m = hostfacts_get(&h, "cgroup_mode");
		CHECK(m && (!strcmp(m, "v1") || !strcmp(m, "v2") || !strcmp(m, "hybrid")));
		const char *t = hostfacts_get(&h, "thp");
		CHECK(t && !strchr(t, '[') && !strchr(t, ' '));
		const char *g = hostfacts_get(&h, "generator_sched");
		CHECK(g && (!strcmp(g, "fifo") || !strcmp(g, "other")));
	}
	hostfacts_release(&h);
	CHECK(h.n == 0 && h.keys == NULL);
}

TEST(same_host_no_drift)
{
	struct hostfacts a = HOSTFACTS_INIT, b = HOSTFACTS_INIT;
	struct sbuf what = SBUF_INIT;

	hostfacts_read(&a);
	hostfacts_read(&b);
	/* Pin the load average: this test is about the other keys. */
	hostfacts_set(&b, "loadavg_1m", hostfacts_get(&a, "loadavg_1m"));
	CHECK(hostfacts_drift(&a, &b, &what) == 0);
	CHECK_STR(what.buf, "");
	hostfacts_release(&a);
	hostfacts_release(&b);
	sbuf_release(&what);
}

TEST(drift_counts_and_describes)
{
	struct hostfacts a = HOSTFACTS_INIT, b = HOSTFACTS_INIT;
	struct sbuf what = SBUF_INIT;

	hostfacts_set(&a, "governor", "performance");
	hostfacts_set(&a, "loadavg_1m", "0.10");
	hostfacts_set(&a, "thp", "madvise");
	hostfacts_set(&b, "governor", "powersave");
	hostfacts_set(&b, "loadavg_1m", "1.00");   /* +0.9: within 1.0 */
	hostfacts_set(&b, "thp", "madvise");
	CHECK(hostfacts_drift(&a, &b, &what) == 1);
	CHECK_STR(what.buf, "governor: performance -> powersave");

	sbuf_reset(&what);
	hostfacts_set(&b, "loadavg_1m", "1.20");   /* +1.1: drift */
	CHECK(hostfacts_drift(&a, &b, &what) == 2);
	CHECK_STR(what.buf, "governor: performance -> powersave; loadavg_1m: 0.10 -> 1.20");

	/* A key present on one side only counts too. */
	sbuf_reset(&what);
	hostfacts_set(&b, "smt", "on");
	CHECK(hostfacts_drift(&a, &b, NULL) == 3);
	CHECK(hostfacts_drift(&b, &a, &what) == 3);
	CHECK(strstr(what.buf, "smt: on -> (none)") != NULL);

	hostfacts_release(&a);
	hostfacts_release(&b);
	sbuf_release(&what);
}

int main(void)
{
	RUN(reads_every_key);
	RUN(same_host_no_drift);
	RUN(drift_counts_and_describes);
	return t_done();
}
