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

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double cpu = 0.5, t0;
	long delay_ms = 0;
	int linger = 0, i;
	volatile unsigned long x = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atof(argv[++i]);
		else if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--linger"))
			linger = 1;
		else {
			fprintf(stderr, "usage: burn [--cpu S] [--delay-ms D] [--linger]\n");
			return 2;
		}
	}
	/* start-up (dynamic loading, sanitizer set-up) is over: a test opens
	 * its window after this line, before the delay ends */
	printf("ready\n");
	fflush(stdout);
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000);
	t0 = cpu_now();
	while (cpu_now() - t0 < cpu)
		for (i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
	printf("done cpu=%.6f\n", cpu_now() - t0);
	fflush(stdout);
	while (linger)
		pause();
	return 0;
}
