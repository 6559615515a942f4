/*
 * sut_spawn: process creation for sut.c (internal to the sut module):
 * environment, argv[0] resolution, fork/execve with the child's set-up
 * steps reported back through a close-on-exec pipe, and the watchdog.
 */
#ifndef HARNESS_SUT_SPAWN_H
#define HARNESS_SUT_SPAWN_H

#include <sched.h>
#include <sys/types.h>

#include "account/account.h"
#include "spec/spec.h"

/* The minimal environment + impl env ({port} substituted when port > 0).
 * NULL-terminated, malloc'd strings; free with strv_free() (util.h). */
char **spawn_env(const struct spec_impl *impl, int port, int uid, const char *workdir);
/* The environment of a jailed process: nothing of the harness's own,
 * only PATH (the Debian default), HOME=JAIL_HOME, USER=LOGNAME=sandbox,
 * LANG=C.UTF-8, then the impl's env ({port} substituted when port > 0). */
char **spawn_env_jail(const struct spec_impl *impl, int port);

struct spawn {
	char *const *argv;              /* argv[0] as written in the spec */
	char *const *envp;
	const char *cwd;
	int out_fd, err_fd;
	const struct account *acct;     /* join its cgroup; NULL: none */
	const cpu_set_t *cpus;          /* sched_setaffinity; NULL: none */
	int uid, gid;                   /* -1: unchanged */
	const char *what;               /* "impl go: start" for messages */
	int keep_fd;                    /* > 0: given to the child as descriptor 3
					   (bwrap's --info-fd); 0: none */
	int keep_fd2;                   /* > 0 (with keep_fd): as descriptor 4
					   (bwrap's --block-fd); 0: none */
};

/* Fork and exec. The pid (leader of its own process group), or -1 after
 * one error() line saying which step failed. */
pid_t spawn_run(const struct spawn *sp);

/*
 * Fork the log relay of a sandboxed process: it appends what arrives on
 * two pipes to out_file and err_file (err_file < 0: one pipe, to
 * out_file) and exits when every writer has closed them. The pipes'
 * write ends (close-on-exec; give them to spawn_run as out_fd/err_fd and
 * close them after) are returned in *out_w and *err_w (-1 with one pipe).
 * why: the sandboxed code then holds a pipe, never the log file, so it
 * can neither truncate nor seek over what the harness wrote there.
 * Each file is capped at cap bytes (0: none; its size when the relay
 * starts counts): past it a marker line, then what arrives is read and
 * discarded, so the writer never blocks on a full pipe. acct non-NULL:
 * the relay joins that cgroup (account_child_place), so its CPU, memory
 * and one task count as the sandboxed code's.
 * Returns the relay's pid, or -1 after one error() line.
 */
pid_t spawn_relay(int out_file, int err_file, uint64_t cap, const struct account *acct,
		  int *out_w, int *err_w);
/* Wait (at most timeout_s, then SIGKILL) for the relay to drain and exit. */
void spawn_relay_wait(pid_t relay, double timeout_s);

/* Fork the watchdog for a process group and an account; returns its pid
 * and the pipe's write end in *fd (close-on-exec). The owner gone
 * without a word (SIGKILL), it kills the group and the cgroup and, with
 * umount_dir non-NULL (an arm's disk quota, sut.h quota_dir), then
 * detaches the mount on umount_dir (MNT_DETACH: that one path, the
 * caller's to name). */
pid_t spawn_watchdog(pid_t pgid, const struct account *acct, const char *umount_dir, int *fd);
/* Tell the watchdog all is cleaned up, and reap it. */
void spawn_watchdog_release(pid_t wd, int fd);

/* A child's log, opened by the harness (root) for appending and inherited
 * by the child: O_NOFOLLOW so a planted symlink can never make root append
 * elsewhere. The descriptor (close-on-exec), or -1 after error(). */
int spawn_open_log(const char *path);
/* A wait status in words ("exited with status 2", "killed by signal 9
 * (Killed)") into buf; returns buf. */
const char *spawn_status_desc(int st, char *buf, size_t n);
/* Kill the process group pgid (when > 0) and everything in acct's cgroup
 * (when non-NULL); a warning when some process outlives SIGKILL. */
void spawn_kill_all(pid_t pgid, struct account *acct);

#endif
