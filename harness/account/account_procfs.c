/*
 * account_procfs: the process tree below the root pid, from /proc, for
 * hosts where the harness may not create cgroups.
 *
 * CPU of a process = utime + stime + cutime + cstime, so a child that
 * exited and was reaped by a parent in the tree still counts (through the
 * parent's c-times); once the root itself is reaped, its final rusage
 * (account_note_reaped) stands for the whole tree. Orphans re-parented out
 * of the tree (a daemonising child) are lost: that is the limit of this
 * backend, and why the cgroup backends come first.
 *
 * The tree is found by scanning every /proc/<pid>/stat for parent links:
 * at window edges and every RESCAN samples; in between only the known
 * members are read.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "account/account_backend.h"
#include "base/util.h"

#define RESCAN 20

struct pfs {
	pid_t *pids;                    /* the tree, root first */
	size_t n, alloc;
	unsigned since_scan;
	int reaped;
	struct acct_counters final;
	pthread_mutex_t mu;             /* the sampler and the owner both scan */     /* the root's rusage once reaped */
};

struct pstat {
	pid_t ppid;
	unsigned long majflt, cmajflt, utime, stime;
	long cutime, cstime;
};

static int read_pstat(pid_t pid, struct pstat *st)
{
	char path[64], buf[1024], *p;
	char state;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (acct_read(NULL, path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	if (sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %lu %lu %lu %lu %ld %ld", &state,
		   &ppid, &st->majflt, &st->cmajflt, &st->utime, &st->stime, &st->cutime,
		   &st->cstime) != 8)
		return -1;
	st->ppid = ppid;
	return 0;
}

/* Rebuild the member list: every process whose ancestry reaches the root. */
static void rescan(struct account *a)
{
	struct pfs *p = a->priv;
	DIR *d;
	struct dirent *de;
	pid_t *all = NULL, *par = NULL;
	size_t nall = 0, aall = 0, apar = 0, i, head;
	struct pstat st;
	char *end;
	long v;

	p->n = 0;
	p->since_scan = 0;
	if (p->reaped || a->root <= 0)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0 || read_pstat((pid_t)v, &st))
			continue;
		XGROW(all, aall, nall + 1);
		XGROW(par, apar, nall + 1);
		all[nall] = (pid_t)v;
		par[nall] = st.ppid;
		nall++;
	}
	closedir(d);
	XGROW(p->pids, p->alloc, 1);
	p->pids[p->n++] = a->root;
	/* breadth-first from the root; each member's children appended */
	for (head = 0; head < p->n; head++)
		for (i = 0; i < nall; i++)
			if (par[i] == p->pids[head] && all[i] != a->root) {
				XGROW(p->pids, p->alloc, p->n + 1);
				p->pids[p->n++] = all[i];
			}
	free(all);
	free(par);
}

/*
 * The CPU of a live process's threads in ns (schedstat's sum_exec_runtime,
 * which utime + stime are scaled to), 0 when unreadable. Threads that
 * already exited are not in it; stat's clock ticks are: the caller takes the
 * larger of the two, each a lower bound of the truth.
 */
static uint64_t tasks_ns(pid_t pid)
{
	char path[320], buf[128];
	DIR *d;
	struct dirent *de;
	unsigned long long ns, total = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, de->d_name);
		if (acct_read(NULL, path, buf, sizeof(buf)) > 0 && sscanf(buf, "%llu", &ns) == 1)
			total += ns;
	}
	closedir(d);
	return total;
}

/* precise: window edges refine each process's ticks with tasks_ns(). */
static int sum_tree(struct account *a, struct acct_counters *c, uint64_t *anon, int precise)
{
	struct pfs *p = a->priv;
	struct pstat st;
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	unsigned long long user = 0, sys = 0, maj = 0, size, res, shared;
	double extra = 0, own, fine;
	char path[64], buf[256];
	size_t i;
	int live = 0;

	if (p->reaped) {
		*c = p->final;
		if (anon)
			*anon = 0;
		return 0;
	}
	if (anon)
		*anon = 0;
	for (i = 0; i < p->n; i++) {
		if (read_pstat(p->pids[i], &st))
			continue;
		live++;
		user += st.utime + (unsigned long)st.cutime;
		sys += st.stime + (unsigned long)st.cstime;
		maj += st.majflt + st.cmajflt;
		if (precise) {
			own = (double)(st.utime + st.stime) / hz;
			fine = tasks_ns(p->pids[i]) / 1e9;
			if (fine > own)
				extra += fine - own;
		}
		if (!anon)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)p->pids[i]);
		if (acct_read(NULL, path, buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "%llu %llu %llu", &size, &res, &shared) == 3 && res >= shared)
			*anon += (res - shared) * (uint64_t)page;
	}
	if (!live)
		return -1;
	c->user_s = (double)user / hz;
	c->system_s = (double)sys / hz;
	/* the refinement goes to the total only: user/system stay in ticks */
	c->cpu_s = c->user_s + c->system_s + extra;
	c->has_majfault = 1;
	c->pgmajfault = maj;
	return 0;
}

