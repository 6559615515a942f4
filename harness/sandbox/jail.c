/*
 * jail: the bwrap command line (see jail.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sandbox/usock.h"
#include "base/util.h"

struct vec {
	char **v;
	size_t n, alloc;
};

static void push(struct vec *a, const char *s)
{
	XGROW(a->v, a->alloc, a->n + 2);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void push3(struct vec *a, const char *x, const char *y, const char *z)
{
	push(a, x);
	push(a, y);
	if (z)
		push(a, z);
}

/*
 * The host's system, read-only, on bwrap's fresh (tmpfs) root: nothing
 * else of the host's filesystem is there, so no unix socket it holds
 * (under /run, /tmp, /var, /srv, /home, a checkout's parents...) can be
 * reached (jail.h). /sys for what runtimes read there (CPUs online, the
 * cgroup limits a JVM sizes its heap by). A symlink (merged /usr: /bin
 * -> usr/bin) is made again as one; a directory absent here is skipped.
 */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys",
};

static void push_system(struct vec *a)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(system_dirs); i++) {
		if (lstat(system_dirs[i], &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			push3(a, "--ro-bind", system_dirs[i], system_dirs[i]);
			continue;
		}
		n = S_ISLNK(st.st_mode) ? readlink(system_dirs[i], target, sizeof(target) - 1) : -1;
		if (n > 0) {
			target[n] = '\0';
			push3(a, "--symlink", target, system_dirs[i]);
		}
	}
}

/* path (absolute) with its directory resolved (realpath), its last
 * component kept (a socket is never a symlink we follow); NULL when its
 * directory does not resolve. */
static char *resolved(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct sbuf sb = SBUF_INIT;
	char *dir;

	sbuf_add(&sb, path, slash > path ? (size_t)(slash - path) : 1);
	dir = realpath(sb.buf, NULL);
	sbuf_reset(&sb);
	if (!dir) {
		sbuf_release(&sb);
		return NULL;
	}
	sbuf_addf(&sb, "%s/%s", strcmp(dir, "/") ? dir : "", slash + 1);
	free(dir);
	return sbuf_detach(&sb, NULL);
}

/* Is path at or under dir (both resolved)? */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* Is path (resolved) under a directory the jail binds from the host: a
 * system directory (not /sys: sysfs holds no socket) or its workdir? */
static int bound(const char *path, const char *wd)
{
	struct stat st;
	char *dir;
	size_t i;
	int hit = under(path, wd);

	for (i = 0; !hit && i < ARRAY_SIZE(system_dirs); i++) {
		if (!strcmp(system_dirs[i], "/sys") || lstat(system_dirs[i], &st) ||
		    !S_ISDIR(st.st_mode) || !(dir = realpath(system_dirs[i], NULL)))
			continue;
		hit = under(path, dir);
		free(dir);
	}
	return hit;
}

/*
 * Every unix socket bound on the host (usock.h) whose file is under a
 * directory the jail binds gets /dev/null bound over it: connect() there
 * is refused (a read-only bind would not stop it). -1 after one error()
 * when the host's sockets cannot be listed (fail closed: no jail).
 */
static int push_socket_masks(struct vec *a, const char *wd)
{
	char **socks = usock_bound(), *path;
	struct stat st;
	size_t i;

	if (!socks)
		return -1;
	for (i = 0; socks[i]; i++) {
		path = resolved(socks[i]);
		if (path && bound(path, wd) && !lstat(path, &st) && S_ISSOCK(st.st_mode))
			push3(a, "--ro-bind", "/dev/null", path);
		free(path);
	}
	strv_free(socks);
	return 0;
}

