/*
 * account_cgroup1: the v1 hierarchies of a hybrid host. One owned cgroup
 * <mount>/harness/<owned name> in each of cpuacct and memory (required),
 * cpu (throttling), pids (pids.max) and cpuset (only when pinning); a
 * controller co-mounted with another ("cpu,cpuacct") shares its directory.
 * The child joins every one of them before exec.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/account_backend.h"
#include "base/util.h"

struct cg1 {
	char *cpuacct, *memory, *cpu;   /* cpu may be NULL */
};

static int cg1_counters(struct account *a, struct acct_counters *c)
{
	struct cg1 *p = a->priv;
	char buf[8192];
	uint64_t v;
	long hz = sysconf(_SC_CLK_TCK);

	if (acct_read(p->cpuacct, "cpuacct.usage", buf, sizeof(buf)) < 0 || acct_u64(buf, &v))
		return -1;
	c->cpu_s = v / 1e9;
	if (acct_read(p->cpuacct, "cpuacct.stat", buf, sizeof(buf)) >= 0) {
		if (!acct_kv(buf, "user", &v))
			c->user_s = (double)v / hz;
		if (!acct_kv(buf, "system", &v))
			c->system_s = (double)v / hz;
	}
	if (p->cpu && acct_read(p->cpu, "cpu.stat", buf, sizeof(buf)) >= 0 &&
	    !acct_kv(buf, "nr_throttled", &c->nr_throttled) &&
	    !acct_kv(buf, "throttled_time", &v)) {
		c->throttled_usec = v / 1000;
		c->has_throttle = 1;
	}
	if (acct_read(p->memory, "memory.oom_control", buf, sizeof(buf)) >= 0 &&
	    !acct_kv(buf, "oom_kill", &c->oom_kill)) {
		c->oom = c->oom_kill;
		c->has_oom = 1;
	}
	if (acct_read(p->memory, "memory.stat", buf, sizeof(buf)) >= 0 &&
	    !acct_kv(buf, "total_pgmajfault", &c->pgmajfault))
		c->has_majfault = 1;
	return 0;
}

static int cg1_sample(struct account *a, uint64_t *anon, double *cpu_s)
{
	struct cg1 *p = a->priv;
	char buf[8192];
	uint64_t v;

	if (acct_read(p->memory, "memory.stat", buf, sizeof(buf)) < 0 ||
	    acct_kv(buf, "total_rss", anon))
		return -1;
	if (acct_read(p->cpuacct, "cpuacct.usage", buf, sizeof(buf)) < 0 || acct_u64(buf, &v))
		return -1;
	*cpu_s = v / 1e9;
	return 0;
}

static enum acct_peak cg1_peak_begin(struct account *a)
{
	struct cg1 *p = a->priv;
	char buf[64];

	if (!acct_write(p->memory, "memory.max_usage_in_bytes", "0"))
		return ACCT_PEAK_WINDOW;
	if (acct_read(p->memory, "memory.max_usage_in_bytes", buf, sizeof(buf)) >= 0)
		return ACCT_PEAK_LIFETIME;
	return ACCT_PEAK_NONE;
}

static int cg1_peak_read(struct account *a, uint64_t *peak)
{
	struct cg1 *p = a->priv;
	char buf[64];

	if (acct_read(p->memory, "memory.max_usage_in_bytes", buf, sizeof(buf)) < 0)
		return -1;
	return acct_u64(buf, peak);
}

static int cg1_nprocs(struct account *a)
{
	return acct_count_procs(a->procs_path);
}

static int cg1_kill_all(struct account *a, double timeout_s)
{
	return acct_kill_procs(a->procs_path, timeout_s);
}

static void cg1_release(struct account *a)
{
	struct cg1 *p = a->priv;

	if (!p)
		return;
	free(p->cpuacct);
	free(p->memory);
	free(p->cpu);
	free(p);
}

static int cg1_signal_all(struct account *a, int sig)
{
	return acct_signal_procs(a->procs_path, sig);
}

