/*
 * netns: sockets created in another network namespace (see netns.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/netns.h"
#include "base/util.h"

static int host_fd = -1;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* The harness's own namespace, opened once: every thread of the harness
 * lives in it except inside netns_socket. */
static void host_open(void)
{
	host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

int netns_open(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("%s: cannot open the sandbox's network namespace: %s", path,
			     strerror(errno));
	return fd;
}

int netns_socket(int nsfd, int domain, int type, int proto)
{
	int fd, saved;

	if (nsfd <= 0)
		return socket(domain, type, proto);
	pthread_once(&host_once, host_open);
	if (host_fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (setns(nsfd, CLONE_NEWNET))
		return -1;
	fd = socket(domain, type, proto);
	saved = errno;
	if (setns(host_fd, CLONE_NEWNET)) {
		/* why abort: this thread would go on connecting inside the
		 * sandbox's network, measuring and reaching the wrong things */
		fprintf(stderr, "harness: cannot return to the harness's network namespace: %s\n",
			strerror(errno));
		abort();
	}
	errno = saved;
	return fd;
}

static curl_socket_t open_cb(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	const int *nsfd = clientp;
	int fd;

	(void)purpose;
	fd = netns_socket(*nsfd, a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	return fd < 0 ? CURL_SOCKET_BAD : fd;
}

void netns_curl(CURL *c, const int *nsfd)
{
	if (!nsfd || *nsfd <= 0)
		return;
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_cb);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, (void *)nsfd);
}
