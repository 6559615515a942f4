/*
 * cpuset: the `cpus:` pinning of implementations and of the generator.
 *
 * A cpu list is the kernel's format: "0-2,4" (ranges and single cpus,
 * comma-separated). Implementations are pinned through their cgroup's
 * cpuset where the cpuset controller is there (account_has_cpuset()),
 * else with sched_setaffinity in the child before exec; the generator's
 * threads with cpuset_pin_self(). Either way the result is read back from
 * the kernel (cpuset_readback) and recorded, never assumed.
 */
#ifndef HARNESS_CPUSET_H
#define HARNESS_CPUSET_H

#include <sched.h>
#include <sys/types.h>

struct sbuf;

/* Parse a cpu list; every cpu must be one this process may run on.
 * 0, or -1 after one error() naming `what` (e.g. "impl go: cpus"). */
int cpuset_parse(const char *list, cpu_set_t *set, const char *what);
/* Append the canonical list form of set ("0-2,4") to sb. */
void cpuset_format(const cpu_set_t *set, struct sbuf *sb);
/* Pin the calling thread (generator threads). 0 or -1 with an error(). */
int cpuset_pin_self(const char *list);
/* The affinity the kernel reports for pid (0: the calling thread), as a
 * malloc'd cpu list; NULL when it cannot be read. */
char *cpuset_readback(pid_t pid);

#endif
