/*
 * sut_spawn: fork/execve for the sut module, and the watchdog.
 *
 * Between fork and execve the child of a multi-threaded harness may only
 * make async-signal-safe calls: everything it needs (resolved path, env,
 * open descriptors, cgroup.procs descriptors) is prepared before fork, and
 * a failing step is reported as {step, errno} through a close-on-exec pipe
 * that reads end-of-file when execve succeeded.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sut/sut_spawn.h"
#include "base/util.h"

/* ------------------------------------------------------------ env, argv */

static void env_set(char ***env, size_t *n, size_t *alloc, const char *key, const char *val)
{
	size_t klen = strlen(key), i;
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s=%s", key, val);
	for (i = 0; i < *n; i++) {
		if (!strncmp((*env)[i], key, klen) && (*env)[i][klen] == '=') {
			free((*env)[i]);
			(*env)[i] = sbuf_detach(&sb, NULL);
			return;
		}
	}
	XGROW(*env, *alloc, *n + 2);
	(*env)[(*n)++] = sbuf_detach(&sb, NULL);
	(*env)[*n] = NULL;
}

char **spawn_env(const struct spec_impl *impl, int port, int uid, const char *workdir)
{
	static const char *inherit[] = { "PATH", "HOME", "USER", "LOGNAME", "LANG",
					 "LC_ALL", "TZ", "TMPDIR" };
	char **env = NULL;
	size_t n = 0, alloc = 0, i;
	const char *v;

	XGROW(env, alloc, 1);
	env[0] = NULL;
	for (i = 0; i < ARRAY_SIZE(inherit); i++) {
		if (uid >= 0 && !strcmp(inherit[i], "TMPDIR"))
			continue;
		v = getenv(inherit[i]);
		if (v)
			env_set(&env, &n, &alloc, inherit[i], v);
	}
	if (!getenv("PATH"))
		env_set(&env, &n, &alloc, "PATH",
			"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	if (uid >= 0) {
		struct passwd *pw = getpwuid((uid_t)uid);
		struct stat st;
		if (pw) {
			env_set(&env, &n, &alloc, "USER", pw->pw_name);
			env_set(&env, &n, &alloc, "LOGNAME", pw->pw_name);
		}
		env_set(&env, &n, &alloc, "HOME",
			pw && pw->pw_dir && !stat(pw->pw_dir, &st) ? pw->pw_dir : workdir);
	}
	for (i = 0; impl && i < impl->nenv; i++) {
		char *val = spec_subst_port(impl->env[i].value, port);
		env_set(&env, &n, &alloc, impl->env[i].key, val);
		free(val);
	}
	return env;
}

char **spawn_env_jail(const struct spec_impl *impl, int port)
{
	char **env = NULL;
	size_t n = 0, alloc = 0, i;

	XGROW(env, alloc, 1);
	env[0] = NULL;
	env_set(&env, &n, &alloc, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	env_set(&env, &n, &alloc, "HOME", JAIL_HOME);
	env_set(&env, &n, &alloc, "USER", "sandbox");
	env_set(&env, &n, &alloc, "LOGNAME", "sandbox");
	env_set(&env, &n, &alloc, "LANG", "C.UTF-8");
	for (i = 0; impl && i < impl->nenv; i++) {
		char *val = spec_subst_port(impl->env[i].value, port);
		env_set(&env, &n, &alloc, impl->env[i].key, val);
		free(val);
	}
	return env;
}

/* argv[0] as execve will need it: a path with '/' is taken relative to the
 * working directory; a bare name is searched in the child's PATH. */
static char *resolve(const char *arg0, const char *cwd, char *const *envp)
{
	struct sbuf sb = SBUF_INIT;
	const char *path = NULL, *p, *colon;
	size_t i;

	if (strchr(arg0, '/')) {
		if (arg0[0] == '/' || !cwd)
			return xstrdup(arg0);
		sbuf_addf(&sb, "%s/%s", cwd, arg0);
		return sbuf_detach(&sb, NULL);
	}
	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "PATH=", 5))
			path = envp[i] + 5;
	for (p = path; p && *p; p = colon ? colon + 1 : NULL) {
		colon = strchr(p, ':');
		sbuf_reset(&sb);
		if (colon == p || !*p)
			sbuf_adds(&sb, ".");
		else
			sbuf_add(&sb, p, colon ? (size_t)(colon - p) : strlen(p));
		sbuf_addf(&sb, "/%s", arg0);
		if (sb.buf[0] != '/' && cwd) {
			char *rel = sbuf_detach(&sb, NULL);
			sbuf_addf(&sb, "%s/%s", cwd, rel);
			free(rel);
		}
		if (!access(sb.buf, X_OK))
			return sbuf_detach(&sb, NULL);
		if (!colon)
			break;
	}
	sbuf_release(&sb);
	return NULL;
}

