/*
 * sut: the lifecycle of an implementation under test. Build it once, start
 * it (fork/execve of its argv, never a shell), wait until healthy, notice
 * when it exits on its own, stop it, and never leave a process behind.
 *
 * Start:
 *  - a free loopback port is chosen (bind 127.0.0.1:0) and "{port}" is
 *    substituted in the start argv, the env values, the health and stats
 *    URLs;
 *  - the child gets its own process group, PR_SET_PDEATHSIG(SIGKILL)
 *    (note: tied to the thread that called sut_start: call it from a
 *    thread that outlives the implementation, e.g. the main thread), joins
 *    its accounting cgroup BEFORE exec, is pinned (cpuset cgroup, else
 *    sched_setaffinity), gets stdin from /dev/null, stdout and stderr
 *    appended to <log_dir>/<impl>.stdout.log / .stderr.log (a marker line
 *    per start), every other inherited descriptor closed, signal
 *    dispositions and mask reset, and then drops to run_as_uid/gid
 *    (setgroups, setgid, setuid, PR_SET_NO_NEW_PRIVS) when asked;
 *  - environment: ONLY the minimal set below, then the impl's env on top
 *    (same name: the impl wins). Minimal set, from the harness's own
 *    environment when present: PATH (default
 *    /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin), HOME,
 *    USER, LOGNAME, LANG, LC_ALL, TZ, TMPDIR. When running as another uid,
 *    HOME, USER and LOGNAME are that user's (HOME: the workdir when the
 *    user has none) and TMPDIR is dropped.
 *  - a watchdog process (a fork of the harness that runs no harness code
 *    after fork) holds the other end of a pipe: when the harness dies in
 *    any way, even SIGKILL, it sees end-of-file and kills the process
 *    group and everything in the cgroup (cgroup.kill in v2), then removes
 *    the cgroup. sut_reap_leftovers() at start-up covers the watchdog
 *    itself being killed.
 *
 * Stop: SIGTERM to the group and to every process of its cgroup, a grace period (default 3 s) for the process
 * and its cgroup to empty, SIGKILL to the group, cgroup.kill / SIGKILL to
 * every process left in the cgroup, wait, remove the cgroup.
 *
 * Another backend may start the process itself (sut_config.starter:
 * armops_ctr.c, a container's `ENGINE start --attach`) and hand the sut
 * its pid, accounting and namespace: health, exit, logs, watchdog and the
 * final kill are then the same as for a spawned start.
 *
 * Errors are one line (error()); callers exit 3 (EXIT_ENV).
 */
#ifndef HARNESS_SUT_H
#define HARNESS_SUT_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "account/account.h"
#include "sandbox/jail.h"
#include "spec/spec.h"

struct sut_config {
	const struct spec_impl *impl;
	const char *workdir;            /* NULL: impl->repo */
	const char *log_dir;            /* created when missing */
	const char *cgroup_name;        /* label, unique per run+impl, e.g. "harness.<run>.<impl>" */
	enum acct_backend backend;      /* ACCT_AUTO: account_detect() */
	int sample_ms;                  /* accounting sampler period, 0: 50 */
	int run_as_uid, run_as_gid;     /* -1: unchanged */
	uint64_t memory_max_bytes;      /* 0: impl->memory_max_bytes */
	uint64_t pids_max;              /* 0: impl->pids_max */
	double cpu_max;                 /* cores (account_limits); 0: none */
	double stop_grace_s;            /* 0: 3 */
	int port;                       /* 0: choose a free one */
	/* workload.tls: it serves https:// (sut_url), its health URL is
	 * checked with these CA certificates (NULL: the system's), or
	 * without verifying when insecure. */
	int https;
	const char *ca_file;
	int insecure;
	/* When non-NULL and set non-zero (a signal handler's flag),
	 * sut_wait_healthy() gives up within about a second. */
	volatile sig_atomic_t *stop;
	/* Non-NULL: run under bwrap (jail.h) with its own network namespace,
	 * which the health check (and, through sut_netns, the load and the
	 * stats poller) enter; stdout/stderr reach the log files through a
	 * relay process's pipes, never as the files themselves. */
	const struct jail *jail;
	/* jailed only: these ports of the harness's loopback (the run's
	 * dependencies) are relayed into its namespace (portfwd.h) before
	 * its command runs; nothing else of the host is reachable. */
	const int *forward_ports;
	size_t nforward;
	/* ... at most this many connections at once (0: no bound): one more
	 * is closed at once and counted (sut_relay_refused) */
	unsigned relay_max;
	/* jailed only: each log file (stdout, stderr) at most this many
	 * bytes (0: none), cut with a marker line (spawn_relay) */
	uint64_t log_max_bytes;
	/* jailed only, non-NULL: the working directory is the arm's disk
	 * quota (quota.h), mounted there; the harness killed (SIGKILL), the
	 * watchdog detaches that mount once the process is dead, so the run
	 * is left as an interrupted one is (its image kept, unmounted:
	 * resume mounts it again) */
	const char *quota_dir;
	/* Non-NULL: started by starter->start instead of spawning
	 * impl->start (see struct sut_starter) */
	const struct sut_starter *starter;
};

