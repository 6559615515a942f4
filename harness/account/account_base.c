/*
 * account_base: what every accounting backend shares, beneath them: the
 * context (acct_new, the accessors, account_free), the window (begin/end
 * deltas) and its sampler thread, and the small file and cgroup helpers.
 * Declared in account.h (public) and account_backend.h (backends only).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "account/account.h"
#include "account/account_backend.h"
#include "base/util.h"

/* rmdir of a cgroup busy after its last task: tries, 20 ms apart (5 s). */
#define RMDIR_TRIES 250

/* ------------------------------------------------------------ context */

const char *account_backend_name(enum acct_backend b)
{
	switch (b) {
	case ACCT_AUTO: return "auto";
	case ACCT_CGROUP2: return "cgroup2";
	case ACCT_CGROUP1: return "cgroup1";
	case ACCT_PROCFS: return "procfs";
	}
	return "?";
}

int account_backend_parse(const char *s, enum acct_backend *out)
{
	static const enum acct_backend all[] = { ACCT_AUTO, ACCT_CGROUP2, ACCT_CGROUP1, ACCT_PROCFS };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (!strcmp(s, account_backend_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}

struct account *acct_new(const struct account_ops *ops, int sample_ms)
{
	struct account *a = xcalloc(1, sizeof(*a));
	pthread_condattr_t ca;

	a->ops = ops;
	a->sample_ms = sample_ms > 0 ? sample_ms : 50;
	pthread_mutex_init(&a->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cv, &ca);
	pthread_condattr_destroy(&ca);
	return a;
}

int acct_add_dir(struct account *a, const char *dir, int place)
{
	char path[4096];
	int fd;

	if (a->ndirs >= ACCT_MAX_DIRS)
		return error("account: too many cgroup directories");
	a->dirs[a->ndirs++] = xstrdup(dir);
	if (!place)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return error("account: %s: cannot open: %s", path, strerror(errno));
	a->place_fds[a->nplace++] = fd;
	return 0;
}

enum acct_backend account_backend(const struct account *a)
{
	return a->ops->backend;
}

int account_has_cpuset(const struct account *a)
{
	return a->has_cpuset;
}

int account_child_place(const struct account *a)
{
	size_t i;

	for (i = 0; i < a->nplace; i++)
		if (write(a->place_fds[i], "0", 1) != 1)
			return -errno;
	return 0;
}

void account_attach(struct account *a, pid_t root)
{
	a->root = root;
}

const char *account_procs_path(const struct account *a)
{
	return a->procs_path;
}

const char *account_kill_path(const struct account *a)
{
	return a->kill_path;
}

const char *const *account_dirs(const struct account *a, size_t *n)
{
	*n = a->owned ? a->ndirs : 0;
	return (const char *const *)a->dirs;
}

void account_limit_hits(struct account *a, struct account_limit_hits *h)
{
	struct acct_counters c;
	char buf[256];
	size_t i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < a->ndirs && !h->has_pids; i++)
		if (acct_read(a->dirs[i], "pids.events", buf, sizeof(buf)) >= 0 &&
		    !acct_kv(buf, "max", &h->pids_refused))
			h->has_pids = 1;
	memset(&c, 0, sizeof(c));
	if (a->ops->counters && !a->ops->counters(a, &c) && c.has_oom) {
		h->has_oom = 1;
		h->oom_kill = c.oom_kill;
	}
}

const char *acct_thaw_text(const struct account *a)
{
	return a->freeze_v1 ? "THAWED" : "0";
}

int acct_thaw(struct account *a)
{
	if (!a->freeze_path || !a->frozen)
		return 0;
	a->frozen = 0;
	return acct_write(NULL, a->freeze_path, acct_thaw_text(a)) ? -1 : 0;
}

int account_nprocs(struct account *a)
{
	return a->ops->nprocs(a);
}

int account_kill_all(struct account *a, double timeout_s)
{
	/* a frozen task (v1) does not die of SIGKILL until thawed */
	acct_thaw(a);
	return a->ops->kill_all(a, timeout_s);
}

int account_signal_all(struct account *a, int sig)
{
	return a->ops->signal_all(a, sig);
}

void account_free(struct account *a)
{
	size_t i;
	int tries;

	if (!a)
		return;
	acct_thaw(a);
	if (a->in_window) {
		struct account_window w;
		if (!account_window_end(a, &w))
			account_window_release(&w);
	}
	acct_held_release(&a->held);
	for (i = 0; i < a->nplace; i++)
		close(a->place_fds[i]);
	if (a->ops->release)
		a->ops->release(a);
	for (i = 0; i < a->ndirs; i++) {
		/* A v1 cgroup is busy for a moment after its last task exits
		 * (over 1 s seen for a memory cgroup on a loaded host). */
		for (tries = 0; a->owned && tries < RMDIR_TRIES; tries++) {
			if (!rmdir(a->dirs[i]) || errno == ENOENT)
				break;
			if (errno != EBUSY) {
				warning("cannot remove cgroup %s: %s", a->dirs[i], strerror(errno));
				break;
			}
			usleep(20000);
		}
		if (a->owned && tries == RMDIR_TRIES)
			warning("cannot remove cgroup %s: still busy", a->dirs[i]);
		free(a->dirs[i]);
	}
	free(a->procs_path);
	free(a->kill_path);
	free(a->freeze_path);
	free(a->cpu_weight);
	free(a->samples);
	acct_wait_release(&a->wait0);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

/* ------------------------------------------------------------ windows */

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The counters and peak now, kept for a window end that finds the cgroup
 * gone (struct account keep_last). */
static void keep_last(struct account *a)
{
	struct acct_counters c;
	uint64_t peak;
	int ok_c, ok_p;

	memset(&c, 0, sizeof(c));
	ok_c = !a->ops->counters(a, &c);
	ok_p = a->peak != ACCT_PEAK_NONE && !a->ops->peak_read(a, &peak);
	pthread_mutex_lock(&a->mu);
	if (ok_c) {
		a->last = c;
		a->has_last = 1;
	}
	if (ok_p) {
		a->last_peak = peak;
		a->has_last_peak = 1;
	}
	pthread_mutex_unlock(&a->mu);
}

/* The host-held wait's sample (account_held.c): the arm's threads now. */
static void held_sample(struct account *a, double cpu_s)
{
	pid_t *pids = NULL;
	size_t n = a->ops->pids_cached ? a->ops->pids_cached(a, &pids)
		 : a->ops->pids ? a->ops->pids(a, &pids) : acct_read_pids(a->procs_path, &pids);

	acct_held_sample(&a->held, pids, n, cpu_s);
	free(pids);
}

/* Take one sample; the mutex is not held during the reads. */
static void take_sample(struct account *a)
{
	struct account_sample s;
	uint64_t anon;
	double cpu;

	if (a->ops->sample(a, &anon, &cpu))
		return;
	held_sample(a, cpu);
	if (a->keep_last)
		keep_last(a);
	s.t_ms = (now_ns() - a->t0) / 1e6;
	s.anon = anon;
	s.cpu_s = cpu - a->cpu0;
	if (s.cpu_s < 0)
		s.cpu_s = 0;
	pthread_mutex_lock(&a->mu);
	XGROW(a->samples, a->alloc, a->nsamples + 1);
	a->samples[a->nsamples++] = s;
	pthread_mutex_unlock(&a->mu);
}

static void *sampler_main(void *arg)
{
	struct account *a = arg;
	double c0 = thread_cpu_s();
	uint64_t next = a->t0;
	struct timespec ts;

	pthread_mutex_lock(&a->mu);
	while (!a->stop) {
		next += (uint64_t)a->sample_ms * 1000000ull;
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		while (!a->stop && pthread_cond_timedwait(&a->cv, &a->mu, &ts) != ETIMEDOUT)
			;
		if (a->stop)
			break;
		pthread_mutex_unlock(&a->mu);
		take_sample(a);
		pthread_mutex_lock(&a->mu);
		/* Fell behind (a stalled machine): skip missed ticks, never burst. */
		if (now_ns() > next + (uint64_t)a->sample_ms * 1000000ull)
			next = now_ns();
	}
	a->sampler_cpu_s = thread_cpu_s() - c0;
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* The run_delay of the arm's threads now (account_wait.c): its processes
 * from the backend (procfs: the tree) or the cgroup's cgroup.procs. */
static int wait_now(struct account *a, struct acct_wait *w)
{
	pid_t *pids = NULL;
	size_t n = a->ops->pids ? a->ops->pids(a, &pids) : acct_read_pids(a->procs_path, &pids);
	int ret = acct_wait_read(pids, n, w);

	free(pids);
	return ret;
}

/* The threads' run-queue wait over the window (account_wait.c): known
 * when both ends read threads (none at the end: the arm is gone). */
static void window_wait(struct account *a, struct account_window *out)
{
	struct acct_wait end;

	memset(&end, 0, sizeof(end));
	out->wait_s = NAN;
	if (a->has_wait0 && !wait_now(a, &end)) {
		out->has_wait = 1;
		out->wait_s = acct_wait_delta(&a->wait0, &end);
	}
	acct_wait_release(&end);
}

int account_window_begin(struct account *a)
{
	uint64_t anon;
	int err;

	if (a->in_window)
		return error("account: window already open");
	memset(&a->begin, 0, sizeof(a->begin));
	if (a->ops->counters(a, &a->begin))
		return error("account (%s): cannot read the counters",
			     account_backend_name(a->ops->backend));
	a->peak = a->ops->peak_begin(a);
	a->has_wait0 = !wait_now(a, &a->wait0);
	acct_held_release(&a->held);
	a->has_last = a->has_last_peak = 0;
	a->nsamples = 0;
	a->sampler_cpu_s = 0;
	a->stop = 0;
	a->t0 = now_ns();
	a->cpu0 = 0;
	if (a->ops->sample(a, &anon, &a->cpu0))
		a->cpu0 = a->begin.cpu_s;
	take_sample(a);
	err = pthread_create(&a->thread, NULL, sampler_main, a);
	if (err)
		return error("account: cannot start the sampler thread: %s", strerror(err));
	a->in_window = 1;
	return 0;
}

size_t account_window_samples(struct account *a, size_t from, struct account_sample *out,
			      size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&a->mu);
	if (a->in_window && from < a->nsamples) {
		n = a->nsamples - from < max ? a->nsamples - from : max;
		memcpy(out, a->samples + from, n * sizeof(*out));
	}
	pthread_mutex_unlock(&a->mu);
	return n;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

double account_anon_quantile(const struct account_sample *s, size_t n, double q)
{
	uint64_t *v;
	size_t i, k;
	double r;

	if (!n)
		return 0;
	v = xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = s[i].anon;
	qsort(v, n, sizeof(*v), cmp_u64);
	/* nearest rank: the smallest value with at least q*n values <= it */
	k = (size_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	r = (double)v[k - 1];
	free(v);
	return r;
}

static uint64_t delta(uint64_t end, uint64_t begin)
{
	return end >= begin ? end - begin : 0;
}

int account_window_end(struct account *a, struct account_window *out)
{
	struct acct_counters end;
	int ret = 0, got;

	memset(out, 0, sizeof(*out));
	if (!a->in_window)
		return error("account: no window open");
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	a->in_window = 0;
	take_sample(a);

	memset(&end, 0, sizeof(end));
	out->backend = account_backend_name(a->ops->backend);
	out->duration_s = (now_ns() - a->t0) / 1e9;
	got = !a->ops->counters(a, &end);
	if (!got && a->has_last) {
		end = a->last;          /* its cgroup went with it: the last sample's */
		got = 1;
	}
	if (!got)
		ret = error("account (%s): cannot read the counters at window end",
			    out->backend);
	else {
		out->cpu_s = end.cpu_s - a->begin.cpu_s;
		out->user_s = end.user_s - a->begin.user_s;
		out->system_s = end.system_s - a->begin.system_s;
		out->has_throttle = end.has_throttle && a->begin.has_throttle;
		out->nr_throttled = delta(end.nr_throttled, a->begin.nr_throttled);
		out->throttled_usec = delta(end.throttled_usec, a->begin.throttled_usec);
		out->has_oom = end.has_oom && a->begin.has_oom;
		out->oom = delta(end.oom, a->begin.oom);
		out->oom_kill = delta(end.oom_kill, a->begin.oom_kill);
		out->has_majfault = end.has_majfault && a->begin.has_majfault;
		out->pgmajfault = delta(end.pgmajfault, a->begin.pgmajfault);
	}
	window_wait(a, out);
	out->has_held = a->held.intervals > 0;
	out->held_s = out->has_held ? a->held.held_s : NAN;
	out->held_max_s = out->has_held ? a->held.held_max_s : NAN;
	out->foreign_cpu_s = out->has_held ? a->held.foreign_s : NAN;
	out->held_wait_s = out->has_held ? a->held.wait_s : NAN;
	acct_held_release(&a->held);
	got = a->peak != ACCT_PEAK_NONE && !a->ops->peak_read(a, &out->mem_peak);
	if (!got && a->peak != ACCT_PEAK_NONE && a->has_last_peak) {
		out->mem_peak = a->last_peak;
		got = 1;
	}
	if (got) {
		out->has_peak = 1;
		out->peak_scope = a->peak == ACCT_PEAK_WINDOW ? "window" : "lifetime";
	}
	out->samples = a->samples;
	out->nsamples = a->nsamples;
	a->samples = NULL;
	a->nsamples = a->alloc = 0;
	out->anon_p50 = account_anon_quantile(out->samples, out->nsamples, 0.50);
	out->anon_p99 = account_anon_quantile(out->samples, out->nsamples, 0.99);
	out->anon_max = account_anon_quantile(out->samples, out->nsamples, 1.0);
	out->sampler_cpu_s = a->sampler_cpu_s;
	return ret;
}

void account_window_release(struct account_window *w)
{
	free(w->samples);
	w->samples = NULL;
	w->nsamples = 0;
}

/* ------------------------------------------------------------ file helpers */

/* dir/file, or file alone when dir is NULL. */
static void acct_path(char *path, size_t size, const char *dir, const char *file)
{
	if (dir)
		snprintf(path, size, "%s/%s", dir, file);
	else
		snprintf(path, size, "%s", file);
}

ssize_t acct_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[4096];
	ssize_t n, got = 0;
	int fd;

	acct_path(path, sizeof(path), dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

int acct_write(const char *dir, const char *file, const char *s)
{
	char path[4096];
	size_t len = strlen(s);
	int fd, ret = 0;

	acct_path(path, sizeof(path), dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

int acct_kv(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == ' ' || p[klen] == '\t'))
			return acct_u64(p + klen, out);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int acct_u64(const char *text, uint64_t *out)
{
	char *end;

	while (*text == ' ' || *text == '\t')
		text++;
	if (*text < '0' || *text > '9')
		return -1;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return errno ? -1 : 0;
}

/* ------------------------------------------------------------ ownership */

uint64_t acct_pid_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (acct_read(NULL, path, buf, sizeof(buf)) <= 0)
		return 0;
	/* comm may hold spaces and parentheses: fields restart after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p + 1, ' ');
	}
	if (!p || sscanf(p, " %llu", &st) != 1)
		return 0;
	return st;
}

char *acct_owned_name(const char *label)
{
	struct sbuf sb = SBUF_INIT;
	const char *p;

	sbuf_addf(&sb, "h%d_%" PRIu64 "_", (int)getpid(), acct_pid_starttime(getpid()));
	for (p = label && *label ? label : "impl"; *p && sb.len < 200; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-' || c == '_'))
			c = '_';
		sbuf_add(&sb, &c, 1);
	}
	return sbuf_detach(&sb, NULL);
}

char *acct_mkdir(const char *parent, const char *name)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s/%s", parent, name);
	if (mkdir(sb.buf, 0755) && errno != EEXIST) {
		error("cannot create cgroup %s: %s", sb.buf, strerror(errno));
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb, NULL);
}

static int parse_pids(const char *text, pid_t *pids, int max)
{
	int n = 0;
	const char *p = text;
	char *end;
	long v;

	while (*p && n < max) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > 0)
			pids[n++] = (pid_t)v;
		p = end;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return n;
}

size_t acct_read_pids(const char *path, pid_t **out)
{
	size_t size = 65536;
	char *buf = xmalloc(size);
	int n = 0;

	*out = NULL;
	if (path && acct_read(NULL, path, buf, size) >= 0) {
		*out = xmalloc(4096 * sizeof(**out));
		n = parse_pids(buf, *out, 4096);
	}
	free(buf);
	return (size_t)n;
}

int acct_count_procs(const char *procs_path)
{
	size_t size = 65536;
	char *buf = xmalloc(size);
	pid_t *pids = xmalloc(4096 * sizeof(*pids));
	int n = -1;

	if (acct_read(NULL, procs_path, buf, size) >= 0)
		n = parse_pids(buf, pids, 4096);
	free(buf);
	free(pids);
	return n;
}

int acct_signal_procs(const char *procs_path, int sig)
{
	size_t size = 65536;
	char *buf = xmalloc(size);
	pid_t *pids = xmalloc(4096 * sizeof(*pids));
	int n = 0, i;

	if (acct_read(NULL, procs_path, buf, size) >= 0)
		n = parse_pids(buf, pids, 4096);
	for (i = 0; i < n; i++)
		kill(pids[i], sig);
	free(buf);
	free(pids);
	return n;
}

int acct_kill_procs(const char *procs_path, double timeout_s)
{
	char buf[16384];
	pid_t pids[2048];
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	int n, i;

	for (;;) {
		if (acct_read(NULL, procs_path, buf, sizeof(buf)) < 0)
			return errno == ENOENT ? 0 : -1;
		n = parse_pids(buf, pids, (int)ARRAY_SIZE(pids));
		if (!n)
			return 0;
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		if (now_ns() > deadline)
			return -1;
		usleep(5000);
	}
}

int acct_reap_parent(const char *parent, const char *kill_file, const char *what)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char path[4096];
	int count = 0, pid, n, tries;
	unsigned long long st;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "h%d_%llu_%n", &pid, &st, &n) != 2)
			continue;
		if (acct_pid_starttime(pid) == st)
			continue;               /* its harness is alive */
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		/* thawed first (account_freeze.c); quiet where it is no freezer */
		acct_write(path, "freezer.state", "THAWED");
		acct_write(path, "cgroup.freeze", "0");
		if (kill_file)
			acct_write(path, kill_file, "1");
		snprintf(path, sizeof(path), "%s/%s/cgroup.procs", parent, de->d_name);
		n = acct_count_procs(path);
		acct_kill_procs(path, 2.0);
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		for (tries = 0; tries < RMDIR_TRIES && rmdir(path) && errno == EBUSY; tries++)
			usleep(20000);
		if (what)
			warning("reaped a leftover %s cgroup of a dead harness (pid %d): %s, %d process(es) killed",
				what, pid, path, n > 0 ? n : 0);
		count += what != NULL;
	}
	closedir(d);
	return count;
}

/* ------------------------------------------------------------ mounts */

char *acct_find_mount(const char *fstype, const char *opt)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	char *ret = NULL;

	if (!f)
		return NULL;
	while (!ret && fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		char *fields[6], *sep, *save = NULL, *tok, *mnt, *type, *super;
		int i = 0;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok && i < 6; tok = strtok_r(NULL, " ", &save))
			fields[i++] = tok;
		if (i < 5)
			continue;
		mnt = fields[4];
		save = NULL;
		type = strtok_r(sep + 3, " ", &save);
		strtok_r(NULL, " ", &save);
		super = strtok_r(NULL, " \n", &save);
		if (!type || strcmp(type, fstype))
			continue;
		if (opt) {
			char *o, *s2 = NULL;
			int found = 0;
			for (o = strtok_r(super ? super : (char *)"", ",", &s2); o;
			     o = strtok_r(NULL, ",", &s2))
				if (!strcmp(o, opt))
					found = 1;
			if (!found)
				continue;
		}
		ret = xstrdup(mnt);
	}
	fclose(f);
	return ret;
}
