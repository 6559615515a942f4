/*
 * hostfacts: the facts about the machine that change what a benchmark
 * measures, read at the start of a run and again at every window; a change
 * (drift) is recorded as an event on the window (issue 5, item 6).
 *
 *   key            source                                        not there
 *   kernel         uname: sysname release version machine
 *   hostname       uname nodename
 *   cpu_model      /proc/cpuinfo "model name" (or "Processor")   "unknown"
 *   cpus_online    sysconf(_SC_NPROCESSORS_ONLN)
 *   governor       cpu0 cpufreq/scaling_governor                 "unknown"
 *   boost          intel_pstate/no_turbo (inverted) or
 *                  cpufreq/boost: "on" | "off"                   "unknown"
 *   thp            transparent_hugepage/enabled, the [selected]   "unknown"
 *   smt            /sys/devices/system/cpu/smt/active: "on"|"off" "unknown"
 *   mem_total_kb   /proc/meminfo MemTotal
 *   loadavg_1m     /proc/loadavg, first field
 *   cgroup_mode    v2 (unified /sys/fs/cgroup), hybrid (v1 + unified/),
 *                  v1
 *   generator_sched  how the load generator's threads run (rtsched.h):
 *                  "fifo" (real-time permitted: a probe thread got it)
 *                  or "other" (refused; SCHED_OTHER, short slice)
 *
 * Keys appear in that order, always all of them. Values are plain strings
 * (as stored in the host_facts table).
 *
 * Ownership: struct hostfacts owns keys and values; hostfacts_release()
 * frees them and re-initialises the struct.
 */
#ifndef HARNESS_HOSTFACTS_H
#define HARNESS_HOSTFACTS_H

#include <stddef.h>

struct sbuf;

struct hostfacts {
	size_t n;
	char **keys;
	char **values;
};

#define HOSTFACTS_INIT { 0, NULL, NULL }

/* Read every fact (a fact that cannot be read gets "unknown"); 0. */
int hostfacts_read(struct hostfacts *h);
void hostfacts_release(struct hostfacts *h);

/* The value of key, or NULL. */
const char *hostfacts_get(const struct hostfacts *h, const char *key);
/* Add or replace key (copies both); for tests and for facts read back
 * from a run database. */
void hostfacts_set(struct hostfacts *h, const char *key, const char *value);

/* Absolute change of the 1-minute load average that counts as drift: a
 * busy neighbour process, not the noise of the harness itself. */
#define HOSTFACTS_LOADAVG_TOL 1.0

/*
 * Compare now with base: returns the number of keys that drifted (a value
 * that differs, loadavg_1m only when it moved by more than
 * HOSTFACTS_LOADAVG_TOL, a key present in one and not the other), and
 * appends one line describing them to what (if non-NULL), e.g.
 * "governor: performance -> powersave; loadavg_1m: 0.10 -> 2.31".
 */
int hostfacts_drift(const struct hostfacts *base, const struct hostfacts *now,
		    struct sbuf *what);

#endif