char **jail_argv(const struct jail *j, const char *workdir, char *const *cmd, int info)
{
	/* --disable-userns: no nested user namespace (bubblewrap >= 0.8;
	 * it needs --unshare-user, which --unshare-all only tries) */
	static const char *const head[] = {
		JAIL_BWRAP, "--unshare-all", "--die-with-parent", "--new-session",
		"--cap-drop", "ALL", "--unshare-user", "--disable-userns",
	};
	static const char *const fixed[] = {
		"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", JAIL_HOME,
		"--tmpfs", "/run", "--tmpfs", "/var/tmp", "--symlink", "../run", "/var/run",
		"--tmpfs", "/home",
	};
	struct vec a = { NULL, 0, 0 };
	struct sbuf git = SBUF_INIT;
	char *wd = NULL, *hide = NULL, **ret = NULL;
	struct stat st;
	size_t i;

	if (!cmd || !cmd[0]) {
		error("%s: no command to run in the sandbox", workdir);
		goto out;
	}
	wd = realpath(workdir, NULL);
	if (!wd) {
		error("%s: %s", workdir, strerror(errno));
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(head); i++)
		push(&a, head[i]);
	push_system(&a);
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		push(&a, fixed[i]);
	if (j && j->hide) {
		hide = realpath(j->hide, NULL);
		if (!hide) {
			error("%s: %s", j->hide, strerror(errno));
			goto out;
		}
		/* never "/": an empty root would hide the system the code needs */
		if (strcmp(hide, "/"))
			push3(&a, "--tmpfs", hide, NULL);
	}
	push3(&a, j && j->frozen ? "--ro-bind" : "--bind", wd, wd);
	sbuf_addf(&git, "%s/.git", wd);
	if (!lstat(git.buf, &st) && S_ISDIR(st.st_mode))
		push3(&a, "--ro-bind", git.buf, git.buf);
	/* the host's sockets in what is bound above, masked */
	if (push_socket_masks(&a, wd))
		goto out;
	/* the empty runs directory read-only too: a write there is refused,
	 * not quietly kept in a throwaway tmpfs */
	if (hide && strcmp(hide, "/"))
		push3(&a, "--remount-ro", hide, NULL);
	/* the fresh root itself (its mount only, not the mounts on it):
	 * nothing can be created beside the paths above */
	push3(&a, "--remount-ro", "/", NULL);
	push3(&a, "--chdir", wd, NULL);
	if (info) {
		char n[16];
		snprintf(n, sizeof(n), "%d", JAIL_INFO_FD);
		push3(&a, "--info-fd", n, NULL);
		snprintf(n, sizeof(n), "%d", JAIL_BLOCK_FD);
		push3(&a, "--block-fd", n, NULL);
	}
	push(&a, "--");
	for (i = 0; cmd[i]; i++)
		push(&a, cmd[i]);
	ret = a.v;
	a.v = NULL;
	a.n = 0;
out:
	for (i = 0; i < a.n; i++)
		free(a.v[i]);
	free(a.v);
	free(wd);
	free(hide);
	sbuf_release(&git);
	return ret;
}

static int plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-",
			    *s))
			return 0;
	return 1;
}

char *jail_argv_text(char *const *argv)
{
	struct sbuf sb = SBUF_INIT;
	const char *p;
	size_t i;

	for (i = 0; argv && argv[i]; i++) {
		if (i)
			sbuf_adds(&sb, " ");
		if (plain(argv[i])) {
			sbuf_adds(&sb, argv[i]);
			continue;
		}
		sbuf_adds(&sb, "'");
		for (p = argv[i]; *p; p++) {
			if (*p == '\'')
				sbuf_adds(&sb, "'\\''");
			else
				sbuf_add(&sb, p, 1);
		}
		sbuf_adds(&sb, "'");
	}
	return sbuf_detach(&sb, NULL);
}

/* Run bwrap with the options of jail_argv it may lack: 0 when it ran
 * /bin/true in such a sandbox. */
static int probe_bwrap(void)
{
	char *const argv[] = { JAIL_BWRAP, "--unshare-user", "--disable-userns", "--ro-bind",
			       "/", "/", "/bin/true", NULL };
	int st, fd;
	pid_t pid = fork(), r;

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(JAIL_BWRAP, argv);
		_exit(127);
	}
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return r == pid && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int jail_check(void)
{
	if (access(JAIL_BWRAP, X_OK))
		return error("sandbox: %s: %s (install the Debian package bubblewrap)", JAIL_BWRAP,
			     strerror(errno));
	if (probe_bwrap())
		return error("sandbox: %s cannot run a sandbox with --disable-userns (bubblewrap 0.8 or"
			     " later needed, and user namespaces)", JAIL_BWRAP);
	return 0;
}

int jail_refuse_procfs(const char *name)
{
	return error("%s: procfs accounting cannot enforce its sandbox's"
		     " limits; not run", name);
}

pid_t jail_child_pid(int fd, int timeout_ms)
{
	char buf[1024];
	size_t got = 0;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	const char *k;
	ssize_t n;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int left = (int)(((int64_t)deadline - (int64_t)now_ns()) / 1000000);

		if (left <= 0) {
			error("sandbox: bwrap did not report its child within %d ms", timeout_ms);
			return -1;
		}
		if (poll(&p, 1, left) < 0 && errno != EINTR)
			break;
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		/* bwrap writes the whole object at once, closing brace last */
		if (strchr(buf, '}') || got == sizeof(buf) - 1)
			break;
	}
	buf[got] = '\0';
	k = strstr(buf, "\"child-pid\"");
	if (!k || !(k = strchr(k, ':'))) {
		error("sandbox: bwrap exited before starting the command (see its stderr)");
		return -1;
	}
	return (pid_t)strtol(k + 1, NULL, 10);
}
