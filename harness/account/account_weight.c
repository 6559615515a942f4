/*
 * account_weight: a measured arm's CPU weight, raised at every level of
 * its cgroup path (the shared <mount>/harness parent and the arm's own
 * directory), the same for every arm.
 *
 * Why: in a cgroup, an arm competes with the host's other processes as
 * its group, whatever its nice. With the default weight (v1 cpu.shares
 * 1024, v2 cpu.weight 100) the whole harness/ subtree counts as one nice-0
 * process against every other runnable one, so a busy host left a 2 ms
 * server waiting for a CPU 2-6 times as long as it ran (20-450 ms of
 * run-queue delay a 3 s window) and its p99 doubled (docs/DESIGN.md,
 * "An arm's CPU weight"). Ten times the default is about nice -10
 * (weight 9548 against 1024): foreign work still runs, but an arm that
 * asks for a CPU gets one soon. Both arms of a comparison get the same
 * weight at the same levels, so it is fair between them; the value is in
 * the run's provenance (host_facts arm.<name>.cpu_weight).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account/account_backend.h"
#include "base/util.h"

/* Ten times each version's default (v1 1024, v2 100). */
#define WEIGHT_V1 "10240"
#define WEIGHT_V2 "1000"

void acct_raise_cpu_weight(struct account *a, const char *backend, const char *dir,
			   const char *file)
{
	const char *v = strcmp(file, "cpu.shares") ? WEIGHT_V2 : WEIGHT_V1;
	struct sbuf sb = SBUF_INIT;
	char *parent = NULL, *slash = NULL;
	const char *where;
	int e;

	if (dir) {
		parent = xstrdup(dir);
		slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
	}
	where = parent;
	if (!parent || !slash) {
		sbuf_addf(&sb, "%s: not raised: no cpu controller", backend);
		goto out;
	}
	e = acct_write(parent, file, v);
	if (!e) {
		where = dir;
		e = acct_write(dir, file, v);
	}
	if (e) {
		sbuf_addf(&sb, "%s: not raised: cannot write %s/%s: %s", backend, where, file,
			  strerror(-e));
		warning("accounting %s: the arm's CPU weight is not raised (cannot write %s/%s: %s); foreign processes can delay it",
			backend, where, file, strerror(-e));
		goto out;
	}
	sbuf_addf(&sb, "%s %s %s at harness/ and its cgroup", backend, file, v);
out:
	free(parent);
	free(a->cpu_weight);
	a->cpu_weight = sbuf_detach(&sb, NULL);
}

const char *account_cpu_weight(const struct account *a)
{
	return a ? a->cpu_weight : NULL;
}
