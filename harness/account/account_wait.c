/*
 * account_wait: how long an arm's threads waited for a CPU over a window
 * (account.h struct account_window, wait_s; docs/DESIGN.md "An arm's CPU
 * weight"). The kernel keeps, per thread, the nanoseconds it spent
 * runnable but not running (schedstat's run_delay, the second field of
 * /proc/PID/task/TID/schedstat), for every backend alike: the threads are
 * those of the cgroup's processes (cgroup.procs, v1 or v2) or of the
 * procfs tree. A window's wait is, per thread alive at its end, the
 * increase since its start (all of it for a thread born in the window);
 * a thread that exited within the window takes its wait with it, so the
 * figure is a lower bound. Evidence only: no gate reads it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account/account_backend.h"
#include "base/util.h"

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = ((const struct acct_thread_wait *)a)->tid;
	pid_t y = ((const struct acct_thread_wait *)b)->tid;

	return (x > y) - (x < y);
}

/* The threads of process pid appended to w with their run_delay. */
static void add_threads(struct acct_wait *w, pid_t pid)
{
	char path[320];
	DIR *d;
	struct dirent *de;
	unsigned long long run, delay;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/schedstat", (int)pid, tid);
		if (!(f = fopen(path, "re")))
			continue;
		ok = fscanf(f, "%llu %llu", &run, &delay) == 2;
		fclose(f);
		if (!ok)
			continue;
		XGROW(w->v, w->alloc, w->n + 1);
		w->v[w->n].tid = (pid_t)tid;
		w->v[w->n++].ns = delay;
	}
	closedir(d);
}

int acct_wait_read(const pid_t *pids, size_t n, struct acct_wait *w)
{
	size_t i;

	w->n = 0;
	for (i = 0; i < n; i++)
		add_threads(w, pids[i]);
	if (!w->n)
		return -1;
	qsort(w->v, w->n, sizeof(*w->v), cmp_tid);
	return 0;
}

double acct_wait_delta(const struct acct_wait *begin, const struct acct_wait *end)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < end->n; i++) {
		const struct acct_thread_wait *p = begin->n
			? bsearch(&end->v[i], begin->v, begin->n, sizeof(*begin->v), cmp_tid) : NULL;
		uint64_t b = p ? p->ns : 0;

		/* a smaller count is a reused tid: a new thread, all of it */
		total += end->v[i].ns >= b ? end->v[i].ns - b : end->v[i].ns;
	}
	return (double)total / 1e9;
}

void acct_wait_release(struct acct_wait *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}
