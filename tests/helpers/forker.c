/*
 * forker: a process tree for the accounting and no-leftover tests.
 *
 *   forker [--children N] [--cpu S] [--delay-ms D] [--linger-children]
 *          [--linger] [--port P] [--pid-file F]
 *
 * Prints "ready", sleeps D ms, forks N children (default 4), each of which burns S seconds
 * of CPU (default 0.25). Without --linger-children each child then exits and
 * the parent reaps it; with it, each child reports to the parent and sleeps
 * until killed. When all children have burnt, the parent prints
 * "done children=N" and exits, or with --linger (or --port) stays. With
 * --port P it answers every HTTP request on 127.0.0.1:P with 200 "ok" (one
 * at a time), so it can stand as an implementation with a health URL.
 * --pid-file F: write every pid of the tree (parent first), one a line.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn(double s)
{
	double t0 = cpu_now();
	volatile unsigned long x = 0;
	int i;

	while (cpu_now() - t0 < s)
		for (i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
}

static void serve(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), c, one = 1;
	char buf[4096];
	static const char resp[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		perror("forker: bind");
		exit(1);
	}
	for (;;) {
		c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		if (read(c, buf, sizeof(buf)) > 0 && write(c, resp, sizeof(resp) - 1) < 0)
			perror("forker: write");
		close(c);
	}
}

int main(int argc, char **argv)
{
	int n = 4, linger = 0, linger_children = 0, port = 0, i, p[2];
	double cpu = 0.25;
	long delay_ms = 0;
	const char *pid_file = NULL;
	FILE *pf = NULL;
	char c;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--children") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atof(argv[++i]);
		else if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--linger-children"))
			linger_children = 1;
		else if (!strcmp(argv[i], "--linger"))
			linger = 1;
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pid-file") && i + 1 < argc)
			pid_file = argv[++i];
		else {
			fprintf(stderr, "usage: forker [--children N] [--cpu S] [--delay-ms D] "
					"[--linger-children] [--linger] [--port P] [--pid-file F]\n");
			return 2;
		}
	}
	/* start-up (dynamic loading, sanitizer set-up) is over: a test opens
	 * its window after this line, before the delay ends */
	printf("ready\n");
	fflush(stdout);
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000);
	if (pipe(p))
		return 1;
	if (pid_file) {
		pf = fopen(pid_file, "w");
		if (pf)
			fprintf(pf, "%d\n", (int)getpid());
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (!pid) {
			close(p[0]);
			burn(cpu);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			while (linger_children)
				pause();
			_exit(0);
		}
		if (pf)
			fprintf(pf, "%d\n", (int)pid);
	}
	if (pf)
		fclose(pf);
	close(p[1]);
	for (i = 0; i < n; i++)
		if (read(p[0], &c, 1) != 1)
			break;
	if (!linger_children)
		while (wait(NULL) > 0)
			;
	printf("done children=%d\n", n);
	fflush(stdout);
	if (port)
		serve(port);
	while (linger)
		pause();
	return 0;
}
