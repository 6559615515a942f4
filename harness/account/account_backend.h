/*
 * account_backend: what account_base.c gives the three backends
 * (account_cgroup2.c, account_cgroup1.c, account_procfs.c). Not for other
 * modules: they use account.h.
 */
#ifndef HARNESS_ACCOUNT_BACKEND_H
#define HARNESS_ACCOUNT_BACKEND_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "account/account.h"

/* Cumulative counters at one instant; a window is the difference of two. */
struct acct_counters {
	double cpu_s, user_s, system_s;
	int has_throttle;
	uint64_t nr_throttled, throttled_usec;
	int has_oom;
	uint64_t oom, oom_kill;
	int has_majfault;
	uint64_t pgmajfault;
};

enum acct_peak { ACCT_PEAK_NONE, ACCT_PEAK_LIFETIME, ACCT_PEAK_WINDOW };

/* The run-queue wait of an arm's threads at one instant (account_wait.c):
 * per thread, schedstat's run_delay in ns, sorted by tid. */
struct acct_thread_wait {
	pid_t tid;
	uint64_t ns;
};
struct acct_wait {
	struct acct_thread_wait *v;
	size_t n, alloc;
};

/* The host-held wait of an arm's threads over a window, sample by sample
 * (account_held.c): the last sample's readings and the sums so far. */
struct acct_held {
	struct acct_wait prev;          /* the threads' run_delay at the last sample */
	double busy_prev, self_prev, arm_prev;
	int have_prev;
	size_t intervals;
	double held_s, held_max_s, foreign_s;
	double wait_s;                  /* the threads' wait, sampled: held_s's whole */
};

struct account_ops {
	enum acct_backend backend;
	/* All quiet (no messages): -1 when the counters cannot be read. */
	int (*counters)(struct account *a, struct acct_counters *c);
	/* Called by the sampler thread: anon bytes and cumulative cpu_s. */
	int (*sample)(struct account *a, uint64_t *anon, double *cpu_s);
	/* Reset the peak for a new window; says what the read will mean. */
	enum acct_peak (*peak_begin)(struct account *a);
	int (*peak_read)(struct account *a, uint64_t *peak);
	int (*nprocs)(struct account *a);
	int (*kill_all)(struct account *a, double timeout_s);
	int (*signal_all)(struct account *a, int sig);  /* count signalled */
	/* The processes now, *out malloc'd; NULL op: those listed in
	 * procs_path (the cgroup backends). */
	size_t (*pids)(struct account *a, pid_t **out);
	/* The same as the sampler last saw them, without a fresh scan (the
	 * host-held sample, every sample_ms); NULL op: pids. */
	size_t (*pids_cached)(struct account *a, pid_t **out);
	void (*release)(struct account *a);   /* frees priv only */
};

#define ACCT_MAX_DIRS 8

struct account {
	const struct account_ops *ops;
	int sample_ms;
	int owned;                      /* created here: rmdir the dirs at free */
	char *dirs[ACCT_MAX_DIRS];      /* removal order: as listed */
	size_t ndirs;
	int place_fds[ACCT_MAX_DIRS];   /* cgroup.procs, O_WRONLY|O_CLOEXEC */
	size_t nplace;
	char *procs_path, *kill_path;
	/* the freezer (account_freeze.c): v2 <dir>/cgroup.freeze, v1 the
	 * freezer hierarchy's <dir>/freezer.state; NULL: none */
	char *freeze_path;
	int freeze_v1;
	int frozen;                     /* frozen by account_freeze */
	int has_cpuset;
	char *cpu_weight;               /* what account_weight.c applied, or NULL */
	pid_t root;
	void *priv;

	/* the window in progress */
	int in_window;
	struct acct_counters begin;
	enum acct_peak peak;
	uint64_t t0;
	double cpu0;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	struct account_sample *samples;
	size_t nsamples, alloc;
	double sampler_cpu_s;
	struct acct_wait wait0;         /* the threads' run_delay at the start */
	int has_wait0;
	struct acct_held held;          /* sampler thread (and begin/end) only */
	/* A cgroup another manager removes when its last process exits (a
	 * container's: account_open_pid): each sample also reads the
	 * counters and the peak, and a window whose cgroup went before its
	 * end takes these, at most one sample old (the OOM kill that ended
	 * it included). Under mu. */
	int keep_last, has_last, has_last_peak;
	struct acct_counters last;
	uint64_t last_peak;
};

