/*
 * account_cgroup2: the unified hierarchy. Layout: <root>/harness/<owned
 * name>, with cpu, memory and pids (and cpuset when pinning) enabled in
 * the root's and harness/'s cgroup.subtree_control (neither holds
 * processes, so the "no internal processes" rule is kept).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/account_backend.h"
#include "base/testhook.h"
#include "base/util.h"

/*
 * The v2 hierarchy's mount point. The test hook HARNESS_TEST_CGROUP2_ROOT
 * overrides it (testhook.h): the unit tests point it at a fake directory
 * (files with known contents) to check creation and limits on hosts
 * without a usable v2 hierarchy.
 */
static char *cg2_root(void)
{
	const char *o = testhooks()->cgroup2_root;

	if (o)
		return xstrdup(o);
	return acct_find_mount("cgroup2", NULL);
}

struct cg2 {
	int peak_fd;                    /* memory.peak, open during a window */
};

static const char *cg2_dir(struct account *a)
{
	return a->dirs[0];
}

static int cg2_counters(struct account *a, struct acct_counters *c)
{
	char buf[4096];
	uint64_t v;

	if (acct_read(cg2_dir(a), "cpu.stat", buf, sizeof(buf)) < 0)
		return -1;
	if (acct_kv(buf, "usage_usec", &v))
		return -1;
	c->cpu_s = v / 1e6;
	if (!acct_kv(buf, "user_usec", &v))
		c->user_s = v / 1e6;
	if (!acct_kv(buf, "system_usec", &v))
		c->system_s = v / 1e6;
	/* nr_throttled appears only when the cpu controller is enabled */
	if (!acct_kv(buf, "nr_throttled", &c->nr_throttled) &&
	    !acct_kv(buf, "throttled_usec", &c->throttled_usec))
		c->has_throttle = 1;
	if (acct_read(cg2_dir(a), "memory.events", buf, sizeof(buf)) >= 0 &&
	    !acct_kv(buf, "oom", &c->oom) && !acct_kv(buf, "oom_kill", &c->oom_kill))
		c->has_oom = 1;
	if (acct_read(cg2_dir(a), "memory.stat", buf, sizeof(buf)) >= 0 &&
	    !acct_kv(buf, "pgmajfault", &c->pgmajfault))
		c->has_majfault = 1;
	return 0;
}

static int cg2_sample(struct account *a, uint64_t *anon, double *cpu_s)
{
	char buf[8192];
	uint64_t v;

	if (acct_read(cg2_dir(a), "memory.stat", buf, sizeof(buf)) < 0 ||
	    acct_kv(buf, "anon", anon))
		return -1;
	if (acct_read(cg2_dir(a), "cpu.stat", buf, sizeof(buf)) < 0 ||
	    acct_kv(buf, "usage_usec", &v))
		return -1;
	*cpu_s = v / 1e6;
	return 0;
}

/*
 * Since Linux 6.12 writing to memory.peak resets the peak as seen through
 * that open file; older kernels refuse the write and the value read is the
 * cgroup's lifetime peak.
 */
static enum acct_peak cg2_peak_begin(struct account *a)
{
	struct cg2 *p = a->priv;
	char path[4096];

	if (p->peak_fd >= 0)
		close(p->peak_fd);
	snprintf(path, sizeof(path), "%s/memory.peak", cg2_dir(a));
	p->peak_fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->peak_fd < 0) {
		p->peak_fd = open(path, O_RDONLY | O_CLOEXEC);
		return p->peak_fd < 0 ? ACCT_PEAK_NONE : ACCT_PEAK_LIFETIME;
	}
	if (write(p->peak_fd, "reset\n", 6) == 6)
		return ACCT_PEAK_WINDOW;
	return ACCT_PEAK_LIFETIME;
}

static int cg2_peak_read(struct account *a, uint64_t *peak)
{
	struct cg2 *p = a->priv;
	char buf[64];
	ssize_t n;

	if (p->peak_fd < 0)
		return -1;
	n = pread(p->peak_fd, buf, sizeof(buf) - 1, 0);
	close(p->peak_fd);
	p->peak_fd = -1;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return acct_u64(buf, peak);
}

static int cg2_nprocs(struct account *a)
{
	return acct_count_procs(a->procs_path);
}

static int cg2_kill_all(struct account *a, double timeout_s)
{
	/* cgroup.kill (5.14+) kills the whole subtree atomically, forks included */
	acct_write(cg2_dir(a), "cgroup.kill", "1");
	return acct_kill_procs(a->procs_path, timeout_s);
}

static void cg2_release(struct account *a)
{
	struct cg2 *p = a->priv;

	if (p && p->peak_fd >= 0)
		close(p->peak_fd);
	free(p);
}

static int cg2_signal_all(struct account *a, int sig)
{
	return acct_signal_procs(a->procs_path, sig);
}

static const struct account_ops cg2_ops = {
	.backend = ACCT_CGROUP2,
	.counters = cg2_counters,
	.sample = cg2_sample,
	.peak_begin = cg2_peak_begin,
	.peak_read = cg2_peak_read,
	.nprocs = cg2_nprocs,
	.kill_all = cg2_kill_all,
	.signal_all = cg2_signal_all,
	.release = cg2_release,
};

