/*
 * jail: the bubblewrap (bwrap) command line that untrusted code runs in.
 *
 * The harness does not build a namespace sandbox itself: it runs Debian's
 * bwrap (package bubblewrap) as the arm's unprivileged uid, after the
 * existing uid drop and inside the arm's cgroup (sut.h), as
 *
 *   /usr/bin/bwrap --unshare-all --die-with-parent --new-session
 *     --cap-drop ALL --unshare-user --disable-userns
 *     --ro-bind /usr /usr --symlink usr/bin /bin ...  the system, read-only:
 *                     /usr /bin /sbin /lib* /etc /opt /sys (a symlink as one)
 *     --dev /dev --proc /proc --tmpfs /tmp --dir /tmp/home --tmpfs /run
 *     --tmpfs /var/tmp --symlink ../run /var/run --tmpfs /home
 *     [--tmpfs HIDE]...                  the runs directory: empty
 *     --bind WORKDIR WORKDIR             (--ro-bind when frozen)
 *     [--ro-bind WORKDIR/.git WORKDIR/.git]
 *     [--ro-bind /dev/null SOCKET]...    each host socket under a bind above
 *     [--remount-ro HIDE]... --remount-ro /
 *     --chdir WORKDIR [--info-fd 3 --block-fd 4] -- CMD...
 *
 * so the code sees a read-only system on a fresh, read-only root (none of
 * the host's /run, /tmp, /var, /srv, /home, /root or any other directory:
 * no unix socket bound there is reachable, which a read-only bind of /
 * would not stop: connect() needs no write access; and every socket a
 * host process has bound under the directories it does bind, the system
 * ones and its own tree, is covered by /dev/null: usock.h), its own checkout
 * read-write (its .git read-only and not renamable), a private /tmp,
 * /var/tmp, /run and $HOME (/tmp/home), nothing of any run's database,
 * logs or other checkouts, its own network (loopback only: the harness
 * reaches it through netns.h), PID, IPC, UTS, cgroup and user namespaces,
 * no nested user namespace (`unshare -U` fails: no kernel surface of a
 * uid 0 there), no capabilities, and dies with the harness. The
 * environment is the caller's (sut's minimal set, HOME=/tmp/home).
 *
 * Ownership: returned vectors and strings are malloc'd, the caller's
 * (strv_free / free).
 */
#ifndef HARNESS_JAIL_H
#define HARNESS_JAIL_H

#include <sys/types.h>

#define JAIL_BWRAP "/usr/bin/bwrap"
#define JAIL_HOME "/tmp/home"
/* The descriptor bwrap writes its {"child-pid": N} to (--info-fd), and
 * the one it waits on before running the command (--block-fd): the
 * harness sets up the namespace (dependency ports) in between. */
#define JAIL_INFO_FD 3
#define JAIL_BLOCK_FD 4

struct jail {
	const char *hide;       /* a directory shown empty (the runs directory); NULL: none */
	int frozen;             /* the working directory bound read-only */
};

/*
 * The bwrap argv running cmd (argv, NULL-terminated) in workdir under j.
 * info: add --info-fd JAIL_INFO_FD --block-fd JAIL_BLOCK_FD (the
 * command runs once a byte arrives there). NULL after one error() line when a
 * path cannot be resolved (realpath) or the host's unix sockets cannot be
 * listed (usock_bound).
 */
char **jail_argv(const struct jail *j, const char *workdir, char *const *cmd, int info);

/* argv as one line for the record: words joined by spaces, a word with
 * anything but [A-Za-z0-9_./:=@%+,-] single-quoted. */
char *jail_argv_text(char *const *argv);

/* 0 when bwrap is installed and runs a sandbox with --disable-userns
 * (bubblewrap >= 0.8; one short bwrap run to tell), else -1 after one
 * error() naming the package or version needed. */
int jail_check(void);

/* A jail's limits are its cgroup's: sut.c refuses to run sandboxed code
 * under procfs accounting, which has none (the runner refuses it before
 * anything starts; this holds on an agent's host too, where `auto` finds
 * what that host has). -1 after one error() naming it. */
int jail_refuse_procfs(const char *name);

/*
 * Read bwrap's info JSON from fd (at most timeout_ms) and return the
 * sandboxed process's pid as the harness sees it; -1 after an error()
 * (bwrap exited before setting up: its stderr says why).
 */
pid_t jail_child_pid(int fd, int timeout_ms);

#endif
