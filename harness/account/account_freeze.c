/*
 * account_freeze: the cgroup freezer, so an implementation that is not
 * being measured cannot run while another is (docs/DESIGN.md, "Arms not
 * being measured do not run"). v2 writes cgroup.freeze and reads
 * "frozen 1" in cgroup.events; v1 writes FROZEN to the freezer
 * hierarchy's freezer.state and reads it back until it says FROZEN (it
 * says FREEZING while tasks are still being stopped).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "account/account.h"
#include "account/account_backend.h"
#include "base/util.h"

/* How long a freeze may take before it is given up (the kernel stops
 * every task at its next return to user space: milliseconds). */
#define FREEZE_WAIT_MS 1000

/* 1 when the kernel says every task of the cgroup is frozen. */
static int is_frozen(const struct account *a)
{
	char buf[512], dir[4096];
	uint64_t v;
	const char *slash;

	if (a->freeze_v1) {
		if (acct_read(NULL, a->freeze_path, buf, sizeof(buf)) < 0)
			return 0;
		return !strncmp(buf, "FROZEN", 6);
	}
	slash = strrchr(a->freeze_path, '/');
	if (!slash || (size_t)(slash - a->freeze_path) >= sizeof(dir))
		return 0;
	memcpy(dir, a->freeze_path, slash - a->freeze_path);
	dir[slash - a->freeze_path] = '\0';
	if (acct_read(dir, "cgroup.events", buf, sizeof(buf)) < 0 || acct_kv(buf, "frozen", &v))
		return 0;
	return v == 1;
}

int account_freeze(struct account *a, int on)
{
	uint64_t deadline;

	if (!a->freeze_path)
		return -ENOTSUP;
	if (!on)
		return acct_thaw(a);
	if (acct_write(NULL, a->freeze_path, a->freeze_v1 ? "FROZEN" : "1"))
		return -1;
	a->frozen = 1;
	/* FREEZE_WAIT_MS of wall time, by the clock: a count of 5 ms sleeps
	 * (as it was) stretched to over 3 s on a loaded host, each sleep and
	 * read taking longer than 5 ms. One last look after the deadline. */
	deadline = now_ns() + (uint64_t)FREEZE_WAIT_MS * 1000000ull;
	for (;;) {
		int past = now_ns() >= deadline;

		if (is_frozen(a))
			return 0;
		if (past)
			break;
		usleep(5000);
	}
	acct_thaw(a);
	return -1;
}

const char *account_freezer(const struct account *a)
{
	if (!a->freeze_path)
		return NULL;
	return a->freeze_v1 ? "cgroup1 freezer" : "cgroup2 cgroup.freeze";
}

const char *account_thaw_path(const struct account *a, const char **text)
{
	*text = a->freeze_path ? acct_thaw_text(a) : NULL;
	return a->freeze_path;
}

int account_cpu_now(struct account *a, double *cpu_s)
{
	struct acct_counters c;

	memset(&c, 0, sizeof(c));
	if (!a->ops->counters || a->ops->counters(a, &c))
		return -1;
	*cpu_s = c.cpu_s;
	return 0;
}
