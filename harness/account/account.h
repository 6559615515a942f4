/*
 * account: kernel accounting of one implementation (its whole process
 * tree), so no runtime grades its own homework.
 *
 * One interface, three backends (accounting.backend in the spec):
 *
 *   cgroup2  a harness-owned cgroup <v2 root>/harness/<dir>; cpu.stat
 *            usage/user/system and nr_throttled/throttled_usec deltas,
 *            memory.stat anon sampled, memory.peak (reset per window by
 *            writing to it where the kernel allows: scope "window", else
 *            "lifetime"), memory.events oom/oom_kill deltas, memory.stat
 *            pgmajfault delta.
 *   cgroup1  one harness-owned cgroup per v1 hierarchy (cpu, cpuacct,
 *            memory, and pids/cpuset when mounted): cpuacct.usage (cpu_s)
 *            and cpuacct.stat (user/system, USER_HZ ticks), memory.stat
 *            total_rss as anon, memory.max_usage_in_bytes as the peak
 *            (reset per window by writing 0; note it is usage, anon plus
 *            page cache), memory.oom_control oom_kill (v1 has no separate
 *            "oom" count: oom = oom_kill), cpu.stat nr_throttled /
 *            throttled_time, memory.stat total_pgmajfault.
 *   procfs   no privileges: the process tree below the root pid (found by
 *            scanning /proc for parent links; rescanned every 20 samples and
 *            at window edges) summing utime+stime+cutime+cstime from
 *            /proc/PID/stat (so reaped children count through their
 *            parent) and RssAnon (statm resident - shared) per process.
 *            Samples have clock-tick resolution (10 ms per process); window
 *            totals refine live processes with their threads' schedstat
 *            run time. No throttling, no
 *            OOM counts, no peak (anon_max is the sampled peak).
 *
 * `auto` picks cgroup2 when the v2 hierarchy has the cpu and memory
 * controllers available and is writable, else cgroup1 when the cpuacct and
 * memory v1 controllers are mounted and writable, else procfs; when the
 * chosen cgroup backend then fails to create its cgroup, auto falls back to
 * procfs with a warning (an error instead when memory/pids limits were
 * asked for: they must never be dropped silently). Every window records the
 * backend that produced it.
 *
 * Cgroup directory names carry their owner, "h<pid>_<starttime>_<label>",
 * so account_reap_leftovers() can tell a dead harness's cgroup from a
 * running one's (PID reuse is ruled out by the start time).
 *
 * Threads: the sampler runs on its own thread between window_begin and
 * window_end; every other call is made from one thread (the owner's).
 */
#ifndef HARNESS_ACCOUNT_H
#define HARNESS_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


/* The spec's accounting.backend. */
enum acct_backend { ACCT_AUTO, ACCT_CGROUP2, ACCT_CGROUP1, ACCT_PROCFS };

struct rusage;

const char *account_backend_name(enum acct_backend b); /* "cgroup2", ... */
/* "auto|cgroup2|cgroup1|procfs" -> enum; -1 when unknown. */
int account_backend_parse(const char *s, enum acct_backend *out);
/* What `auto` resolves to on this machine (never ACCT_AUTO). */
enum acct_backend account_detect(void);
/* 1 when the backend can be used here (procfs: always). */
int account_available(enum acct_backend b);

struct account_limits {
	uint64_t memory_max_bytes;      /* 0: none */
	uint64_t pids_max;              /* 0: none */
	const char *cpus;               /* cpu list for the cgroup's cpuset, or NULL */
	double cpu_max;                 /* CPU bandwidth in cores (CFS quota over a
					   100 ms period: cpu.max in v2,
					   cpu.cfs_quota_us in v1); 0: none */
	int cpu_weight_raise;           /* 1: a measured arm: its CPU weight raised
					   at every level of its cgroup path
					   (account_weight.c) */
};

struct account;

/*
 * Create the accounting context for one implementation: for the cgroup
 * backends, the harness-owned cgroup (limits and cpuset applied; cpuset
 * only where the cpuset controller is there: account_has_cpuset()).
 * `label` names it (sanitised to [A-Za-z0-9._-]). backend ACCT_AUTO is
 * resolved with account_detect(). NULL after one error() line.
 */