struct sut;
struct portfwd;

/* What a starter started, as sut_start would have made it. Every field
 * is owned by the sut once starter->start returned 0. */
struct sut_proc {
	pid_t pid;                      /* the harness's child: its exit is the arm's */
	pid_t main;                     /* where its cpus are read back */
	int netns_fd;                   /* its network namespace, or -1 */
	struct account *acct;           /* its accounting, never NULL */
	struct portfwd *fwd;            /* the dependencies relayed in, or NULL */
	char *argv_text;                /* what was started, one line */
	const char *cpus_method;        /* static; NULL: "none" */
};

/* A process another backend starts in sut_start's place (armops_ctr.c).
 * The starter and its ctx are the caller's and outlive the sut. */
struct sut_starter {
	/* Start it on port, stdout/stderr into out_fd/err_fd (the arm's
	 * logs, borrowed), and fill *p. 0, or -1 after one error() line
	 * with nothing of it left. */
	int (*start)(void *ctx, const struct sut_config *cfg, const char *wd, int port,
		     int out_fd, int err_fd, struct sut_proc *p);
	/* Ask it to end within grace_s; sut_stop then waits for p->pid and
	 * kills whatever is left in p->acct and its group. */
	void (*stop)(void *ctx, double grace_s);
	/* Once its process is gone: remove what is left of it (safe twice). */
	void (*remove)(void *ctx);
	void *ctx;
};

/*
 * Start the implementation. NULL after one error() line (no start argv,
 * argv[0] not found or not executable, workdir missing, cgroup cannot be
 * made). The process is started but not yet known to be healthy.
 */
struct sut *sut_start(const struct sut_config *cfg);

/*
 * Poll the health URL (libcurl, every 50 ms, each try at most 1 s) until a
 * 2xx answer: 0. -1 after an error() when timeout_s passes (<= 0:
 * impl->health_timeout_s) or the process exits first (the message is
 * followed by the last lines of its stderr), or when the config's stop
 * flag is set (within about a second; the caller checks its flag).
 * Without a health URL: 0 as long as the process is alive.
 */
int sut_wait_healthy(struct sut *s, double timeout_s);

/*
 * After sut_wait_healthy: 0 once 127.0.0.1:port (the assigned port, in
 * its namespace when jailed) accepts a connection, which is where the
 * load goes. A health URL on a fixed port can pass against another
 * server while this one died on "Address already in use": -1 after one
 * error() line naming the implementation, that it exited and its last
 * stderr line (then the tail), or that it does not listen there after
 * timeout_s; -1 without a message when the config's stop flag is set.
 */
int sut_wait_listening(struct sut *s, double timeout_s);

int sut_port(const struct sut *s);
/* Milliseconds from its exec (the spawn) to the first healthy answer of
 * sut_wait_healthy (a 2xx, or with health.tcp a connection accepted); NAN
 * before one, or for a start without a health check. */
double sut_startup_ms(const struct sut *s);
/* A loopback port free right now (bind 127.0.0.1:0), or -1. */
int sut_free_port(void);
/* "http://127.0.0.1:<port>" ("https://" with cfg.https; owned by s). */
const char *sut_url(const struct sut *s);
/* The stats URL with {port} substituted; NULL when none. */
const char *sut_stats_url(const struct sut *s);
pid_t sut_pid(const struct sut *s);
/* The process group whose members are the implementation: sut_pid's
 * natively, sut_proc.main's when a starter started it (a container's
 * main process, its own group in its namespace; sut_pid is then the
 * engine's attach). */
pid_t sut_tree_pgid(const struct sut *s);
/* The descriptor of the implementation's network namespace (netns.h) when
 * it runs in a jail, else -1. Owned by s: valid until sut_free. */
