/*
 * sandbox: the unprivileged user and what it owns (see sandbox.h).
 */
#include "sandbox/jail.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 32)
		return 0;
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	for (i = 1; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

static int lookup(const char *name, int *uid, int *gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) || !res)
		return -1;
	*uid = (int)res->pw_uid;
	*gid = (int)res->pw_gid;
	return 0;
}

/* Run useradd; its output goes to our stderr. */
static int run_useradd(const char *name)
{
	char *argv[] = { SANDBOX_USERADD, "--system", "--no-create-home", "--user-group",
			 "--shell", "/usr/sbin/nologin", (char *)name, NULL };
	char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return error("sandbox: cannot fork for useradd: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error("sandbox: waitpid for useradd: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return error("sandbox: cannot run %s to create user %s", SANDBOX_USERADD, name);
	return error("sandbox: %s %s failed (%s %d)", SANDBOX_USERADD, name,
		     WIFEXITED(status) ? "exit" : "signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int sandbox_user_ensure(const char *name, int *uid, int *gid)
{
	if (!name)
		name = SANDBOX_DEFAULT_USER;
	if (!valid_name(name))
		return error("sandbox.user: '%s' is not a plain user name ([a-z_][a-z0-9_-]*, "
			     "at most 32 characters)", name);
	if (lookup(name, uid, gid) == 0)
		return 0;
	if (geteuid() != 0)
		return error("sandbox: user %s does not exist and only root can create it "
			     "(useradd --system %s)", name, name);
	if (run_useradd(name))
		return -1;
	if (lookup(name, uid, gid))
		return error("sandbox: useradd created %s but it cannot be looked up", name);
	return 0;
}

/* nftw has no payload argument: the walk's parameters live here for its
 * duration (sandbox_give is not called concurrently). */
static struct {
	uid_t uid;
	gid_t gid;
	size_t root_len;
	const char *failed_path;
	int failed_errno;
} give;

static int give_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	/* Skip <root>/.git and everything below it. */
	if (f->level >= 1 && !strncmp(p + give.root_len, "/.git", 5) &&
	    (p[give.root_len + 5] == '\0' || p[give.root_len + 5] == '/'))
		return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (lchown(p, give.uid, give.gid)) {
		give.failed_path = p;
		give.failed_errno = errno;
		return FTW_STOP;
	}
	if (type == FTW_D)
		chmod(p, (st->st_mode & 07777) | S_IRWXU);
	else if (type == FTW_F)
		chmod(p, (st->st_mode & 07777) | S_IRUSR | S_IWUSR);
	return FTW_CONTINUE;
}

int sandbox_give(const char *path, int uid, int gid, int recursive)
{
	struct stat st;
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!recursive) {
		if (lchown(path, (uid_t)uid, (gid_t)gid))
			return error("%s: cannot give it to uid %d: %s", path, uid, strerror(errno));
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			chmod(path, (st.st_mode & 07777) | S_IRWXU);
		return 0;
	}
	give.uid = (uid_t)uid;
	give.gid = (gid_t)gid;
	give.root_len = n;
	give.failed_path = NULL;
	if (nftw(path, give_one, 32, FTW_PHYS | FTW_ACTIONRETVAL) != 0 || give.failed_path) {
		if (give.failed_path)
			return error("%s: cannot give it to uid %d: %s", give.failed_path, uid,
				     strerror(give.failed_errno));
		return error("%s: cannot walk it: %s", path, strerror(errno));
	}
	return 0;
}

static int can_enter(const char *dir, int uid, int gid)
{
	struct stat st;
	int ok;

	if (stat(dir, &st))
		return error("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || uid == 0)
		return 0;
	if (st.st_uid == (uid_t)uid)
		ok = (st.st_mode & S_IXUSR) != 0;
	else if (st.st_gid == (gid_t)gid)
		ok = (st.st_mode & S_IXGRP) != 0;
	else
		ok = (st.st_mode & S_IXOTH) != 0;
	if (ok)
		return 0;
	return error("%s: the sandbox user (uid %d) cannot enter it (mode %04o, owner uid %d): "
		     "make it reachable (chmod o+x) or use another runs directory", dir, uid,
		     (unsigned)(st.st_mode & 07777), (int)st.st_uid);
}

int sandbox_reachable(const char *path, int uid, int gid)
{
	char *real = realpath(path, NULL);
	struct sbuf pre = SBUF_INIT;
	size_t i;
	int ret = -1;

	if (!real)
		return error("%s: %s", path, strerror(errno));
	if (can_enter("/", uid, gid))
		goto out;
	for (i = 1; real[i]; i++) {
		if (real[i] != '/')
			continue;
		sbuf_reset(&pre);
		sbuf_add(&pre, real, i);
		if (can_enter(pre.buf, uid, gid))
			goto out;
	}
	if (can_enter(real, uid, gid))
		goto out;
	ret = 0;
out:
	sbuf_release(&pre);
	free(real);
	return ret;
}

/* Is any process running as uid? (a uid another run drew) */
static int uid_in_use(int uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct stat st;
	char path[300];
	int used = 0;

	if (!d)
		return 0;
	while (!used && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", e->d_name);
		if (!stat(path, &st) && st.st_uid == (uid_t)uid)
			used = 1;
	}
	closedir(d);
	return used;
}

int sandbox_uids(size_t n, int *uids)
{
	uint32_t r;
	size_t i;
	int fd, tries;

	if (n > 16)
		return error("sandbox: %zu untrusted arms, at most 16", n);
	for (tries = 0; tries < 100; tries++) {
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r)) {
			if (fd >= 0)
				close(fd);
			return error("sandbox: /dev/urandom: %s", strerror(errno));
		}
		close(fd);
		/* a block of 16 consecutive uids, one per arm */
		for (i = 0; i < n; i++) {
			uids[i] = SANDBOX_UID_MIN + (int)(r & 0xffffff) * 16 + (int)i;
			if (getpwuid((uid_t)uids[i]) || uid_in_use(uids[i]))
				break;
		}
		if (i == n)
			return 0;
	}
	return error("sandbox: no free block of uids found");
}

int sandbox_prepare(const char *user, const char *dir, int uid, int give, int *gid)
{
	int user_uid;

	if (jail_check() || sandbox_user_ensure(user, &user_uid, gid))
		return -1;
	if (!dir)
		return 0;
	if (give && sandbox_give(dir, uid, *gid, 1))
		return -1;
	return sandbox_reachable(dir, uid, *gid);
}