static struct account *cg2_wrap(const char *dir, int sample_ms)
{
	struct account *a = acct_new(&cg2_ops, sample_ms);
	struct cg2 *p = xcalloc(1, sizeof(*p));
	struct sbuf sb = SBUF_INIT;

	p->peak_fd = -1;
	a->priv = p;
	a->dirs[a->ndirs++] = xstrdup(dir);
	sbuf_addf(&sb, "%s/cgroup.procs", dir);
	a->procs_path = sbuf_detach(&sb, NULL);
	sbuf_addf(&sb, "%s/cgroup.kill", dir);
	a->kill_path = sbuf_detach(&sb, NULL);
	sbuf_addf(&sb, "%s/cgroup.freeze", dir);
	a->freeze_path = sbuf_detach(&sb, NULL);
	return a;
}

struct account *acct_cgroup2_open(const char *dir, int sample_ms)
{
	return cg2_wrap(dir, sample_ms);
}

static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	while ((p = strstr(p, word))) {
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

int acct_cgroup2_usable(void)
{
	char *root = cg2_root();
	char buf[1024];
	int ok = 0;

	if (!root)
		return 0;
	if (acct_read(root, "cgroup.controllers", buf, sizeof(buf)) >= 0 &&
	    has_word(buf, "cpu") && has_word(buf, "memory") && !access(root, W_OK))
		ok = 1;
	free(root);
	return ok;
}

/* Enable the controllers we need in dir's subtree_control. */
static int enable_controllers(const char *dir, int cpuset)
{
	char avail[1024];
	const char *want[] = { "cpu", "memory", "pids", "cpuset" };
	size_t i;
	int err;

	if (acct_read(dir, "cgroup.controllers", avail, sizeof(avail)) < 0)
		return error("cannot read %s/cgroup.controllers: %s", dir, strerror(errno));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		char cmd[32];
		if (i == 3 && !cpuset)
			continue;
		if (!has_word(avail, want[i])) {
			if (i < 2)
				return error("cgroup2 at %s: controller %s not available", dir, want[i]);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "+%s", want[i]);
		err = acct_write(dir, "cgroup.subtree_control", cmd);
		if (err && i < 2)
			return error("cannot enable %s in %s/cgroup.subtree_control: %s", want[i], dir,
				     strerror(-err));
	}
	return 0;
}

struct account *acct_cgroup2_create(const char *label, const struct account_limits *lim,
				    int sample_ms)
{
	char *root = cg2_root();
	char *parent = NULL, *name = NULL, *dir = NULL, num[32];
	const char *what = "";
	struct account *a = NULL;
	int err;

	if (!root) {
		error("accounting backend cgroup2: no cgroup2 hierarchy is mounted");
		goto out;
	}
	if (enable_controllers(root, lim->cpus != NULL))
		goto out;
	parent = acct_mkdir(root, "harness");
	if (!parent || enable_controllers(parent, lim->cpus != NULL))
		goto out;
	name = acct_owned_name(label);
	dir = acct_mkdir(parent, name);
	if (!dir)
		goto out;
	a = cg2_wrap(dir, sample_ms);
	a->owned = 1;
	if (lim->memory_max_bytes) {
		snprintf(num, sizeof(num), "%" PRIu64, lim->memory_max_bytes);
		what = "memory.max";
		if ((err = acct_write(dir, what, num)))
			goto fail_limit;
		acct_write(dir, "memory.swap.max", "0");
	}
	if (lim->pids_max) {
		snprintf(num, sizeof(num), "%" PRIu64, lim->pids_max);
		what = "pids.max";
		if ((err = acct_write(dir, what, num)))
			goto fail_limit;
	}
	if (lim->cpu_max > 0) {
		snprintf(num, sizeof(num), "%.0f 100000", lim->cpu_max * 100000.0);
		what = "cpu.max";
		if ((err = acct_write(dir, what, num)))
			goto fail_limit;
	}
	if (lim->cpus && !acct_write(dir, "cpuset.cpus", lim->cpus))
		a->has_cpuset = 1;
	if (lim->cpu_weight_raise)
		acct_raise_cpu_weight(a, "cgroup2", dir, "cpu.weight");
	{
		char path[4096];
		int fd;
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			error("cannot open %s: %s", path, strerror(errno));
			goto fail;
		}
		a->place_fds[a->nplace++] = fd;
	}
	goto out;
fail_limit:
	error("cannot set %s/%s to %s: %s", dir, what, num, strerror(-err));
fail:
	account_free(a);
	a = NULL;
out:
	free(root);
	free(parent);
	free(name);
	free(dir);
	return a;
}

int acct_cgroup2_reap(void)
{
	char *root = cg2_root();
	struct sbuf sb = SBUF_INIT;
	int n = 0;

	if (!root)
		return 0;
	sbuf_addf(&sb, "%s/harness", root);
	n = acct_reap_parent(sb.buf, "cgroup.kill", "cgroup2");
	sbuf_release(&sb);
	free(root);
	return n;
}