static const struct account_ops cg1_ops = {
	.backend = ACCT_CGROUP1,
	.counters = cg1_counters,
	.sample = cg1_sample,
	.peak_begin = cg1_peak_begin,
	.peak_read = cg1_peak_read,
	.nprocs = cg1_nprocs,
	.kill_all = cg1_kill_all,
	.signal_all = cg1_signal_all,
	.release = cg1_release,
};

static struct account *cg1_wrap(const char *cpuacct, const char *memory, const char *cpu,
				int sample_ms)
{
	struct account *a = acct_new(&cg1_ops, sample_ms);
	struct cg1 *p = xcalloc(1, sizeof(*p));
	struct sbuf sb = SBUF_INIT;

	p->cpuacct = xstrdup(cpuacct);
	p->memory = xstrdup(memory);
	p->cpu = cpu ? xstrdup(cpu) : NULL;
	a->priv = p;
	sbuf_addf(&sb, "%s/cgroup.procs", cpuacct);
	a->procs_path = sbuf_detach(&sb, NULL);
	return a;
}

struct account *acct_cgroup1_open(const char *cpuacct, const char *memory, const char *cpu,
				  int sample_ms)
{
	return cg1_wrap(cpuacct, memory, cpu, sample_ms);
}

int acct_cgroup1_usable(void)
{
	char *c = acct_find_mount("cgroup", "cpuacct");
	char *m = acct_find_mount("cgroup", "memory");
	int ok = c && m && !access(c, W_OK) && !access(m, W_OK);

	free(c);
	free(m);
	return ok;
}

/* The v1 cpuset parent needs cpus and mems before any child can have them. */
static int cpuset_inherit(const char *mnt, const char *dir)
{
	char buf[1024];
	const char *files[] = { "cpuset.cpus", "cpuset.mems" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (acct_read(dir, files[i], buf, sizeof(buf)) > 1)
			continue;
		if (acct_read(mnt, files[i], buf, sizeof(buf)) < 0 || acct_write(dir, files[i], buf))
			return -1;
	}
	return 0;
}

/* Create (or find already made, when co-mounted) our cgroup in the hierarchy
 * of controller ctl; NULL (quietly) when that controller is not mounted. */
static char *make_in(struct account *a, const char *ctl, const char *name, int *err)
{
	char *mnt = acct_find_mount("cgroup", ctl), *parent = NULL, *dir = NULL;
	size_t i;

	if (!mnt)
		return NULL;
	parent = acct_mkdir(mnt, "harness");
	if (!parent) {
		*err = 1;
		goto out;
	}
	if (!strcmp(ctl, "cpuset") && cpuset_inherit(mnt, parent)) {
		*err = error("cannot set up the cpuset of %s", parent);
		goto out;
	}
	dir = acct_mkdir(parent, name);
	if (!dir) {
		*err = 1;
		goto out;
	}
	for (i = 0; i < a->ndirs; i++)
		if (!strcmp(a->dirs[i], dir))
			goto out;      /* co-mounted: already joined */
	if (!strcmp(ctl, "cpuset") && cpuset_inherit(parent, dir)) {
		*err = error("cannot set up the cpuset of %s", dir);
		goto out;
	}
	if (acct_add_dir(a, dir, 1))
		*err = 1;
out:
	free(mnt);
	free(parent);
	return dir;
}