struct account *account_create(enum acct_backend backend, const char *label,
			       const struct account_limits *lim, int sample_ms);

/*
 * Tests and tools: account over existing directories, which are neither
 * created nor removed. cgroup2: dirs[0] is the cgroup. cgroup1: dirs are
 * the cpuacct, memory and (optional, NULL) cpu directories. procfs: no
 * dirs; call account_attach().
 */
struct account *account_open_dirs(enum acct_backend backend, const char *const *dirs,
				  size_t ndirs, int sample_ms);

/*
 * Account over the cgroup process pid is in, made by another manager (a
 * container's engine: ctr.h), found from /proc/PID/cgroup: cgroup1 its
 * cpuacct, memory and (when mounted) cpu, pids and freezer directories;
 * cgroup2 its directory; procfs the process tree of pid. Nothing is
 * created or removed; limits are the manager's. backend ACCT_AUTO is
 * resolved with account_detect(). NULL after one error() line (the
 * process is gone, or not in that hierarchy) (account_pid.c).
 */
struct account *account_open_pid(enum acct_backend backend, pid_t pid, int sample_ms);

enum acct_backend account_backend(const struct account *a);
int account_has_cpuset(const struct account *a);

/*
 * In a forked child, before exec: move the calling process into the
 * cgroup(s). Async-signal-safe (the files were opened by account_create).
 * Returns 0 or -errno. No-op for procfs. The descriptors stay open (close-
 * on-exec) for the context's lifetime, so it can be called for each child.
 */
int account_child_place(const struct account *a);

/* The root process of the tree (procfs walks from it; cgroups ignore it). */
void account_attach(struct account *a, pid_t root);
/* The root was reaped with this rusage (procfs keeps its final CPU). */
void account_note_reaped(struct account *a, const struct rusage *ru);

/*
 * For the watchdog process (async-signal-safe use after fork): a
 * cgroup.procs file listing every process of the cgroup, and the v2
 * cgroup.kill file; NULL when not applicable.
 */
const char *account_procs_path(const struct account *a);
const char *account_kill_path(const struct account *a);
/* Directories to rmdir, deepest first; *n set. */
const char *const *account_dirs(const struct account *a, size_t *n);

/* Number of processes in the cgroup (procfs: in the tree); -1 unknown. */
int account_nprocs(struct account *a);

/*
 * The limits hit since the cgroup was made, as the kernel counts them:
 * forks refused at pids.max (pids.events "max", v1 and v2) and processes
 * killed by the OOM killer at the memory limit (oom_kill). has_* 0 where
 * the backend cannot tell (procfs, a controller not mounted).
 */
struct account_limit_hits {
	int has_pids;
	uint64_t pids_refused;
	int has_oom;
	uint64_t oom_kill;
};
void account_limit_hits(struct account *a, struct account_limit_hits *h);
/* SIGKILL every process of the cgroup (cgroup.kill in v2) until it is
 * empty or timeout_s passed; 0 when empty. procfs: the tree. */
int account_kill_all(struct account *a, double timeout_s);

/* Send sig to every process of the cgroup (procfs: of the tree), e.g. the
 * SIGTERM of a stop reaching children that left the process group.
 * Returns how many were signalled. */
int account_signal_all(struct account *a, int sig);

/*
 * The freezer (account_freeze.c): with on = 1 every process of the cgroup
 * stops being scheduled (cgroup2: cgroup.freeze; cgroup1: the v1 freezer
 * hierarchy, where the backend made a cgroup in it); 0 thaws them. Waits,
 * at most about a second, until the kernel reports the cgroup frozen:
 * 0 then (thawing: 0 once written). -ENOTSUP where the backend has no
 * freezer (procfs, a v1 host without the freezer mounted), -1 when the
 * kernel refused or did not finish in time (thawed again, quietly: the
 * caller measures instead). Thawing what is not frozen is a no-op.
 * account_kill_all() and account_free() thaw first: a frozen v1 task
 * does not die of SIGKILL until it is thawed.
 */