static int pfs_counters(struct account *a, struct acct_counters *c)
{
	struct pfs *p = a->priv;
	int ret;

	pthread_mutex_lock(&p->mu);
	rescan(a);
	ret = sum_tree(a, c, NULL, 1);
	pthread_mutex_unlock(&p->mu);
	return ret;
}

static int pfs_sample(struct account *a, uint64_t *anon, double *cpu_s)
{
	struct pfs *p = a->priv;
	struct acct_counters c;

	int ret;

	memset(&c, 0, sizeof(c));
	pthread_mutex_lock(&p->mu);
	if (++p->since_scan >= RESCAN)
		rescan(a);
	ret = sum_tree(a, &c, anon, 0);
	pthread_mutex_unlock(&p->mu);
	*cpu_s = c.cpu_s;
	return ret;
}

static int zombie(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (acct_read(NULL, path, buf, sizeof(buf)) <= 0)
		return 1;
	p = strrchr(buf, ')');
	return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

static enum acct_peak pfs_peak_begin(struct account *a)
{
	return ACCT_PEAK_NONE;
}

static int pfs_peak_read(struct account *a, uint64_t *peak)
{
	return -1;
}

static int pfs_nprocs(struct account *a)
{
	struct pfs *p = a->priv;
	int n;

	pthread_mutex_lock(&p->mu);
	rescan(a);
	n = (int)p->n;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static int pfs_kill_all(struct account *a, double timeout_s)
{
	struct pfs *p = a->priv;
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	size_t i, n;

	for (;;) {
		pthread_mutex_lock(&p->mu);
		rescan(a);
		for (i = 0; i < p->n; i++)
			kill(p->pids[i], SIGKILL);
		n = p->n;
		pthread_mutex_unlock(&p->mu);
		/* the root stays listed as a zombie until its parent reaps it */
		if (n <= 1 && (n == 0 || zombie(a->root)))
			return 0;
		if (now_ns() > deadline)
			return -1;
		usleep(5000);
	}
}

static int pfs_signal_all(struct account *a, int sig)
{
	struct pfs *p = a->priv;
	size_t i;
	int n;

	pthread_mutex_lock(&p->mu);
	rescan(a);
	for (i = 0; i < p->n; i++)
		kill(p->pids[i], sig);
	n = (int)p->n;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static size_t pfs_pids(struct account *a, pid_t **out)
{
	struct pfs *p = a->priv;
	size_t n;

	pthread_mutex_lock(&p->mu);
	rescan(a);
	n = p->n;
	*out = xcalloc(n + 1, sizeof(**out));
	memcpy(*out, p->pids, n * sizeof(**out));
	pthread_mutex_unlock(&p->mu);
	return n;
}

/* The tree as the sampler last scanned it (every RESCAN samples). */
static size_t pfs_pids_cached(struct account *a, pid_t **out)
{
	struct pfs *p = a->priv;
	size_t n;

	pthread_mutex_lock(&p->mu);
	n = p->n;
	*out = xcalloc(n + 1, sizeof(**out));
	memcpy(*out, p->pids, n * sizeof(**out));
	pthread_mutex_unlock(&p->mu);
	return n;
}

static void pfs_release(struct account *a)
{
	struct pfs *p = a->priv;

	if (!p)
		return;
	pthread_mutex_destroy(&p->mu);
	free(p->pids);
	free(p);
}

static const struct account_ops pfs_ops = {
	.backend = ACCT_PROCFS,
	.counters = pfs_counters,
	.sample = pfs_sample,
	.peak_begin = pfs_peak_begin,
	.peak_read = pfs_peak_read,
	.nprocs = pfs_nprocs,
	.kill_all = pfs_kill_all,
	.signal_all = pfs_signal_all,
	.pids = pfs_pids,
	.pids_cached = pfs_pids_cached,
	.release = pfs_release,
};

struct account *acct_procfs_create(int sample_ms)
{
	struct account *a = acct_new(&pfs_ops, sample_ms);
	struct pfs *p = xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->mu, NULL);
	a->priv = p;
	return a;
}

void account_note_reaped(struct account *a, const struct rusage *ru)
{
	struct pfs *p;

	if (a->ops != &pfs_ops)
		return;
	p = a->priv;
	pthread_mutex_lock(&p->mu);
	memset(&p->final, 0, sizeof(p->final));
	/* wait4's rusage: the root plus every child it reaped, like c-times */
	p->final.user_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	p->final.system_s = ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
	p->final.cpu_s = p->final.user_s + p->final.system_s;
	p->final.has_majfault = 1;
	p->final.pgmajfault = (uint64_t)ru->ru_majflt;
	p->reaped = 1;
	p->n = 0;
	pthread_mutex_unlock(&p->mu);
}
