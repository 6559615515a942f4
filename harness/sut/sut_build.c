/*
 * sut_build: building an implementation (sut.h sut_build): its build argv
 * run once in the implementation's directory, in its own cgroup and,
 * when jailed, in bwrap, under a wall-clock limit, with its output in the
 * build log and the log's last lines printed when it fails.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sandbox/quota.h"
#include "sut/sut.h"
#include "sut/sut_spawn.h"
#include "base/util.h"

#define TAIL_LINES 10

enum build_end { BUILD_EXITED, BUILD_STOPPED, BUILD_TIMED_OUT };

/* Wait for the build PID; when the harness is stopped or the wall-clock
 * limit passes, kill it (group and cgroup). *st: its wait status. -1
 * after error() (pid not reaped). */
static int build_wait(const struct sut_build_config *cfg, pid_t pid, struct account *acct,
		      uint64_t t0, int *st, enum build_end *end)
{
	uint64_t deadline = cfg->timeout_s > 0 ? t0 + (uint64_t)(cfg->timeout_s * 1e9) : 0;

	*end = BUILD_EXITED;
	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return error("impl %s: build: waitpid: %s", cfg->impl->name, strerror(errno));
		if (cfg->stop && *cfg->stop)
			*end = BUILD_STOPPED;
		else if (deadline && now_ns() > deadline)
			*end = BUILD_TIMED_OUT;
		if (*end != BUILD_EXITED) {
			spawn_kill_all(pid, acct);
			waitpid(pid, st, 0);
			return 0;
		}
		usleep(20000);
	}
}

/* What the build's end means: 0 built; 1 failed and cfg->quiet; -1 after
 * error() and, unless the harness stopped it, the log's last lines. */
static int build_verdict(const struct sut_build_config *cfg, const char *prog, int st,
			 enum build_end end, uint64_t t0, long off)
{
	const struct spec_impl *impl = cfg->impl;
	int failed = !WIFEXITED(st) || WEXITSTATUS(st);
	char desc[128];

	if (end == BUILD_STOPPED)
		return error("impl %s: build (%s) interrupted after %.1f s (log: %s)", impl->name,
			     prog, (now_ns() - t0) / 1e9, cfg->log_path);
	if (end == BUILD_TIMED_OUT)
		error("impl %s: build (%s) timed out after %g s (wall-clock limit); %s ends:",
		      impl->name, prog, cfg->timeout_s, cfg->log_path);
	else if (failed && cfg->quiet)
		return 1;
	else if (failed)
		error("impl %s: build (%s) failed: %s after %.1f s; %s ends:", impl->name,
		      prog, spawn_status_desc(st, desc, sizeof(desc)), (now_ns() - t0) / 1e9,
		      cfg->log_path);
	else
		return 0;
	sut_print_tail(cfg->log_path, off, TAIL_LINES);
	return -1;
}

/* Wrap the build's argv in bwrap (jail.h) with the sandbox's environment;
 * its output goes through a relay (*relay, *relay_w) so it never holds
 * the log file. */
static int build_jail(const struct sut_build_config *cfg, const char *wd, char ***argv,
		      char ***env, int log_fd, const struct account *acct, pid_t *relay,
		      int *relay_w)
{
	char **jargv = jail_argv(cfg->jail, wd, *argv, 0);
	int unused;

	if (!jargv)
		return -1;
	strv_free(*argv);
	*argv = jargv;
	strv_free(*env);
	*env = spawn_env_jail(cfg->impl, 0);
	*relay = spawn_relay(log_fd, -1, cfg->log_max_bytes, acct, relay_w, &unused);
	return *relay < 0 ? -1 : 0;
}

/* The build's own cgroup (none with procfs accounting); -1 after error(). */
static int build_account(const struct sut_build_config *cfg, struct account **acct)
{
	/* a build is not measured: its CPU weight stays the default */
	struct account_limits lim = { cfg->memory_max_bytes, cfg->pids_max, NULL, cfg->cpu_max, 0 };
	struct sbuf label = SBUF_INIT;

	*acct = NULL;
	if (cfg->backend == ACCT_PROCFS)
		return cfg->jail ? jail_refuse_procfs(cfg->impl->name) : 0;
	if (cfg->cgroup_name)
		sbuf_adds(&label, cfg->cgroup_name);
	else
		sbuf_addf(&label, "%s.build", cfg->impl->name);
	*acct = account_create(cfg->backend, label.buf, &lim, 1000);
	sbuf_release(&label);
	if (*acct && cfg->jail && account_backend(*acct) == ACCT_PROCFS)
		return jail_refuse_procfs(cfg->impl->name);
	return *acct ? 0 : -1;
}

