/*
 * footprint (harness/account/footprint.h): each figure against an independent
 * reading. Memory: Rss from /proc/PID/smaps_rollup against VmRSS of
 * /proc/PID/status (the kernel's other account of the same pages), for
 * this process after touching 32 MiB, and for a child process group
 * summed. Artifact: a directory of files of known sizes (a symbolic link
 * not followed) against their sizes by stat.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "account/footprint.h"
#include "t.h"

/* VmRSS of pid from /proc/PID/status, kB; -1 when absent. */
static long long status_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The status file's RSS counters are per-thread batched (up to 64 pages
 * a thread, 256 KiB, may lag): 1 MiB covers that and the few pages the
 * reads themselves touch. */
#define RSS_TOL_KB 1024

TEST(process_memory_matches_status)
{
	size_t n = 32u << 20;
	char *p = malloc(n);
	int64_t rss, pss;
	long long st;

	CHECK(p != NULL);
	memset(p, 1, n);   /* resident: 32 MiB of it */
	CHECK(p[n - 1] == 1);   /* read: the memset stays */
	CHECK(footprint_pid(getpid(), &rss, &pss) == 0);
	st = status_rss_kb(getpid());
	NEAR(rss, st, RSS_TOL_KB, "status VmRSS, batched counters");
	CHECK(rss >= 32 * 1024);
	CHECK(pss > 0 && pss <= rss);
	CHECK(footprint_pid(999999999, &rss, &pss) == -1 && rss == -1 && pss == -1);
	free(p);
}

/* A child in a process group of its own with two processes (it forks
 * once): the group's sum is the sum of their status files. Once both
 * are reaped the group has none: this process is their subreaper, so
 * the grandchild, orphaned when the child dies, is waited for too (a
 * killed process is read until it has exited: without the wait the
 * grandchild, still tearing down its 8 MiB, was counted in 1 of 100
 * runs). */
TEST(group_sums_its_processes)
{
	int fds[2];
	pid_t kid;
	int64_t rss, pss;
	long long a, b;
	pid_t grandkid = 0;

	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	CHECK(pipe(fds) == 0);
	kid = fork();
	if (kid == 0) {
		pid_t g;

		setpgid(0, 0);
		g = fork();
		if (g == 0) {
			volatile char *m = malloc(8u << 20);
			size_t k;

			/* volatile: a memset of memory never read may be elided */
			for (k = 0; m && k < (8u << 20); k += 4096)
				m[k] = 2;
			/* said once its 8 MiB are resident */
			g = getpid();
			if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
				_exit(1);
			pause();
			_exit(0);
		}
		pause();
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &grandkid, sizeof(grandkid)) == (ssize_t)sizeof(grandkid));
	close(fds[0]);
	CHECK(footprint_group(kid, &rss, &pss) == 2);
	a = status_rss_kb(kid);
	b = status_rss_kb(grandkid);
	NEAR(rss, a + b, 2 * RSS_TOL_KB, "two status files, batched counters");
	CHECK(rss >= 8 * 1024 && pss <= rss);
	kill(-kid, SIGKILL);
	waitpid(kid, NULL, 0);
	CHECK(waitpid(grandkid, NULL, 0) == grandkid);
	CHECK(footprint_group(kid, &rss, &pss) == 0 && rss == -1);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

static void write_n(const char *path, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char buf[4096];
	size_t left = n;

	memset(buf, 'x', sizeof(buf));
	while (left) {
		size_t k = left < sizeof(buf) ? left : sizeof(buf);

		if (write(fd, buf, k) != (ssize_t)k)
			break;
		left -= k;
	}
	close(fd);
}

TEST(artifact_sizes_are_stats)
{
	char dir[] = "/tmp/test_footprint.XXXXXX", p[300], big[300];
	struct stat st;
	int64_t want = 0;
	char why[300];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/bin", dir);
	write_n(p, 12345);
	CHECK(stat(p, &st) == 0);
	want += st.st_size;
	CHECK(footprint_artifact_bytes(p, NULL, 0) == st.st_size);
	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/lib.so", dir);
	write_n(p, 70000);
	CHECK(stat(p, &st) == 0);
	want += st.st_size;
	snprintf(p, sizeof(p), "%s/sub/empty", dir);
	write_n(p, 0);
	/* a link to a file outside: its target is not the artifact's */
	snprintf(big, sizeof(big), "%s.big", dir);
	write_n(big, 1 << 20);
	snprintf(p, sizeof(p), "%s/sub/link", dir);
	CHECK(symlink(big, p) == 0);
	CHECK(footprint_artifact_bytes(dir, why, sizeof(why)) == want);
	snprintf(p, sizeof(p), "%s/none", dir);
	CHECK(footprint_artifact_bytes(p, why, sizeof(why)) == -1);
	CHECK(strstr(why, "No such file") != NULL);
	unlink(big);
	{
		static const char *const files[] = { "sub/link", "sub/empty", "sub/lib.so", "bin" };
		size_t i;

		for (i = 0; i < 4; i++) {
			snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
			unlink(p);
		}
		snprintf(p, sizeof(p), "%s/sub", dir);
		rmdir(p);
		rmdir(dir);
	}
}

int main(void)
{
	RUN(process_memory_matches_status);
	RUN(group_sums_its_processes);
	RUN(artifact_sizes_are_stats);
	return t_done();
}
