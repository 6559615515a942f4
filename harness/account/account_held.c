/*
 * account_held: how long the host held an arm's threads over a window
 * (account.h struct account_window held_s, held_max_s, foreign_cpu_s;
 * gates/host_held.c judges them; docs/DESIGN.md "Host-held windows").
 *
 * At every sample of the accounting sampler (account_base.c, every
 * sample_ms) it reads, per thread of the arm, schedstat's run_delay (the
 * nanoseconds runnable but not running), the host's busy CPU time
 * (/proc/stat's first line: everything but idle and iowait, steal
 * included), the arm's CPU (its cgroup or tree) and this process's own
 * CPU (the harness: load generator, sampler). Over each interval between
 * two samples:
 *
 *   foreign = host busy - arm - this process   (CPU seconds, >= 0)
 *   share   = foreign / (foreign + arm)        (0..1)
 *   held    = wait x share                     (wait: the threads' sum)
 *
 * share is the part of the CPU the arm competed for that went to work
 * outside the arm and the harness: other processes, other harnesses' arms,
 * interrupts, the hypervisor (steal). The threads' wait is counted
 * host-held in that share; each thread takes its part (its wait / the
 * sum). An arm that starves itself (busy loops, more runnable threads
 * than cores) makes its threads wait for its own CPU: its own CPU is then
 * most of what ran and the share is small, so held_s / wait_s (the host's
 * share of its wait) stays small unless the host took more CPU than the
 * arm. The arm cannot make foreign CPU: the figure is evidence from
 * outside its control.
 *
 * held_s sums the intervals' held wait, wait_s their whole wait (so
 * held_s / wait_s is the host's share of what the arm waited); held_max_s is the largest one
 * thread's part within one interval: the longest the host kept one
 * thread of the arm from running, which a request in that thread waits
 * on top of its service time. Threads alive at both samples of an
 * interval count (one born in it: all its wait); one that exited between
 * two samples takes that interval's wait along.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "account/account_backend.h"
#include "base/util.h"

/* Busy CPU seconds of the whole host since boot: /proc/stat's cpu line,
 * user nice system irq softirq steal (guest is inside user). -1: unread. */
static int host_busy_s(double *out)
{
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8 || hz <= 0)
		return -1;
	*out = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
	return 0;
}

static double process_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = ((const struct acct_thread_wait *)a)->tid;
	pid_t y = ((const struct acct_thread_wait *)b)->tid;

	return (x > y) - (x < y);
}

void acct_held_sample(struct acct_held *h, const pid_t *pids, size_t n, double arm_cpu_s)
{
	struct acct_wait cur;
	double busy, self = process_cpu_s(), foreign, arm, share, held, sum = 0, max = 0;
	size_t i;

	memset(&cur, 0, sizeof(cur));
	if (host_busy_s(&busy) || acct_wait_read(pids, n, &cur)) {
		acct_wait_release(&cur);
		return;
	}
	if (h->have_prev) {
		arm = arm_cpu_s - h->arm_prev;
		if (arm < 0)
			arm = 0;
		foreign = (busy - h->busy_prev) - arm - (self - h->self_prev);
		if (foreign < 0)
			foreign = 0;
		share = foreign + arm > 0 ? foreign / (foreign + arm) : 0;
		for (i = 0; i < cur.n; i++) {
			const struct acct_thread_wait *p = h->prev.n
				? bsearch(&cur.v[i], h->prev.v, h->prev.n, sizeof(*h->prev.v), cmp_tid)
				: NULL;
			uint64_t b = p ? p->ns : 0;
			double d = (double)(cur.v[i].ns >= b ? cur.v[i].ns - b : cur.v[i].ns) / 1e9;

			sum += d;
			if (d > max)
				max = d;
		}
		/* The wait in the foreign share; each thread takes its part.
		 * Not capped by the foreign CPU: a light arm's threads need
		 * microseconds each, and thirty of them held 100 ms at once by
		 * a host stall waited 3 s for 0.1 s of foreign CPU. */
		held = sum * share;
		h->held_s += held;
		h->wait_s += sum;
		if (sum > 0 && max * held / sum > h->held_max_s)
			h->held_max_s = max * held / sum;
		h->foreign_s += foreign;
		h->intervals++;
	}
	acct_wait_release(&h->prev);
	h->prev = cur;
	h->busy_prev = busy;
	h->self_prev = self;
	h->arm_prev = arm_cpu_s;
	h->have_prev = 1;
}

void acct_held_release(struct acct_held *h)
{
	acct_wait_release(&h->prev);
	memset(h, 0, sizeof(*h));
}
