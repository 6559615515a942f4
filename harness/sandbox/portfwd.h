/*
 * portfwd: the run's dependencies, reachable from inside a sandbox's
 * network namespace, and nothing else.
 *
 * A jailed implementation (jail.h) has its own loopback: 127.0.0.1:P of
 * a dependency the spec gives it ({dep.NAME.port}) is empty there. For
 * each such port the harness listens on 127.0.0.1:P inside the namespace
 * (a socket made there, netns.h) and relays every connection accepted
 * there to 127.0.0.1:P of the harness's own network, byte for byte in
 * both directions, until either side closes. Only those ports are
 * forwarded; every other address stays unreachable from the sandbox.
 *
 * portfwd_inward relays the other way (the host's port into the
 * namespace), for a jailed implementation on an agent's host.
 *
 * Threads: one per forwarder, whatever the sandbox does: an epoll loop
 * over its listeners and its connections, non-blocking, a 16 KiB buffer
 * per direction (a full one stalls that direction only). Descriptors:
 * two per relayed connection, and portfwd_start relays at most max_conns
 * at once: one more is closed as soon as it is accepted, and counted
 * (portfwd_refused), so a sandbox cannot make the harness spend threads
 * or descriptors beyond that bound. portfwd_start and portfwd_stop are
 * called from one thread (the owner's).
 */
#ifndef HARNESS_PORTFWD_H
#define HARNESS_PORTFWD_H

#include <stddef.h>

struct portfwd;

/*
 * Listen on 127.0.0.1:ports[i] inside the namespace netns_fd (the
 * caller's descriptor; only used here) and relay to 127.0.0.1:ports[i]
 * outside. A namespace that has no 127.0.0.1 yet (bwrap's, just cloned)
 * is waited for, up to 10 s. NULL after one error() line (a port that
 * cannot be bound). At most max_conns connections relayed at once (all
 * ports; 0: no bound), see above.
 */
struct portfwd *portfwd_start(int netns_fd, const int *ports, size_t n, unsigned max_conns);

/*
 * The other way round, for an implementation jailed on an agent's host
 * (sut_agent.h) that the load reaches from the network: listen on port
 * on every address of this host (the harness's own namespace) and relay
 * each connection to 127.0.0.1:port inside the namespace netns_fd (the
 * caller's descriptor, valid until portfwd_stop). NULL after one error()
 * line.
 */
struct portfwd *portfwd_inward(int netns_fd, int port);

/* Connections relayed so far (all ports). */
unsigned long portfwd_count(struct portfwd *f);
/* Connections closed unrelayed at max_conns so far; NULL: 0. */
unsigned long portfwd_refused(struct portfwd *f);

/* Close the listeners and every relayed connection, join the threads,
 * free. NULL: nothing. */
void portfwd_stop(struct portfwd *f);

#endif
