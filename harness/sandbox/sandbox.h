/*
 * sandbox: the unprivileged user that untrusted (rerun) code builds and
 * runs as, and the directories it may write.
 *
 * The user (spec sandbox.user, default "harness-sut") is created when it
 * does not exist, by running (fork/execve, never a shell)
 *
 *     /usr/sbin/useradd --system --no-create-home --user-group
 *                       --shell /usr/sbin/nologin NAME
 *
 * which needs root. It owns nothing but what the harness gives it: the
 * checkout directory runs/<id>/src/<impl>/ (recursively, except the
 * repository's .git, which stays root's so the code cannot rewrite the
 * history it is recorded at) and the run's logs directory. run.db, the run
 * directory and the runs directory stay root-owned (0755 dirs, 0644 file),
 * so the implementation can read but not write them.
 *
 * Running processes as that uid/gid inside a limited cgroup is sut's job
 * (harness/sut/sut.h); this module only provides the user and the ownership.
 */
#ifndef HARNESS_SANDBOX_H
#define HARNESS_SANDBOX_H

#include <stddef.h>

#define SANDBOX_DEFAULT_USER "harness-sut"
#define SANDBOX_USERADD "/usr/sbin/useradd"

/*
 * Resolve name (NULL: SANDBOX_DEFAULT_USER) to its uid and gid, creating
 * the user with useradd first when it does not exist. -1 with one error()
 * line when the name is not a plain user name ([a-z_][a-z0-9_-]*, at most
 * 32 characters), when the user is missing and we are not root, or when
 * useradd fails (its exit status in the message).
 */
int sandbox_user_ensure(const char *name, int *uid, int *gid);

/*
 * Give path to uid:gid (lchown: symlinks are never followed). recursive:
 * the whole tree below it too, except a directory named ".git" directly
 * under path. Directories get u+rwx, files u+rw. -1 with an error() naming
 * the first path that could not be changed.
 */
int sandbox_give(const char *path, int uid, int gid, int recursive);

/*
 * Check that uid/gid can reach path: every ancestor directory grants it
 * search (x) permission. -1 with an error() naming the first ancestor that
 * does not (e.g. a 0700 temporary directory), so a sandboxed build fails
 * with a clear line instead of "permission denied" deep in its log.
 */
int sandbox_reachable(const char *path, int uid, int gid);

/*
 * One identity per untrusted arm and run: n uids nobody else uses, chosen
 * at random in [SANDBOX_UID_MIN, SANDBOX_UID_MIN + 2^24 * 16) (no passwd
 * entry, no running process, no other run: each run draws its own), into
 * uids[0..n). -1 with an error() when n > 16 or /dev/urandom fails.
 * The arm's processes run as that uid (the sandbox user's group), and
 * bwrap maps it to itself in the arm's user namespace.
 */
#define SANDBOX_UID_MIN 1000000000
int sandbox_uids(size_t n, int *uids);

/*
 * The one preparation of this host for code run as uid in a jail, used
 * wherever an arm runs jailed (a run's arms here, `probe` and `load` with
 * sandbox: always, and an agent for its coordinator's arm): bwrap usable
 * (jail_check), the sandbox user `user` (NULL: the default; created when
 * missing) whose group goes to *gid, then dir (NULL: none) given to uid
 * (give: recursively, sandbox_give) and checked reachable by it. 0, or -1
 * after one error() line.
 */
int sandbox_prepare(const char *user, const char *dir, int uid, int give, int *gid);

#endif
