/* testhook: the TEST-ONLY environment variables, read once (testhook.h). */
#include <stdlib.h>

#include "base/testhook.h"

static struct testhooks hooks;

void testhook_read(void)
{
	const char *v;

	v = getenv("HARNESS_TEST_STALL_GENERATOR");
	hooks.stall_generator = v && *v ? v : NULL;
	v = getenv("HARNESS_TEST_AGENT_SKEW_MS");
	hooks.agent_skew_ms = v && *v ? strtod(v, NULL) : 0;
	hooks.no_short_slice = getenv("HARNESS_TEST_NO_SHORT_SLICE") != NULL;
	hooks.no_rt = getenv("HARNESS_TEST_NO_RT") != NULL;
	v = getenv("HARNESS_TEST_CGROUP2_ROOT");
	hooks.cgroup2_root = v && *v ? v : NULL;
	v = getenv("HARNESS_TEST_HOST_FACTS");
	hooks.host_facts = v && *v ? v : NULL;
}

const struct testhooks *testhooks(void)
{
	return &hooks;
}
