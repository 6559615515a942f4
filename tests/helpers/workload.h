/*
 * workload.h: what the accounting tests' workloads (alloc.c, burn.c)
 * share: their two common flags and the lines a test waits for.
 */
#ifndef TESTS_HELPERS_WORKLOAD_H
#define TESTS_HELPERS_WORKLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The start of a workload: its command line (its own flag `own` with a
 * value, the last one given into *own_val; --delay-ms D; --linger into
 * *linger; anything else: the usage line on stderr and -1), then "ready" on
 * stdout and D ms of sleep. Start-up (dynamic loading, sanitizer set-up)
 * is over at that line: a test opens its window after it, before the delay
 * ends.
 */
static int workload_start(int argc, char **argv, const char *own, const char **own_val,
			  int *linger, const char *usage)
{
	long delay_ms = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], own) && i + 1 < argc)
			*own_val = argv[++i];
		else if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--linger"))
			*linger = 1;
		else {
			fprintf(stderr, "%s\n", usage);
			return -1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000);
	return 0;
}

/* After the "done" line: flushed, and with linger kept alive until killed. */
static void workload_done(int linger)
{
	fflush(stdout);
	while (linger)
		pause();
}

#endif