struct account *acct_cgroup1_create(const char *label, const struct account_limits *lim,
				    int sample_ms)
{
	char *name = acct_owned_name(label);
	char *cpuacct = NULL, *memory = NULL, *cpu = NULL, *pids = NULL, *cpuset = NULL;
	char *freezer = NULL;
	struct account *a = acct_new(&cg1_ops, sample_ms);
	char num[32];
	int err = 0, e;

	a->owned = 1;
	cpuacct = make_in(a, "cpuacct", name, &err);
	memory = make_in(a, "memory", name, &err);
	if (!err && (!cpuacct || !memory)) {
		err = error("accounting backend cgroup1: the %s controller is not mounted",
			    cpuacct ? "memory" : "cpuacct");
	}
	if (!err)
		cpu = make_in(a, "cpu", name, &err);
	if (!err && lim->pids_max)
		pids = make_in(a, "pids", name, &err);
	if (!err && lim->cpus)
		cpuset = make_in(a, "cpuset", name, &err);
	/* the freezer, where mounted (account_freeze.c): without it the
	 * runner measures an idle arm instead of freezing it */
	if (!err)
		freezer = make_in(a, "freezer", name, &err);
	if (err)
		goto fail;
	if (lim->memory_max_bytes) {
		snprintf(num, sizeof(num), "%" PRIu64, lim->memory_max_bytes);
		if ((e = acct_write(memory, "memory.limit_in_bytes", num))) {
			error("cannot set %s/memory.limit_in_bytes: %s", memory, strerror(-e));
			goto fail;
		}
		/* no swapping past the limit (absent without swap accounting) */
		acct_write(memory, "memory.memsw.limit_in_bytes", num);
	}
	if (lim->pids_max) {
		if (!pids) {
			error("pids limit requested but the v1 pids controller is not mounted");
			goto fail;
		}
		snprintf(num, sizeof(num), "%" PRIu64, lim->pids_max);
		if ((e = acct_write(pids, "pids.max", num))) {
			error("cannot set %s/pids.max: %s", pids, strerror(-e));
			goto fail;
		}
	}
	if (lim->cpu_max > 0) {
		if (!cpu) {
			error("cpu limit requested but the v1 cpu controller is not mounted");
			goto fail;
		}
		snprintf(num, sizeof(num), "%.0f", lim->cpu_max * 100000.0);
		if (acct_write(cpu, "cpu.cfs_period_us", "100000") ||
		    (e = acct_write(cpu, "cpu.cfs_quota_us", num))) {
			error("cannot set %s/cpu.cfs_quota_us to %s", cpu, num);
			goto fail;
		}
	}
	if (cpuset && !acct_write(cpuset, "cpuset.cpus", lim->cpus))
		a->has_cpuset = 1;
	if (lim->cpu_weight_raise)
		acct_raise_cpu_weight(a, "cgroup1", cpu, "cpu.shares");
	{
		struct account *w = cg1_wrap(cpuacct, memory, cpu, sample_ms);
		/* move the wrap's backend state into a (which owns the dirs) */
		a->priv = w->priv;
		a->procs_path = w->procs_path;
		w->priv = NULL;
		w->procs_path = NULL;
		account_free(w);
	}
	if (freezer) {
		struct sbuf sb = SBUF_INIT;

		sbuf_addf(&sb, "%s/freezer.state", freezer);
		a->freeze_path = sbuf_detach(&sb, NULL);
		a->freeze_v1 = 1;
	}
	goto out;
fail:
	account_free(a);
	a = NULL;
out:
	free(name);
	free(cpuacct);
	free(memory);
	free(cpu);
	free(pids);
	free(cpuset);
	free(freezer);
	return a;
}

int acct_cgroup1_reap(void)
{
	/* the freezer first: a frozen v1 task dies of SIGKILL only once
	 * thawed (acct_reap_parent thaws before it kills) */
	const char *ctls[] = { "freezer", "cpuacct", "memory", "cpu", "pids", "cpuset" };
	char *mnt, *seen[ARRAY_SIZE(ctls)];
	struct sbuf sb = SBUF_INIT;
	size_t i, j, nseen = 0;
	int n = 0, dup;

	for (i = 0; i < ARRAY_SIZE(ctls); i++) {
		mnt = acct_find_mount("cgroup", ctls[i]);
		if (!mnt)
			continue;
		for (dup = 0, j = 0; j < nseen; j++)
			dup |= !strcmp(seen[j], mnt);
		if (dup) {
			free(mnt);
			continue;
		}
		seen[nseen++] = mnt;
		sbuf_reset(&sb);
		sbuf_addf(&sb, "%s/harness", mnt);
		/* count each leftover once (in cpuacct), remove it everywhere */
		if (!strcmp(ctls[i], "cpuacct"))
			n += acct_reap_parent(sb.buf, NULL, "cgroup1");
		else
			acct_reap_parent(sb.buf, NULL, NULL);
	}
	for (j = 0; j < nseen; j++)
		free(seen[j]);
	sbuf_release(&sb);
	return n;
}
