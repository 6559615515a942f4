/*
 * alloc: a process that allocates and touches a known amount of anonymous
 * memory, for the accounting tests.
 *
 *   alloc [--mb M] [--delay-ms D] [--linger]
 *
 * Prints "ready", sleeps D ms, mallocs M MiB (default 100) and writes a non-zero byte into
 * every page (so each is really backed), prints "done bytes=<n>" and exits,
 * or with --linger keeps the memory until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mb = 100, delay_ms = 0, page = sysconf(_SC_PAGESIZE);
	int linger = 0, i;
	size_t n, off;
	volatile char *p;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mb") && i + 1 < argc)
			mb = atol(argv[++i]);
		else if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--linger"))
			linger = 1;
		else {
			fprintf(stderr, "usage: alloc [--mb M] [--delay-ms D] [--linger]\n");
			return 2;
		}
	}
	/* start-up (dynamic loading, sanitizer set-up) is over: a test opens
	 * its window after this line, before the delay ends */
	printf("ready\n");
	fflush(stdout);
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000);
	n = (size_t)mb << 20;
	p = malloc(n);
	if (!p) {
		fprintf(stderr, "alloc: cannot allocate %ld MiB\n", mb);
		return 1;
	}
	for (off = 0; off < n; off += (size_t)page)
		p[off] = 1;
	printf("done bytes=%zu\n", n);
	fflush(stdout);
	while (linger)
		pause();
	free((void *)p);
	return 0;
}
