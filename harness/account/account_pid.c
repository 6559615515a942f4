/*
 * account_pid: accounting over the cgroup another manager made, found
 * from a process in it (a container's main process: its engine made the
 * cgroup, account.h account_open_pid). The same counters, samples,
 * freezer and limit hits as the harness's own cgroups; nothing is
 * created, and nothing is removed at account_free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/account_backend.h"
#include "base/util.h"

/* 1 when the comma-separated controller list [p, end) names ctl. */
static int names_ctl(const char *p, const char *end, const char *ctl)
{
	size_t want = strlen(ctl);

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((comma ? comma : end) - p);

		if (n == want && !strncmp(p, ctl, n))
			return 1;
		p += n + 1;
	}
	return 0;
}

/* The path of a process's cgroup from its /proc/PID/cgroup text: in the
 * v1 hierarchy holding controller ctl ("cpuacct"; the list may be
 * "cpu,cpuacct"), or, ctl NULL, in the v2 hierarchy ("0::"). malloc'd,
 * NULL when not there. */
static char *cg_path(const char *text, const char *ctl)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n'), *c1, *c2;

		if (!end)
			end = line + strlen(line);
		c1 = memchr(line, ':', (size_t)(end - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2 && (ctl ? names_ctl(c1 + 1, c2, ctl) : !strncmp(line, "0::", 3)))
			return xstrndup(c2 + 1, (size_t)(end - c2 - 1));
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* <mount of ctl>/<pid's path there>, or NULL. */
static char *cg_dir(const char *text, const char *ctl)
{
	char *rel = cg_path(text, ctl), *mnt = NULL;
	struct sbuf sb = SBUF_INIT;

	if (!rel)
		return NULL;
	mnt = ctl ? acct_find_mount("cgroup", ctl) : acct_find_mount("cgroup2", NULL);
	if (mnt)
		sbuf_addf(&sb, "%s%s", mnt, rel);
	free(rel);
	free(mnt);
	return sb.len ? sbuf_detach(&sb, NULL) : NULL;
}

static struct account *open_v1(const char *text, int sample_ms)
{
	char *cpuacct = cg_dir(text, "cpuacct"), *memory = cg_dir(text, "memory");
	char *cpu = cg_dir(text, "cpu"), *pids = cg_dir(text, "pids");
	char *freezer = cg_dir(text, "freezer");
	struct account *a = NULL;
	struct sbuf sb = SBUF_INIT;

	if (!cpuacct || !memory) {
		error("account: the process has no cgroup in the v1 %s hierarchy",
		      cpuacct ? "memory" : "cpuacct");
		goto out;
	}
	a = acct_cgroup1_open(cpuacct, memory, cpu, sample_ms);
	if (pids)
		acct_add_dir(a, pids, 0);       /* pids.events: forks refused */
	if (freezer) {
		sbuf_addf(&sb, "%s/freezer.state", freezer);
		a->freeze_path = sbuf_detach(&sb, NULL);
		a->freeze_v1 = 1;
	}
out:
	free(cpuacct);
	free(memory);
	free(cpu);
	free(pids);
	free(freezer);
	return a;
}

static struct account *open_v2(const char *text, int sample_ms)
{
	char *dir = cg_dir(text, NULL);
	struct account *a;
	struct sbuf sb = SBUF_INIT;

	if (!dir) {
		error("account: the process has no cgroup in the v2 hierarchy");
		return NULL;
	}
	a = acct_cgroup2_open(dir, sample_ms);
	if (!a->freeze_path) {
		sbuf_addf(&sb, "%s/cgroup.freeze", dir);
		a->freeze_path = sbuf_detach(&sb, NULL);
	}
	free(dir);
	return a;
}

struct account *account_open_pid(enum acct_backend backend, pid_t pid, int sample_ms)
{
	struct sbuf path = SBUF_INIT, text = SBUF_INIT;
	struct account *a = NULL;

	if (backend == ACCT_AUTO)
		backend = account_detect();
	if (backend == ACCT_PROCFS) {
		a = acct_procfs_create(sample_ms);
		account_attach(a, pid);
		return a;
	}
	sbuf_addf(&path, "/proc/%ld/cgroup", (long)pid);
	if (read_file(path.buf, &text, 65536))
		goto out;
	a = backend == ACCT_CGROUP2 ? open_v2(text.buf, sample_ms) : open_v1(text.buf, sample_ms);
	if (a) {
		account_attach(a, pid);
		a->keep_last = 1;       /* the engine removes it when it exits */
	}
out:
	sbuf_release(&path);
	sbuf_release(&text);
	return a;
}
