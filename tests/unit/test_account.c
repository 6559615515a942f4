/*
 * test_account: the accounting backends.
 *
 * cgroup2 and cgroup1 parsing and deltas against fake cgroup directories
 * (files with known contents); then every backend this machine has, for
 * real, plus procfs always: a 0.5 s CPU burner (within 5%), 100 MiB of
 * touched anonymous memory (within 10%), a forking tree, and the reaping of
 * a dead harness's leftover cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "account/account.h"
#include "account/account_backend.h"
#include "t.h"
#include "base/testhook.h"
#include "base/util.h"

static char helpers[1024];

/*
 * The acceptance tolerances: 5% CPU and 10% memory against what the helper
 * processes (burn, alloc, forker) are known to use, and the sampler under
 * 1% of one core. The helpers are built without sanitizers in every build
 * (see the Makefile), so the first two hold under `make asan` too. The
 * sampler is the code under test: under ASan its own thread runs
 * instrumented (every sample's allocations go through ASan's allocator),
 * so there it may use up to 5%.
 */
#define CPU_TOL 0.05
#define MEM_TOL 0.10
#ifdef __SANITIZE_ADDRESS__
#define SAMPLER_MAX 0.05
#else
#define SAMPLER_MAX 0.01        /* the acceptance: < 1% of one core */
#endif

static void put(const char *dir, const char *file, const char *text)
{
	char path[2048], tmp[2100];
	FILE *f;

	/* rename: the sampler thread never sees a half-written file */
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	rename(tmp, path);
}

static char *fake_dir(const char *name)
{
	char *d = xmalloc(256);

	snprintf(d, 256, "/tmp/test_account.%d.%s", (int)getpid(), name);
	mkdir(d, 0755);
	return d;
}

static void rm_dir(char *d)
{
	static const char *files[] = { "cpu.stat", "memory.stat", "memory.events", "memory.peak",
				       "cgroup.procs", "cpuacct.usage", "cpuacct.stat",
				       "memory.oom_control", "memory.max_usage_in_bytes" };
	char path[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", d, files[i]);
		unlink(path);
	}
	rmdir(d);
	free(d);
}

