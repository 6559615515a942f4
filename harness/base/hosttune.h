/*
 * hosttune: whether the host is tuned for benchmarking (issue 28, item 7),
 * from the host facts (hostfacts.h): the CPU frequency governor, turbo
 * boost and SMT, and whether the load generator may run real-time
 * (rtsched.h). Each item is tuned, not tuned, or unknown (the fact could
 * not be read: no cpufreq in a VM, an old kernel); unknown is never taken
 * as tuned.
 *
 *   item                  fact      tuned when
 *   governor_performance  governor  "performance"
 *   boost_off             boost     "off"
 *   smt_off               smt       "off"
 *   generator_rt          generator_sched  "fifo" (the generator keeps
 *                                   its schedule on a busy host)
 *
 * `harness check` warns for each item that is not tuned (one that cannot
 * be read only when the spec requires it); a spec's
 * host.require (a set of these names, HOSTTUNE_* bits in declared order)
 * refuses a run (exit 3, one line) on a host where a required item is not
 * tuned, unknown included: nothing runs on a host it cannot vouch for.
 */
#ifndef HARNESS_HOSTTUNE_H
#define HARNESS_HOSTTUNE_H

struct hostfacts;
struct sbuf;

enum { HOSTTUNE_GOVERNOR = 1, HOSTTUNE_BOOST = 2, HOSTTUNE_SMT = 4, HOSTTUNE_GENERATOR_RT = 8 };
#define HOSTTUNE_ITEMS 4
/* The items' names (host.require's values), NULL-terminated. */
extern const char *const hosttune_names[];

/* What item i is and should be ("governor is powersave, want performance
 * (cpupower frequency-set -g performance)"), appended to out. */
void hosttune_describe(const struct hostfacts *f, int i, struct sbuf *out);
/* The items of `require` (bits) not tuned, as one line without '\n'
 * ("host.require: governor_performance: governor is unknown ...; ...")
 * into out; the count (0: every required item is tuned). */
int hosttune_unmet(const struct hostfacts *f, unsigned require, struct sbuf *out);
/* Read this host's facts and judge `require`: 0 when met (or nothing
 * required); else 1 after one error() line naming `where` (the spec) and
 * every unmet item. */
int hosttune_refuse(unsigned require, const char *where);
/* 1 when item i's fact could be read on this host (not "unknown"). */
int hosttune_known(const struct hostfacts *f, int i);
/* 1 when item i (0-based, in the table's order) is tuned. */
int hosttune_ok(const struct hostfacts *f, int i);

#endif