/* ------------------------------------------------------------ spawn */

enum step { ST_PGID = 1, ST_CGROUP, ST_CPUS, ST_CHDIR, ST_STDIO, ST_SETGID, ST_SETUID, ST_EXEC };

static const char *step_name(int s)
{
	switch (s) {
	case ST_PGID: return "setpgid";
	case ST_CGROUP: return "joining its cgroup";
	case ST_CPUS: return "sched_setaffinity";
	case ST_CHDIR: return "chdir to its working directory";
	case ST_STDIO: return "redirecting stdout/stderr";
	case ST_SETGID: return "setgid/setgroups";
	case ST_SETUID: return "setuid";
	case ST_EXEC: return "execve";
	}
	return "?";
}

static _Noreturn void child_fail(int fd, int step)
{
	int msg[2] = { step, errno };

	if (write(fd, msg, sizeof(msg)) < 0)
		_exit(127);
	_exit(127);
}

/* Mark every descriptor >= 3 close-on-exec (the harness's database,
 * sockets, pipes must not reach untrusted code). */
static void cloexec_from(int lo)
{
	int fd;

#ifdef SYS_close_range
	if (!syscall(SYS_close_range, (unsigned)lo, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */))
		return;
#endif
	for (fd = lo; fd < 4096; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static _Noreturn void child(const struct spawn *sp, const char *path, int errfd, pid_t parent,
			    int devnull)
{
	sigset_t all;
	int sig;

	if (setpgid(0, 0))
		child_fail(errfd, ST_PGID);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);     /* the harness died before prctl */
	if (sp->acct && account_child_place(sp->acct)) {
		errno = -account_child_place(sp->acct);
		child_fail(errfd, ST_CGROUP);
	}
	if (sp->cpus && sched_setaffinity(0, sizeof(*sp->cpus), sp->cpus))
		child_fail(errfd, ST_CPUS);
	if (sp->cwd && chdir(sp->cwd))
		child_fail(errfd, ST_CHDIR);
	if (dup2(devnull, 0) < 0 || dup2(sp->out_fd, 1) < 0 || dup2(sp->err_fd, 2) < 0)
		child_fail(errfd, ST_STDIO);
	if (sp->keep_fd > 0) {
		/* descriptors 3 and 4 are the kept ones: move everything that
		 * could sit there out of the way first (above 10) */
		int k1 = sp->keep_fd, k2 = sp->keep_fd2;

		if (errfd <= 4 && (errfd = fcntl(errfd, F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
		if (k1 <= 4 && (k1 = fcntl(k1, F_DUPFD_CLOEXEC, 10)) < 0)
			child_fail(errfd, ST_STDIO);
		if (k2 > 0 && k2 <= 4 && (k2 = fcntl(k2, F_DUPFD_CLOEXEC, 10)) < 0)
			child_fail(errfd, ST_STDIO);
		if (dup2(k1, 3) < 0 || (k2 > 0 && dup2(k2, 4) < 0))
			child_fail(errfd, ST_STDIO);
		cloexec_from(k2 > 0 ? 5 : 4);
	} else {
		cloexec_from(3);
	}
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (sp->gid >= 0) {
		gid_t g = (gid_t)sp->gid;
		if (setgroups(1, &g) || setgid(g))
			child_fail(errfd, ST_SETGID);
	}
	if (sp->uid >= 0) {
		if (setuid((uid_t)sp->uid))
			child_fail(errfd, ST_SETUID);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	}
	execve(path, sp->argv, sp->envp);
	child_fail(errfd, ST_EXEC);
}

pid_t spawn_run(const struct spawn *sp)
{
	char *path = NULL;
	int p[2] = { -1, -1 }, msg[2], devnull = -1, st;
	pid_t pid = -1, parent = getpid();
	ssize_t n;

	if (!sp->argv || !sp->argv[0] || !*sp->argv[0]) {
		error("%s: no command (empty argv)", sp->what);
		return -1;
	}
	path = resolve(sp->argv[0], sp->cwd, sp->envp);
	if (!path) {
		error("%s: '%s' not found in PATH of its environment", sp->what, sp->argv[0]);
		return -1;
	}
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(p, O_CLOEXEC)) {
		error("%s: %s", sp->what, strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error("%s: fork: %s", sp->what, strerror(errno));
		goto out;
	}
	if (!pid)
		child(sp, path, p[1], parent, devnull);
	/* the parent sets the group too, so no signal can race the child's */
	setpgid(pid, pid);
	close(p[1]);
	p[1] = -1;
	do
		n = read(p[0], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(msg)) {
		if (msg[0] == ST_EXEC)
			error("%s: cannot execute '%s' (%s): %s", sp->what, sp->argv[0], path,
			      strerror(msg[1]));
		else
			error("%s: %s failed before exec of '%s': %s", sp->what,
			      step_name(msg[0]), sp->argv[0], strerror(msg[1]));
		waitpid(pid, &st, 0);
		pid = -1;
	}
out:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (devnull >= 0)
		close(devnull);
	free(path);
	return pid;
}

/* ------------------------------------------------------------ relay */

/* One log file of the relay: what it holds, and its cap (0: none). */
struct relay_file {
	int fd;
	uint64_t size, cap;
	int cut;                        /* the cap reached, the marker written */
};

/* Append what fits under the cap; past it, the marker once, then
 * nothing (the pipe is still read: the writer never blocks on it). A
 * full disk: the bytes are lost, the draining goes on. */
static void relay_write(struct relay_file *f, const char *buf, size_t n, const char *marker)
{
	ssize_t w;

	if (f->cut)
		return;
	if (f->cap && n > (f->size < f->cap ? f->cap - f->size : 0)) {
		n = f->size < f->cap ? (size_t)(f->cap - f->size) : 0;
		f->cut = 1;
	}
	if (n && (w = write(f->fd, buf, n)) > 0)
		f->size += (uint64_t)w;
	if (f->cut && write(f->fd, marker, strlen(marker)) < 0)
		(void)0;
}

/* The relay's loop: no harness code after fork, only read/write/poll
 * (async-signal-safe: the harness has threads). */
static _Noreturn void relay(int in0, int in1, int f0, int f1, uint64_t cap, const char *marker)
{
	struct pollfd p[2] = { { in0, POLLIN, 0 }, { in1, POLLIN, 0 } };
	struct relay_file file[2] = { { f0, 0, cap, 0 }, { f1, 0, cap, 0 } };
	static char buf[65536];
	int open_n = in1 >= 0 ? 2 : 1, i;
	struct stat st;
	ssize_t n;

	/* a ^C to the harness's group must not lose the last lines */
	ignore_stop_signals();
	for (i = 0; i < open_n; i++)
		if (!fstat(file[i].fd, &st))
			file[i].size = (uint64_t)st.st_size;
	while (open_n > 0) {
		if (poll(p, in1 >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (i = 0; i < (in1 >= 0 ? 2 : 1); i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_n--;
				continue;
			}
			relay_write(&file[i], buf, (size_t)n, marker);
		}
	}
	_exit(0);
}

pid_t spawn_relay(int out_file, int err_file, uint64_t cap, const struct account *acct,
		  int *out_w, int *err_w)
{
	int a[2] = { -1, -1 }, b[2] = { -1, -1 };
	char marker[160];
	pid_t pid;

	*out_w = *err_w = -1;
	snprintf(marker, sizeof(marker),
		 "\n=== harness: log cut at %" PRIu64 " MiB (sandbox.log_mb); the rest of this "
		 "output was read and discarded\n", cap >> 20);
	if (pipe2(a, O_CLOEXEC) || (err_file >= 0 && pipe2(b, O_CLOEXEC))) {
		error("log relay: pipe: %s", strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		error("log relay: fork: %s", strerror(errno));
		goto fail;
	}
	if (!pid) {
		/* the write ends close on exec only: close them here, or the
		 * relay would never see end-of-file */
		int fd;

		/* its CPU is its arm's: in the arm's cgroup (a failure to
		 * join leaves it the harness's, as before) */
		if (acct)
			account_child_place(acct);
		/* keep only the read ends and the files: a write end of another
		 * sandbox's pipe held here would keep its relay from ever
		 * seeing end-of-file (the cgroup's descriptors are close-on-
		 * exec only, and no longer needed) */
		for (fd = 3; fd < 4096; fd++)
			if (fd != a[0] && fd != b[0] && fd != out_file && fd != err_file)
				close(fd);
		relay(a[0], b[0], out_file, err_file, cap, marker);
	}
	close(a[0]);
	if (b[0] >= 0)
		close(b[0]);
	*out_w = a[1];
	*err_w = b[1];
	return pid;
fail:
	if (a[0] >= 0) {
		close(a[0]);
		close(a[1]);
	}
	if (b[0] >= 0) {
		close(b[0]);
		close(b[1]);
	}
	return -1;
}

void spawn_relay_wait(pid_t relay_pid, double timeout_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	int st;
	pid_t r;

	if (relay_pid <= 0)
		return;
	while ((r = waitpid(relay_pid, &st, WNOHANG)) == 0 && now_ns() < deadline)
		usleep(2000);
	if (r == 0) {
		kill(relay_pid, SIGKILL);
		waitpid(relay_pid, &st, 0);
	}
}

/* ------------------------------------------------------------ watchdog */

static void wd_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Kill every pid listed in a cgroup.procs file; 1 while any was listed. */
static int wd_kill_listed(const char *procs)
{
	static char buf[65536];
	ssize_t n, got = 0;
	int fd = open(procs, O_RDONLY | O_CLOEXEC), any = 0;
	long v = 0;
	int in = 0;

	if (fd < 0)
		return 0;
	while (got < (ssize_t)sizeof(buf) && (n = read(fd, buf + got, sizeof(buf) - got)) > 0)
		got += n;
	close(fd);
	for (n = 0; n <= got; n++) {
		if (n < got && buf[n] >= '0' && buf[n] <= '9') {
			v = v * 10 + (buf[n] - '0');
			in = 1;
		} else if (in) {
			kill((pid_t)v, SIGKILL);
			any = 1;
			v = 0;
			in = 0;
		}
	}
	return any;
}

/* Write text to the file at path (no error: the watchdog has no one to
 * tell). */
static void wd_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		(void)0;
	close(fd);
}

static _Noreturn void watchdog(int rd, pid_t pgid, const char *procs, const char *killf,
			       const char *thawf, const char *thaw,
			       const char *const *dirs, size_t ndirs, const char *umount_dir)
{
	int i;
	size_t d;

	if (watch_owner(rd) == 'q')
		_exit(0);
	/* the harness is gone: nothing of the implementation may outlive it;
	 * an arm frozen while another was measured is thawed first (a frozen
	 * v1 task does not die of SIGKILL) */
	if (thawf)
		wd_write(thawf, thaw);
	kill(-pgid, SIGKILL);
	if (killf)
		wd_write(killf, "1");
	for (i = 0; procs && i < 400 && wd_kill_listed(procs); i++)
		wd_sleep_ms(5);
	for (d = 0; d < ndirs; d++)
		for (i = 0; i < 100 && rmdir(dirs[d]) && errno == EBUSY; i++)
			wd_sleep_ms(10);
	/* the arm's disk quota: left as an interrupted run leaves it (the
	 * image kept, unmounted; resume mounts it again), not mounted with
	 * no one to unmount it (EINVAL: not mounted, another watchdog of
	 * the arm was first) */
	if (umount_dir)
		umount2(umount_dir, MNT_DETACH);
	_exit(0);
}

pid_t spawn_watchdog(pid_t pgid, const struct account *acct, const char *umount_dir, int *fd)
{
	int p[2];
	pid_t pid;
	size_t ndirs = 0;
	const char *const *dirs = acct ? account_dirs(acct, &ndirs) : NULL;
	const char *procs = acct ? account_procs_path(acct) : NULL;
	const char *killf = acct ? account_kill_path(acct) : NULL;
	const char *thaw = NULL;
	const char *thawf = acct ? account_thaw_path(acct, &thaw) : NULL;

	*fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid)
		watchdog(p[0], pgid, procs, killf, thawf, thaw, dirs, ndirs, umount_dir);
	close(p[0]);
	*fd = p[1];
	return pid;
}

void spawn_watchdog_release(pid_t wd, int fd)
{
	int st;

	if (fd >= 0) {
		if (write(fd, "q", 1) < 0)
			(void)0;
		close(fd);
	}
	if (wd > 0)
		waitpid(wd, &st, 0);
}

int spawn_open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		error("cannot open log %s: %s", path, strerror(errno));
	return fd;
}

const char *spawn_status_desc(int st, char *buf, size_t n)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "wait status %#x", st);
	return buf;
}

void spawn_kill_all(pid_t pgid, struct account *acct)
{
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	if (acct && account_kill_all(acct, 2.0))
		warning("processes still alive in %s's cgroup after SIGKILL",
			account_backend_name(account_backend(acct)));
}