struct account *acct_new(const struct account_ops *ops, int sample_ms);
/* The freezer (account_freeze.c) made simple: thaw what account_freeze
 * froze (0; -1 when the write failed; no-op when not frozen), and the
 * text that thaws it ("THAWED" v1, "0" v2). */
int acct_thaw(struct account *a);
const char *acct_thaw_text(const struct account *a);
/* Register an owned directory and (optionally) open its cgroup.procs for
 * placing children. */
int acct_add_dir(struct account *a, const char *dir, int place);

/* Quiet file helpers: read up to size-1 bytes of dir/file (NUL-terminated;
 * -1 on error), write a string (0 or -errno). dir may be NULL (file is a
 * full path). */
ssize_t acct_read(const char *dir, const char *file, char *buf, size_t size);
int acct_write(const char *dir, const char *file, const char *s);
/* In "key value\n" text, the value of key; -1 when absent. */
int acct_kv(const char *text, const char *key, uint64_t *out);
/* First number in the text; -1 when none. */
int acct_u64(const char *text, uint64_t *out);

/* The directory name for a new cgroup: "h<pid>_<starttime>_<label>". */
char *acct_owned_name(const char *label);
/* Create parent/name (mode 0755); the full path is returned. */
char *acct_mkdir(const char *parent, const char *name);
/* Start time (clock ticks since boot) of pid, 0 when it does not exist. */
uint64_t acct_pid_starttime(pid_t pid);
/* The pids listed in the cgroup.procs at path (NULL: none), *out
 * malloc'd (NULL when none); the count. */
size_t acct_read_pids(const char *path, pid_t **out);

/* account_wait.c: the run_delay of the threads of processes pids[0..n)
 * now into w (reused; its count reset): 0, or -1 when no thread could be
 * read. The seconds the threads of end waited since begin: per thread
 * alive at end, its increase (all of it when new). */
int acct_wait_read(const pid_t *pids, size_t n, struct acct_wait *w);
double acct_wait_delta(const struct acct_wait *begin, const struct acct_wait *end);
void acct_wait_release(struct acct_wait *w);

/* account_held.c: one sample of the arm's threads pids[0..n) (their
 * run_delay), the host's busy CPU and this process's, with the arm's
 * cumulative CPU seconds; from the second sample on, the interval's
 * host-held wait is added to h. acct_held_release() frees and zeroes it
 * (a new window starts from there). */
void acct_held_sample(struct acct_held *h, const pid_t *pids, size_t n, double arm_cpu_s);
void acct_held_release(struct acct_held *h);

/* SIGKILL every pid listed in the cgroup.procs at path until it is empty
 * or timeout_s passed: 0 when empty. */
int acct_kill_procs(const char *procs_path, double timeout_s);
int acct_count_procs(const char *procs_path);
/* Send sig to every pid listed in the cgroup.procs at path; the count. */
int acct_signal_procs(const char *procs_path, int sig);
/* Reap the dead owners' cgroups under parent (a "harness" directory):
 * kill_file is "cgroup.kill" (v2) or NULL. Returns the count. */
int acct_reap_parent(const char *parent, const char *kill_file, const char *what);

/* Mount point of a cgroup hierarchy: fstype "cgroup2" (opt NULL) or
 * "cgroup" with controller opt among its super options. malloc'd or NULL. */
char *acct_find_mount(const char *fstype, const char *opt);

/*
 * Raise a measured arm's CPU weight (account_weight.c): write the raised
 * value to `file` ("cpu.shares" v1, "cpu.weight" v2) of the arm's own
 * directory dir and of its parent (<mount>/harness, shared); dir NULL:
 * no cpu controller, and say what
 * was done in a->cpu_weight. Never fails: a value that cannot be written
 * is said there ("not raised: ...") and warned about once.
 */
void acct_raise_cpu_weight(struct account *a, const char *backend, const char *dir,
			   const char *file);

/* Backends. */
int acct_cgroup2_usable(void);
struct account *acct_cgroup2_create(const char *label, const struct account_limits *lim,
				    int sample_ms);
struct account *acct_cgroup2_open(const char *dir, int sample_ms);
int acct_cgroup2_reap(void);

int acct_cgroup1_usable(void);
struct account *acct_cgroup1_create(const char *label, const struct account_limits *lim,
				    int sample_ms);
struct account *acct_cgroup1_open(const char *cpuacct, const char *memory, const char *cpu,
				  int sample_ms);
int acct_cgroup1_reap(void);

struct account *acct_procfs_create(int sample_ms);

#endif