int sut_netns(const struct sut *s);
/* The exact argv started, as one line (jail_argv_text; owned by s). */
const char *sut_argv_text(const struct sut *s);
const char *sut_stdout_path(const struct sut *s);
const char *sut_stderr_path(const struct sut *s);

/*
 * Non-blocking: 1 once the process has exited on its own (it is then
 * reaped here and its wait status kept), else 0.
 */
int sut_exited(struct sut *s);
int sut_exit_status(const struct sut *s);       /* wait status, valid once exited */
/* "exited with status 1" / "killed by signal 9" into buf. */
const char *sut_exit_desc(const struct sut *s, char *buf, size_t n);

/* The cpus the kernel reports for the process (read back after start),
 * and how they were applied: "cgroup1 cpuset", "cgroup2 cpuset",
 * "sched_setaffinity" or "none". */
const char *sut_cpus(const struct sut *s);
const char *sut_cpus_method(const struct sut *s);

/* Stop as described above; safe to call twice. */
void sut_stop(struct sut *s);
/* sut_stop() if needed, then free. */
void sut_free(struct sut *s);

/* The accounting context (owned by s, valid until sut_free). */
struct account *sut_account(struct sut *s);
/* Connections from its jail to the run's dependencies closed unrelayed at
 * sut_config.relay_max so far (portfwd.h); 0 when none relayed. */
unsigned long sut_relay_refused(struct sut *s);

/* Start-up: kill and remove what a crashed harness left (see account.h). */
void sut_reap_leftovers(void);

/* ------------------------------------------------------------ build */

struct sut_build_config {
	const struct spec_impl *impl;
	const char *workdir;            /* NULL: impl->repo */
	const char *log_path;           /* output of the build (appended) */
	double timeout_s;               /* wall-clock limit, 0: none */
	int uid, gid;                   /* -1: unchanged */
	uint64_t memory_max_bytes;      /* 0: none */
	uint64_t pids_max;              /* 0: none */
	double cpu_max;                 /* cores; 0: none */
	enum acct_backend backend;      /* its cgroup (limits, kill); procfs: none */
	const char *cgroup_name;        /* label; NULL: "<impl>.build" */
	/* When non-NULL and set non-zero (a signal handler's flag), the
	 * build's process group and cgroup are killed within about 20 ms and
	 * sut_build() fails. */
	volatile sig_atomic_t *stop;
	/* A plain non-zero exit returns 1 without a message (a polled
	 * health command); timeouts and errors still print and return -1. */
	int quiet;
	/* Non-NULL: run under bwrap, as for sut_config.jail. */
	const struct jail *jail;
	/* as sut_config.quota_dir */
	const char *quota_dir;
	/* Non-NULL: receives the exact argv executed, as one line
	 * (jail_argv_text; malloc'd, the caller frees), once spawned. */
	char **argv_text;
	/* When non-NULL: the command's exit code, or -1 when it did not exit
	 * on its own (killed, timed out, interrupted, never started). */
	int *exit_code;
	/* When non-NULL: the limits its cgroup hit (account_limit_hits),
	 * read before the cgroup goes; all zero without a cgroup. */
	struct account_limit_hits *hits;
	/* When non-NULL (QUOTA_FULL_LEN bytes, quota.h): after it ends, its
	 * working directory's disk quota full (quota_full's figures), else
	 * "" (not full, or no quota there) */
	char *disk_full;
	/* jailed only: its log at most this many bytes (0: none), as
	 * sut_config.log_max_bytes */
	uint64_t log_max_bytes;
	/* 1: this is the arm's build step (the runner's), not a version,
	 * setup or reset command: a backend may add its own build after the
	 * build argv (armops_ctr.c: the container image); sut_build ignores it */
	int build_step;
	/* Non-NULL: run this argv (argv[0] absolute, never jailed) instead of
	 * impl->build, as the log's "what" (armops_ctr.c: the engine's build) */
	char *const *argv;
	const char *what;
};

/*
 * Run the impl's build argv (nothing to do when it has none: 0) with the
 * same environment rules, process group and sandboxing as sut_start.
 * Returns 0, or -1 after one error() line (exit status, the timeout, or
 * the stop flag) followed by the last lines of the log; the caller exits 3
 * (or, when its stop flag is set, stops as interrupted).
 */
int sut_build(const struct sut_build_config *cfg);

/* The last `lines` lines of path from byte offset `from`, each printed as
 * "harness:   | <line>" to stderr (shared by build and health failures). */
void sut_print_tail(const char *path, long from, int lines);

#endif
