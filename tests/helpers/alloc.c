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

#include "workload.h"

int main(int argc, char **argv)
{
	long mb, page = sysconf(_SC_PAGESIZE);
	const char *mbs = NULL;
	int linger = 0;
	size_t n, off;
	volatile char *p;

	if (workload_start(argc, argv, "--mb", &mbs, &linger,
			   "usage: alloc [--mb M] [--delay-ms D] [--linger]"))
		return 2;
	mb = mbs ? atol(mbs) : 100;
	n = (size_t)mb << 20;
	p = malloc(n);
	if (!p) {
		fprintf(stderr, "alloc: cannot allocate %ld MiB\n", mb);
		return 1;
	}
	for (off = 0; off < n; off += (size_t)page)
		p[off] = 1;
	printf("done bytes=%zu\n", n);
	workload_done(linger);
	free((void *)p);
	return 0;
}