int account_freeze(struct account *a, int on);
/* "cgroup2 cgroup.freeze" / "cgroup1 freezer", or NULL without one. */
const char *account_freezer(const struct account *a);
/* For the watchdog (async-signal-safe use after fork): the file that
 * thaws the cgroup when `text` is written to it; NULL without a freezer. */
const char *account_thaw_path(const struct account *a, const char **text);
/*
 * The CPU weight a measured arm's cgroup was given (account_weight.c), as
 * provenance: "cgroup1 cpu.shares 10240 at harness/ and its cgroup",
 * "cgroup2 cpu.weight 1000 at harness/ and its cgroup", or why none
 * ("not raised: ..."); NULL when not asked (cpu_weight_raise 0) or procfs.
 */
const char *account_cpu_weight(const struct account *a);

/* The cgroup's (procfs: the tree's) cumulative CPU seconds now, outside
 * any window (the idle arms' CPU, runner_freeze.c). 0, or -1 when the
 * counters cannot be read. */
int account_cpu_now(struct account *a, double *cpu_s);

/* Remove the cgroup(s) this context created (after they emptied) and free. */
void account_free(struct account *a);

/* ------------------------------------------------------------ windows */

struct account_sample {
	double t_ms;                    /* from the window's start */
	uint64_t anon;                  /* bytes */
	double cpu_s;                   /* cumulative since the window's start */
};

struct account_window {
	const char *backend;            /* static string */
	double duration_s;
	double cpu_s, user_s, system_s;
	int has_throttle;
	uint64_t nr_throttled, throttled_usec;
	double anon_p50, anon_p99, anon_max;   /* bytes, over the samples */
	struct account_sample *samples; /* owned; account_window_release() */
	size_t nsamples;
	int has_peak;
	uint64_t mem_peak;
	const char *peak_scope;         /* "window" or "lifetime" (static) */
	int has_oom;
	uint64_t oom, oom_kill;
	int has_majfault;
	uint64_t pgmajfault;
	double sampler_cpu_s;           /* the sampler thread's own CPU */
	int has_wait;                   /* wait_s known (threads read at both ends) */
	double wait_s;                  /* the threads' run-queue wait over the
					   window: seconds runnable, not running
					   (schedstat run_delay, summed; a lower
					   bound: threads that exited take theirs
					   along; account_wait.c); NAN unknown */
	/* What of that wait the host held (account_held.c): each thread's
	 * wait between two samples in the share of the busy CPU that went
	 * to neither the arm nor this process. has_held: two samples or
	 * more read the threads and /proc/stat. */
	int has_held;
	double held_s;                  /* summed over the threads */
	double held_max_s;              /* one thread, one sample interval: the longest */
	double foreign_cpu_s;           /* CPU the host gave others over the window */
	double held_wait_s;             /* the threads' wait, sampled (held_s's whole) */
};

/*
 * Start a window: read the counters, reset the peak where possible and start
 * the sampler thread (every sample_ms). 0, or -1 with an error().
 */
int account_window_begin(struct account *a);
/* End it: stop the sampler, read the counters and fill out (deltas). */
int account_window_end(struct account *a, struct account_window *out);
void account_window_release(struct account_window *w);

/*
 * The samples taken so far in the open window, from index `from` on (at
 * most max of them) copied into out, as the sampler takes them (the
 * agent's --sut role streams them: docs/AGENT_PROTOCOL.md). Returns how
 * many were copied; 0 when none is new or no window is open. Locks
 * against the sampler thread.
 */
size_t account_window_samples(struct account *a, size_t from, struct account_sample *out,
			      size_t max);

/* Nearest-rank quantile (q in [0,1]) of the samples' anon bytes. */
double account_anon_quantile(const struct account_sample *s, size_t n, double q);

/*
 * Start-up: SIGKILL the processes of every harness-owned cgroup whose owner
 * is no longer alive, and remove those cgroups. Returns the number of
 * cgroups reaped (a warning() names each).
 */
int account_reap_leftovers(void);

#endif