static char **argv_copy(char *const *v)
{
	size_t n = 0, i;
	char **c;

	while (v[n])
		n++;
	c = xcalloc(n + 1, sizeof(*c));
	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

/* One command of the build: cfg->argv, else the impl's build argv. */
static int build_run(const struct sut_build_config *cfg)
{
	const struct spec_impl *impl = cfg->impl;
	const char *wd = cfg->workdir ? cfg->workdir : impl->repo;
	struct account *acct = NULL;
	struct spawn sp;
	struct sbuf label = SBUF_INIT;
	char **env = NULL, **argv = NULL;
	int fd = -1, ret = -1, st = 0, wd_fd = -1, relay_w = -1;
	enum build_end end;
	long off;
	pid_t pid = -1, wdog = -1, relay = -1;
	uint64_t t0 = now_ns();

	const struct jail *jail = cfg->jail;
	int uid = cfg->uid, gid = cfg->gid;

	fd = spawn_open_log(cfg->log_path);
	if (fd < 0)
		return -1;
	off = (long)lseek(fd, 0, SEEK_END);
	dprintf(fd, "=== harness: %s of %s in %s\n", cfg->what ? cfg->what : "build", impl->name, wd);
	if (build_account(cfg, &acct))
		goto out;
	argv = cfg->argv ? argv_copy(cfg->argv) : spec_subst_port_argv(impl->build, 0);
	if (!argv)
		goto out;
	env = spawn_env(impl, 0, uid, wd);
	memset(&sp, 0, sizeof(sp));
	sp.out_fd = sp.err_fd = fd;
	if (jail) {
		if (build_jail(cfg, wd, &argv, &env, fd, acct, &relay, &relay_w))
			goto out;
		sp.out_fd = sp.err_fd = relay_w;
	}
	if (cfg->argv_text)
		*cfg->argv_text = jail_argv_text(argv);
	sp.argv = argv;
	sp.envp = env;
	sp.cwd = wd;
	sp.acct = acct;
	sp.uid = uid;
	sp.gid = gid;
	sbuf_addf(&label, "impl %s: build", impl->name);
	sp.what = label.buf;
	pid = spawn_run(&sp);
	if (relay_w >= 0)
		close(relay_w);
	relay_w = -1;
	if (pid < 0)
		goto out;
	wdog = spawn_watchdog(pid, acct, cfg->quota_dir, &wd_fd);
	if (build_wait(cfg, pid, acct, t0, &st, &end))
		goto out;
	pid = -1;
	if (cfg->exit_code && end == BUILD_EXITED && WIFEXITED(st))
		*cfg->exit_code = WEXITSTATUS(st);
	/* the relay drains into the log before its tail is printed, and
	 * before the cgroup it is in is killed */
	spawn_relay_wait(relay, 2.0);
	relay = -1;
	/* what the build left running (a daemon, a stray compiler) goes too */
	spawn_kill_all(-1, acct);
	ret = build_verdict(cfg, argv[0], st, end, t0, off);
out:
	if (pid > 0) {
		spawn_kill_all(pid, acct);
		waitpid(pid, &st, 0);
	}
	spawn_watchdog_release(wdog, wd_fd);
	if (relay_w >= 0)
		close(relay_w);
	spawn_relay_wait(relay, 2.0);
	if (cfg->hits) {
		memset(cfg->hits, 0, sizeof(*cfg->hits));
		if (acct)
			account_limit_hits(acct, cfg->hits);
	}
	if (cfg->disk_full) {
		cfg->disk_full[0] = '\0';
		quota_full(wd, cfg->disk_full, QUOTA_FULL_LEN);
	}
	account_free(acct);
	strv_free(env);
	strv_free(argv);
	sbuf_release(&label);
	if (fd >= 0)
		close(fd);
	return ret;
}

int sut_build(const struct sut_build_config *cfg)
{
	if (cfg->exit_code)
		*cfg->exit_code = cfg->argv || cfg->impl->build ? -1 : 0;
	return cfg->argv || cfg->impl->build ? build_run(cfg) : 0;
}
