/* test_cpuset: cpu lists (parse, canonical format), pinning and read-back. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "sandbox/cpuset.h"
#include "t.h"
#include "base/util.h"

static char *fmt(const char *list)
{
	cpu_set_t set;
	struct sbuf sb = SBUF_INIT;

	if (cpuset_parse(list, &set, "test"))
		return NULL;
	cpuset_format(&set, &sb);
	return sbuf_detach(&sb, NULL);
}

TEST(parse_and_format)
{
	char *s;

	s = fmt("0");
	CHECK_STR(s, "0");
	free(s);
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		s = fmt("1,0");
		CHECK_STR(s, "0-1");    /* canonical: sorted ranges */
		free(s);
		s = fmt("0-1");
		CHECK_STR(s, "0-1");
		free(s);
	}
	CHECK(fmt("") == NULL);
	CHECK(fmt("a") == NULL);
	CHECK(fmt("1-0") == NULL);
	CHECK(fmt("0;1") == NULL);
	CHECK(fmt("-1") == NULL);
	CHECK(fmt("5000") == NULL);     /* beyond CPU_SETSIZE */
	CHECK(fmt("1000") == NULL);     /* not a cpu this process may use */
}

static void *pin_and_read(void *arg)
{
	if (cpuset_pin_self("0"))
		return NULL;
	return cpuset_readback(0);
}

TEST(pin_thread_read_back)
{
	pthread_t t;
	void *r = NULL;
	char *mine = cpuset_readback(0), *after;

	CHECK(pthread_create(&t, NULL, pin_and_read, NULL) == 0);
	pthread_join(t, &r);
	CHECK_STR(r, "0");
	/* only that thread was pinned */
	after = cpuset_readback(0);
	CHECK_STR(after, mine);
	free(r);
	free(mine);
	free(after);
}

int main(void)
{
	RUN(parse_and_format);
	RUN(pin_thread_read_back);
	return t_done();
}
