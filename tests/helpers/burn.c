/*
 * burn: a process that burns a known amount of CPU, for the accounting
 * tests.
 *
 *   burn [--cpu S] [--delay-ms D] [--linger]
 *
 * Prints "ready", sleeps D ms (default 0: lets the test open its window
 * first), then spins
 * until its own process CPU clock has advanced by S seconds (default 0.5),
 * prints "done cpu=<seconds burnt>" on stdout, and exits 0, or with
 * --linger sleeps until killed (so a procfs tree still shows it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double cpu, t0;
	const char *cpus = NULL;
	int linger = 0, i;
	volatile unsigned long x = 0;

	if (workload_start(argc, argv, "--cpu", &cpus, &linger,
			   "usage: burn [--cpu S] [--delay-ms D] [--linger]"))
		return 2;
	cpu = cpus ? atof(cpus) : 0.5;
	t0 = cpu_now();
	while (cpu_now() - t0 < cpu)
		for (i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
	printf("done cpu=%.6f\n", cpu_now() - t0);
	workload_done(linger);
	return 0;
}