TEST(cgroup2_fake_deltas)
{
	char *d = fake_dir("cg2");
	const char *dirs[] = { d };
	struct account *a;
	struct account_window w;

	put(d, "cpu.stat", "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n"
			   "nr_periods 10\nnr_throttled 2\nthrottled_usec 5000\n");
	put(d, "memory.stat", "anon 1048576\nfile 4096\nkernel 0\npgfault 10\npgmajfault 3\n");
	put(d, "memory.events", "low 0\nhigh 0\nmax 0\noom 1\noom_kill 1\noom_group_kill 0\n");
	put(d, "memory.peak", "2097152\n");
	put(d, "cgroup.procs", "");
	a = account_open_dirs(ACCT_CGROUP2, dirs, 1, 10);
	CHECK(a != NULL);
	if (!a)
		return;
	CHECK(account_window_begin(a) == 0);
	usleep(30000);
	put(d, "memory.stat", "anon 3145728\nfile 4096\nkernel 0\npgfault 10\npgmajfault 7\n");
	put(d, "cpu.stat", "usage_usec 3500000\nuser_usec 2100000\nsystem_usec 1400000\n"
			   "nr_periods 20\nnr_throttled 5\nthrottled_usec 9000\n");
	usleep(30000);
	put(d, "memory.events", "low 0\nhigh 0\nmax 3\noom 3\noom_kill 2\noom_group_kill 0\n");
	/* in place, not renamed: the backend reads through the fd it reset */
	{
		FILE *f;
		char path[512];
		snprintf(path, sizeof(path), "%s/memory.peak", d);
		f = fopen(path, "w");
		if (f) {
			fputs("4194304\n", f);
			fclose(f);
		}
	}
	CHECK(account_window_end(a, &w) == 0);
	CHECK_STR(w.backend, "cgroup2");
	NEAR(w.cpu_s, 2.5, 1e-9, "usage_usec delta, exact");
	NEAR(w.user_s, 1.5, 1e-9, "user_usec delta, exact");
	NEAR(w.system_s, 1.0, 1e-9, "system_usec delta, exact");
	CHECK(w.has_throttle && w.nr_throttled == 3 && w.throttled_usec == 4000);
	CHECK(w.has_oom && w.oom == 2 && w.oom_kill == 1);
	CHECK(w.has_majfault && w.pgmajfault == 4);
	CHECK(w.has_peak && w.mem_peak == 4194304);
	CHECK_STR(w.peak_scope, "window");
	CHECK(w.nsamples >= 3);
	NEAR(w.anon_max, 3145728, 0, "the largest anon written");
	CHECK(w.samples[0].anon == 1048576);
	NEAR(w.samples[w.nsamples - 1].cpu_s, 2.5, 1e-9, "cumulative cpu of the last sample");
	account_window_release(&w);

	/* the cpu controller not enabled: no throttling figures, never zeros */
	put(d, "cpu.stat", "usage_usec 3500000\nuser_usec 2100000\nsystem_usec 1400000\n");
	CHECK(account_window_begin(a) == 0);
	CHECK(account_window_end(a, &w) == 0);
	CHECK(!w.has_throttle);
	NEAR(w.cpu_s, 0, 1e-9, "no change");
	account_window_release(&w);
	account_free(a);
	rm_dir(d);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

static int file_is(const char *dir, const char *file, const char *want)
{
	char buf[256];

	if (acct_read(dir, file, buf, sizeof(buf)) < 0)
		return 0;
	return !strcmp(buf, want);
}

/* Creation, limits and placement on a fake v2 root (HARNESS_TEST_CGROUP2_ROOT). */
TEST(cgroup2_fake_create)
{
	char *root = fake_dir("cg2root"), *name = acct_owned_name("fake impl");
	char parent[512], dir[1024];
	struct account_limits lim = { 64ull << 20, 100, "1", 0.5, 1 };
	struct account *a;
	static const char *files[] = { "memory.max", "memory.swap.max", "pids.max",
				       "cgroup.procs", "cpuset.cpus", "cgroup.kill", "cpu.max",
				       "cpu.weight" };
	size_t i;

	put(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
	put(root, "cgroup.subtree_control", "");
	snprintf(parent, sizeof(parent), "%s/harness", root);
	mkdir(parent, 0755);
	put(parent, "cgroup.controllers", "cpuset cpu io memory pids\n");
	put(parent, "cgroup.subtree_control", "");
	put(parent, "cpu.weight", "100\n");
	snprintf(dir, sizeof(dir), "%s/%s", parent, name);
	mkdir(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		put(dir, files[i], "");
	setenv("HARNESS_TEST_CGROUP2_ROOT", root, 1);
	testhook_read();
	CHECK(account_available(ACCT_CGROUP2));
	CHECK(account_detect() == ACCT_CGROUP2);
	a = account_create(ACCT_CGROUP2, "fake impl", &lim, 50);
	CHECK(a != NULL);
	if (a) {
		CHECK(account_backend(a) == ACCT_CGROUP2);
		CHECK(account_has_cpuset(a));
		CHECK(file_is(dir, "memory.max", "67108864"));
		CHECK(file_is(dir, "memory.swap.max", "0"));
		CHECK(file_is(dir, "pids.max", "100"));
		CHECK(file_is(dir, "cpu.max", "50000 100000"));   /* half a core */
		CHECK(file_is(dir, "cpuset.cpus", "1"));
		/* a measured arm: ten times the default weight at both levels */
		CHECK(file_is(dir, "cpu.weight", "1000"));
		CHECK(file_is(parent, "cpu.weight", "1000"));
		CHECK(account_cpu_weight(a) &&
		      !strcmp(account_cpu_weight(a), "cgroup2 cpu.weight 1000 at harness/ and its cgroup"));
		/* each controller enabled in turn (a regular file keeps the last) */
		CHECK(file_is(root, "cgroup.subtree_control", "+cpuset"));
		CHECK(file_is(parent, "cgroup.subtree_control", "+cpuset"));
		CHECK(account_child_place(a) == 0);
		CHECK(file_is(dir, "cgroup.procs", "0"));
		CHECK(strstr(account_kill_path(a), "/cgroup.kill") != NULL);
		CHECK(account_kill_all(a, 0.1) == 0);    /* cgroup.kill written, procs empty */
		CHECK(file_is(dir, "cgroup.kill", "1"));
	}
	/* a limit that cannot be set is an error, never ignored (here: a new
	 * cgroup directory without a memory.max file) */
	CHECK(account_create(ACCT_CGROUP2, "no limit files", &lim, 50) == NULL);
	unsetenv("HARNESS_TEST_CGROUP2_ROOT");
	testhook_read();
	CHECK(account_available(ACCT_CGROUP2) == acct_cgroup2_usable());
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	account_free(a);
	free(name);
	free(root);
}

TEST(cgroup1_fake_deltas)
{
	char *ca = fake_dir("cpuacct"), *m = fake_dir("memory"), *c = fake_dir("cpu");
	const char *dirs[] = { ca, m, c };
	struct account *a;
	struct account_window w;
	long hz = sysconf(_SC_CLK_TCK);
	char buf[128];

	put(ca, "cpuacct.usage", "2000000000\n");
	snprintf(buf, sizeof(buf), "user %ld\nsystem %ld\n", 3 * hz, 1 * hz);
	put(ca, "cpuacct.stat", buf);
	put(m, "memory.stat", "cache 0\nrss 0\ntotal_rss 52428800\ntotal_pgmajfault 5\n");
	put(m, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	put(m, "memory.max_usage_in_bytes", "60000000\n");
	put(c, "cpu.stat", "nr_periods 0\nnr_throttled 1\nthrottled_time 1000000\n");
	a = account_open_dirs(ACCT_CGROUP1, dirs, 3, 10);
	CHECK(a != NULL);
	if (!a)
		return;
	CHECK(account_window_begin(a) == 0);
	usleep(30000);
	put(ca, "cpuacct.usage", "2750000000\n");
	snprintf(buf, sizeof(buf), "user %ld\nsystem %ld\n", 3 * hz + hz / 2, 1 * hz + hz / 4);
	put(ca, "cpuacct.stat", buf);
	put(m, "memory.stat", "cache 0\nrss 0\ntotal_rss 104857600\ntotal_pgmajfault 9\n");
	put(m, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	put(m, "memory.max_usage_in_bytes", "110000000\n");
	put(c, "cpu.stat", "nr_periods 4\nnr_throttled 3\nthrottled_time 4000000\n");
	usleep(30000);
	CHECK(account_window_end(a, &w) == 0);
	CHECK_STR(w.backend, "cgroup1");
	NEAR(w.cpu_s, 0.75, 1e-9, "cpuacct.usage delta in ns, exact");
	NEAR(w.user_s, 0.5, 1.0 / hz, "cpuacct.stat ticks");
	NEAR(w.system_s, 0.25, 1.0 / hz, "cpuacct.stat ticks");
	CHECK(w.has_throttle && w.nr_throttled == 2 && w.throttled_usec == 3000);
	CHECK(w.has_oom && w.oom_kill == 1 && w.oom == 1);
	CHECK(w.has_majfault && w.pgmajfault == 4);
	CHECK(w.has_peak && w.mem_peak == 110000000);
	CHECK_STR(w.peak_scope, "window");
	NEAR(w.anon_max, 104857600, 0, "total_rss written last");
	account_window_release(&w);
	account_free(a);
	rm_dir(ca);
	rm_dir(m);
	rm_dir(c);
}

TEST(quantiles_nearest_rank)
{
	struct account_sample s[100];
	size_t i;

	for (i = 0; i < 100; i++)
		s[i].anon = 100 - i;   /* 1..100, unsorted */
	NEAR(account_anon_quantile(s, 100, 0.5), 50, 0, "nearest rank");
	NEAR(account_anon_quantile(s, 100, 0.99), 99, 0, "nearest rank");
	NEAR(account_anon_quantile(s, 100, 1.0), 100, 0, "max");
	NEAR(account_anon_quantile(s, 1, 0.5), 100, 0, "one sample");
	NEAR(account_anon_quantile(s, 0, 0.5), 0, 0, "no samples");
}

TEST(backend_names)
{
	enum acct_backend b;

	CHECK(!account_backend_parse("cgroup1", &b) && b == ACCT_CGROUP1);
	CHECK(!account_backend_parse("auto", &b) && b == ACCT_AUTO);
	CHECK(account_backend_parse("cgroup3", &b) == -1);
	CHECK_STR(account_backend_name(ACCT_PROCFS), "procfs");
	CHECK(account_detect() != ACCT_AUTO);
	CHECK(account_available(ACCT_PROCFS));
}

/* The freezer on a fake v2 cgroup: what is written, what is waited for,
 * and a freeze the kernel never reports done (thawed again, -1). */
TEST(cgroup2_fake_freeze)
{
	char *d = fake_dir("cg2freeze");
	const char *dirs[] = { d }, *text = NULL;
	struct account *a = account_open_dirs(ACCT_CGROUP2, dirs, 1, 50);
	char path[512];
	uint64_t t0;

	put(d, "cgroup.freeze", "");  /* written in place, not truncated */
	put(d, "cgroup.events", "populated 1\nfrozen 1\n");
	CHECK_STR(account_freezer(a), "cgroup2 cgroup.freeze");
	snprintf(path, sizeof(path), "%s/cgroup.freeze", d);
	CHECK_STR(account_thaw_path(a, &text), path);
	CHECK_STR(text, "0");
	CHECK(account_freeze(a, 1) == 0);
	CHECK(file_is(d, "cgroup.freeze", "1"));
	CHECK(account_freeze(a, 0) == 0);
	CHECK(file_is(d, "cgroup.freeze", "0"));
	put(d, "cgroup.events", "populated 1\nfrozen 0\n");
	t0 = now_ns();
	CHECK(account_freeze(a, 1) == -1);
	CHECK(now_ns() - t0 < 3000000000ull);    /* gave up after about 1 s */
	CHECK(file_is(d, "cgroup.freeze", "0"));  /* and thawed it again */
	account_free(a);
	snprintf(path, sizeof(path), "%s/cgroup.events", d);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.freeze", d);
	unlink(path);
	rm_dir(d);
}

/* ------------------------------------------------------------ real */

/* Fork, join the account's cgroup, exec the helper with stdout to a pipe. */
static pid_t spawn(struct account *a, const char *helper, char **args, int *outfd)
{
	char path[1200];
	char *argv[16];
	int p[2], i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", helpers, helper);
	argv[0] = path;
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		if (account_child_place(a))
			_exit(126);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(path, argv);
		_exit(127);
	}
	close(p[1]);
	*outfd = p[0];
	account_attach(a, pid);
	return pid;
}

/* Read until the helper's output holds `what` (at most 20 s). */
static int wait_for(int fd, const char *what)
{
	char buf[256];
	size_t got = 0;
	ssize_t n;
	uint64_t deadline = now_ns() + 20000000000ull;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (now_ns() < deadline) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n > 0) {
			got += n;
			buf[got] = '\0';
			if (strstr(buf, what))
				return 0;
			if (got > 128) {        /* keep the tail only */
				memmove(buf, buf + got - 64, 64);
				got = 64;
			}
		} else if (n == 0)
			return -1;
		usleep(10000);
	}
	return -1;
}

static void finish(struct account *a, pid_t pid, int fd)
{
	int st;

	CHECK(account_kill_all(a, 2.0) == 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(fd);
	account_free(a);
}

static void real_burn(enum acct_backend b)
{
	char *args[] = { "--cpu", "0.5", "--delay-ms", "300", "--linger", NULL };
	struct account *a = account_create(b, "test-burn", NULL, 50);
	struct account_window w;
	pid_t pid;
	int fd;

	CHECK(a != NULL);
	if (!a)
		return;
	pid = spawn(a, "burn", args, &fd);
	CHECK(pid > 0);
	CHECK(wait_for(fd, "ready") == 0); /* past exec and loading, before the burn */
	CHECK(account_window_begin(a) == 0);
	CHECK(wait_for(fd, "done") == 0);
	usleep(20000);
	CHECK(account_window_end(a, &w) == 0);
	printf("# %s: burn 0.5 s -> cpu_s %.4f (user %.3f sys %.3f), %zu samples, sampler %.5f s over %.2f s\n",
	       w.backend, w.cpu_s, w.user_s, w.system_s, w.nsamples, w.sampler_cpu_s, w.duration_s);
	CHECK_STR(w.backend, account_backend_name(b));
	NEAR(w.cpu_s, 0.5, 0.5 * CPU_TOL, "acceptance: within 5% of the 0.5 s burnt");
	NEAR(w.user_s + w.system_s, w.cpu_s, 0.03, "user+system in clock ticks vs the total");
	CHECK(w.nsamples >= 5);
	if (w.nsamples)
		NEAR(w.samples[w.nsamples - 1].cpu_s, w.cpu_s, 0.03, "last sample's cumulative cpu");
	/* procfs reads every member's stat and statm and rescans /proc: allow
	 * it twice the cgroup budget here (bench/account.sh prints the figure) */
	CHECK(w.sampler_cpu_s < SAMPLER_MAX * (b == ACCT_PROCFS ? 2 : 1) * w.duration_s);
	account_window_release(&w);
	finish(a, pid, fd);
}

/* Read until the helpers' output holds `what` n times (at most 20 s). */
static int wait_count(int fd, const char *what, int n)
{
	char buf[512];
	size_t got = 0, k = strlen(what);
	ssize_t r;
	int seen = 0;
	uint64_t deadline = now_ns() + 20000000000ull;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (now_ns() < deadline) {
		r = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (r > 0) {
			char *p, *q;

			got += (size_t)r;
			buf[got] = '\0';
			for (p = buf; (q = strstr(p, what)); p = q + k)
				seen++;
			if (seen >= n)
				return 0;
			/* keep what may be the start of a split word */
			if (got > k) {
				memmove(buf, buf + got - (k - 1), k - 1);
				got = k - 1;
			}
		} else if (r == 0) {
			return -1;
		}
		usleep(10000);
	}
	return -1;
}

/*
 * The threads' CPU wait (account_wait.c): three burners pinned to one CPU
 * take turns on it, so at any instant at most one runs. Each burns 0.3 s
 * of its own CPU clock; however the scheduler orders them, the second to
 * finish waited at least 0.3 s and the third 0.6 s: 0.9 s in all (1.8 s
 * when the CPU is shared fairly, more when other work takes it), less
 * the spread of their start times (each starts 500 ms after its "ready",
 * and the three readys come within milliseconds). They sleep before and
 * after, so no wait is in flight at either edge of the window.
 */
static void real_wait(enum acct_backend b)
{
	struct account *a = account_create(b, "test-wait", NULL, 50);
	struct account_window w;
	char path[1200], *argv[] = { path, "--cpu", "0.3", "--delay-ms", "500", "--linger", NULL };
	cpu_set_t allowed, one;
	int p[2], cpu, i;
	pid_t pid;

	CHECK(a != NULL);
	if (!a)
		return;
	snprintf(path, sizeof(path), "%s/burn", helpers);
	CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(pipe(p) == 0);
	pid = fork();
	if (!pid) {
		/* the root and its two children: burners on one CPU */
		if (account_child_place(a) || sched_setaffinity(0, sizeof(one), &one))
			_exit(126);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		for (i = 0; i < 2; i++)
			if (!fork()) {
				execv(path, argv);
				_exit(127);
			}
		execv(path, argv);
		_exit(127);
	}
	close(p[1]);
	account_attach(a, pid);
	CHECK(wait_count(p[0], "ready", 3) == 0);
	CHECK(account_window_begin(a) == 0);
	CHECK(wait_count(p[0], "done", 3) == 0);
	usleep(20000);
	CHECK(account_window_end(a, &w) == 0);
	printf("# %s: 3 burners x 0.3 s on cpu %d: cpu_s %.3f, waited %.3f s over %.2f s\n",
	       w.backend, cpu, w.cpu_s, w.wait_s, w.duration_s);
	CHECK(w.has_wait);
	CHECK(w.wait_s >= 0.6);
	NEAR(w.cpu_s, 0.9, 0.9 * CPU_TOL, "the three burns");
	account_window_release(&w);
	finish(a, pid, p[0]);
}

static void real_alloc(enum acct_backend b)
{
	char *args[] = { "--mb", "100", "--delay-ms", "200", "--linger", NULL };
	struct account *a = account_create(b, "test-alloc", NULL, 20);
	struct account_window w;
	pid_t pid;
	int fd;

	CHECK(a != NULL);
	if (!a)
		return;
	pid = spawn(a, "alloc", args, &fd);
	CHECK(pid > 0);
	CHECK(account_window_begin(a) == 0);
	CHECK(wait_for(fd, "done") == 0);
	usleep(100000);
	CHECK(account_window_end(a, &w) == 0);
	printf("# %s: alloc 100 MiB -> anon p50 %.1f MiB max %.1f MiB, peak %s %.1f MiB\n", w.backend,
	       w.anon_p50 / 1048576, w.anon_max / 1048576, w.has_peak ? w.peak_scope : "-",
	       w.mem_peak / 1048576.0);
	NEAR(w.anon_max, 104857600, 104857600 * MEM_TOL, "acceptance: within 10% of the 100 MiB touched");
	if (w.nsamples)
		NEAR(w.samples[w.nsamples - 1].anon, 104857600, 104857600 * MEM_TOL, "last sample");
	if (b != ACCT_PROCFS) {
		CHECK(w.has_peak);
		CHECK(w.mem_peak >= 100 * 1048576ull);
	}
	account_window_release(&w);
	finish(a, pid, fd);
}

static void real_forker(enum acct_backend b, int linger_children)
{
	char *args[] = { "--children", "4", "--cpu", "0.125", "--delay-ms", "300", "--linger",
			 linger_children ? "--linger-children" : NULL, NULL };
	struct account *a = account_create(b, "test-forker", NULL, 50);
	struct account_window w;
	pid_t pid;
	int fd;

	CHECK(a != NULL);
	if (!a)
		return;
	pid = spawn(a, "forker", args, &fd);
	CHECK(wait_for(fd, "ready") == 0);
	CHECK(account_window_begin(a) == 0);
	CHECK(wait_for(fd, "done") == 0);
	usleep(50000);
	CHECK(account_window_end(a, &w) == 0);
	printf("# %s: forker 4 x 0.125 s (%s) -> cpu_s %.4f, processes now %d\n", w.backend,
	       linger_children ? "children alive" : "children reaped", w.cpu_s,
	       account_nprocs(a));
	NEAR(w.cpu_s, 0.5, 0.5 * CPU_TOL, "the whole tree, within 5%");
	if (linger_children)
		CHECK(account_nprocs(a) == 5);
	account_window_release(&w);
	finish(a, pid, fd);
}

/* A busy process frozen uses no CPU, thawed runs again, and dies of
 * account_kill_all while frozen (a v1 frozen task ignores SIGKILL until
 * thawed: kill_all thaws first). procfs has no freezer. */
static void real_freeze(enum acct_backend b)
{
	char *args[] = { "--cpu", "30", "--linger", NULL };
	struct account *a = account_create(b, "test-freeze", NULL, 50);
	double c0 = 0, c1 = 0, c2 = 0;
	pid_t pid;
	int fd, st;

	CHECK(a != NULL);
	if (!a)
		return;
	if (!account_freezer(a)) {
		printf("# %s: no freezer here\n", account_backend_name(b));
		CHECK(account_freeze(a, 1) == -ENOTSUP);
		account_free(a);
		return;
	}
	pid = spawn(a, "burn", args, &fd);
	CHECK(wait_for(fd, "ready") == 0);
	CHECK(account_freeze(a, 1) == 0);
	CHECK(account_cpu_now(a, &c0) == 0);
	usleep(300000);
	CHECK(account_cpu_now(a, &c1) == 0);
	CHECK(account_freeze(a, 0) == 0);
	usleep(300000);
	CHECK(account_cpu_now(a, &c2) == 0);
	printf("# %s: %s: frozen 0.3 s -> cpu %.4f s, thawed 0.3 s -> cpu %.4f s\n",
	       account_backend_name(b), account_freezer(a), c1 - c0, c2 - c1);
	/* frozen: nothing runs (1 ms: the accounting's own granularity) */
	CHECK(c1 - c0 < 0.001);
	/* thawed it spins again; a shared 2-core host gives it at least some */
	CHECK(c2 - c1 > 0.02);
	CHECK(account_freeze(a, 1) == 0);
	CHECK(account_kill_all(a, 2.0) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(fd);
	account_free(a);
}

/* A measured arm's CPU weight, read back from the kernel's files: ten
 * times the default in its cgroup and in harness/ (cgroup1 cpu.shares,
 * cgroup2 cpu.weight); a build's (cpu_weight_raise 0) untouched. */
static void real_weight(enum acct_backend b)
{
	struct account_limits lim = { 0, 0, NULL, 0, 1 };
	const char *file = b == ACCT_CGROUP1 ? "cpu.shares" : "cpu.weight";
	const char *want = b == ACCT_CGROUP1 ? "10240\n" : "1000\n";
	struct account *a = account_create(b, "test-weight", &lim, 50), *plain;
	const char *const *dirs;
	char path[4096], *slash;
	size_t n, i, seen = 0;

	CHECK(a != NULL);
	if (!a)
		return;
	printf("# %s: %s\n", account_backend_name(b), account_cpu_weight(a));
	dirs = account_dirs(a, &n);
	for (i = 0; i < n; i++) {
		if (acct_read(dirs[i], file, path, sizeof(path)) < 0)
			continue;       /* not the cpu hierarchy */
		seen++;
		CHECK(!strcmp(path, want));
		snprintf(path, sizeof(path), "%s", dirs[i]);
		slash = strrchr(path, '/');
		if (slash)
			*slash = '\0';
		CHECK(file_is(path, file, want));
	}
	if (account_cpu_weight(a) && !strstr(account_cpu_weight(a), "not raised"))
		CHECK(seen == 1);
	lim.cpu_weight_raise = 0;
	plain = account_create(b, "test-weight-build", &lim, 50);
	CHECK(plain != NULL && account_cpu_weight(plain) == NULL);
	account_free(plain);
	account_free(a);
}

TEST(real_backends)
{
	enum acct_backend all[] = { ACCT_CGROUP2, ACCT_CGROUP1, ACCT_PROCFS };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (!account_available(all[i])) {
			printf("# %s: not available here, skipped\n", account_backend_name(all[i]));
			continue;
		}
		if (all[i] != ACCT_PROCFS)
			real_weight(all[i]);
		real_burn(all[i]);
		real_wait(all[i]);
		real_alloc(all[i]);
		real_forker(all[i], 0);
		real_forker(all[i], 1);
		real_freeze(all[i]);
	}
}

/* The procfs backend keeps the root's final CPU once it is reaped. */
TEST(procfs_root_reaped)
{
	char *args[] = { "--cpu", "0.3", "--delay-ms", "300", NULL };
	struct account *a = account_create(ACCT_PROCFS, "x", NULL, 50);
	struct account_window w;
	struct rusage ru;
	int fd, st;
	pid_t pid;

	pid = spawn(a, "burn", args, &fd);
	CHECK(wait_for(fd, "ready") == 0);
	CHECK(account_window_begin(a) == 0);
	CHECK(wait4(pid, &st, 0, &ru) == pid);
	account_note_reaped(a, &ru);
	CHECK(account_window_end(a, &w) == 0);
	NEAR(w.cpu_s, 0.3, 0.3 * CPU_TOL, "within 5%, from the reaped root's rusage");
	account_window_release(&w);
	close(fd);
	account_free(a);
}

/* A cgroup named for a dead owner, holding a live process, is reaped. */
TEST(reap_leftovers)
{
	char *args[] = { "--cpu", "0", "--linger", NULL };
	struct account *probe;
	char *mnt, *parent, *dir, name[128], procs[1024];
	pid_t dead, pid;
	int fd, st;

	if (!account_available(ACCT_CGROUP1) && !account_available(ACCT_CGROUP2)) {
		printf("# no cgroup backend here, skipped\n");
		return;
	}
	dead = fork();
	if (!dead)
		_exit(0);
	waitpid(dead, &st, 0);
	snprintf(name, sizeof(name), "h%d_12345_leftover", (int)dead);
	if (account_available(ACCT_CGROUP2))
		mnt = acct_find_mount("cgroup2", NULL);
	else
		mnt = acct_find_mount("cgroup", "cpuacct");
	parent = acct_mkdir(mnt, "harness");
	dir = parent ? acct_mkdir(parent, name) : NULL;
	CHECK(dir != NULL);
	if (!dir)
		return;
	{
		const char *dirs[] = { dir, dir };
		probe = account_open_dirs(account_available(ACCT_CGROUP2) ? ACCT_CGROUP2 : ACCT_CGROUP1,
					  dirs, 2, 50);
	}
	CHECK(acct_add_dir(probe, dir, 1) == 0);
	pid = spawn(probe, "burn", args, &fd);
	usleep(100000);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	/* Reaping is host-wide: a second test suite or any harness starting
	 * beside this one (every run reaps) may reap this leftover first,
	 * even before we count it (then 0, and our call counts 0). What must
	 * hold either way: the process is SIGKILLed (it was in the cgroup:
	 * nothing else kills it) and the cgroup is gone once the call
	 * returns. */
	CHECK(acct_count_procs(procs) <= 1);
	CHECK(account_reap_leftovers() >= 0);
	{
		pid_t got = 0;
		int i;

		/* 10 s: a loaded host; burn --linger never exits by itself */
		for (i = 0; i < 1000 && got == 0; i++) {
			got = waitpid(pid, &st, WNOHANG);
			if (got == 0)
				usleep(10000);
		}
		CHECK(got == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		if (got == 0) {  /* nothing reaped it: clean up, the check failed */
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
	}
	CHECK(access(dir, F_OK) != 0);
	close(fd);
	account_free(probe);
	free(mnt);
	free(parent);
	free(dir);
}

int main(void)
{
	const char *h = getenv("HELPERS");

	snprintf(helpers, sizeof(helpers), "%s", h ? h : "build/release/helpers");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* instrumented helpers: no leak scan at exit inside the windows */
	setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	RUN(cgroup2_fake_deltas);
	RUN(cgroup2_fake_create);
	RUN(cgroup1_fake_deltas);
	RUN(cgroup2_fake_freeze);
	RUN(quantiles_nearest_rank);
	RUN(backend_names);
	RUN(real_backends);
	RUN(procfs_root_reaped);
	RUN(reap_leftovers);
	return t_done();
}
