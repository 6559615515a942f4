/*
 * netns: sockets opened inside another process's network namespace.
 *
 * A sandboxed implementation (jail.h) listens on the loopback of its own
 * network namespace, which nothing outside can reach. The harness talks to
 * it by creating its client sockets in that namespace: the calling thread
 * enters the namespace (setns), calls socket(), and returns to the
 * harness's own namespace. A socket stays in the namespace it was created
 * in, so connect/send/recv afterwards need nothing special; only socket()
 * pays the two setns calls (once per connection, not per request).
 *
 * Descriptors: a namespace is named by an open descriptor of
 * /proc/PID/ns/net (netns_open), owned by the caller. Everywhere a netns
 * descriptor is taken, a value <= 0 means "the harness's own namespace"
 * (configs are zero-initialised; a namespace descriptor is never 0 while
 * stdin is open).
 *
 * Threads: every function may be called from any thread; setns changes
 * only the calling thread's namespace, and it is restored before return.
 * Needs CAP_SYS_ADMIN (the harness runs untrusted code as root).
 */
#ifndef HARNESS_NETNS_H
#define HARNESS_NETNS_H

#include <curl/curl.h>
#include <sys/types.h>

/* Open /proc/<pid>/ns/net (close-on-exec). -1 after one error() line. */
int netns_open(pid_t pid);

/*
 * socket(domain, type, proto) created in the namespace nsfd (<= 0: here).
 * -1 with errno set when it fails (entering or leaving the namespace
 * included; a thread that could not return to the harness's namespace
 * aborts the process rather than go on measuring the wrong network).
 */
int netns_socket(int nsfd, int domain, int type, int proto);

/*
 * Make libcurl handle c open its sockets in the namespace *nsfd
 * (CURLOPT_OPENSOCKETFUNCTION); nothing when nsfd is NULL or *nsfd <= 0.
 * *nsfd must outlive the handle's transfers.
 */
void netns_curl(CURL *c, const int *nsfd);

#endif
