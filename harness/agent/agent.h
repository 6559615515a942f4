/*
 * agent: `harness agent`, the far end of the agent protocol
 * (docs/AGENT_PROTOCOL.md). It reads frames on standard input and writes
 * frames on standard output; the coordinator starts it as
 * `ssh -T DEST BINARY agent` (or directly, for a `local` generator).
 *
 * Lifetime: the agent exits when its standard input closes (the
 * coordinator died, or its ssh connection dropped), at once, with any
 * load it was driving; it also asks the kernel to kill it when its
 * parent dies. A load runs on its own thread so the agent keeps answering
 * clock exchanges and STOP during it.
 *
 * Clock: the protocol's times are the agent's CLOCK_REALTIME in ns.
 * TEST-ONLY: HARNESS_TEST_AGENT_SKEW_MS (testhook.h) (a number of ms) is added to that
 * clock, as if the host's clock were off by that much; the coordinator's
 * offset measurement must find it (tests/e2e/agent_load.sh).
 */
#ifndef HARNESS_AGENT_H
#define HARNESS_AGENT_H

#include <stdint.h>

/* Bumped on any change of a frame's payload. */
#define AGENT_PROTOCOL 10

/* What `harness agent --version` prints (one line, no newline) into buf:
 * "harness-agent <protocol> <harness version>". The coordinator compares
 * its own with the agent's before starting anything. */
const char *agent_version_line(char *buf, size_t len);

/* CLOCK_REALTIME in ns. */
int64_t agent_wall_ns(void);

/* Serve the protocol on in/out until in closes. Returns an exit code. */
int agent_serve(int in, int out);

struct sbuf;
/* The HELLO payload (docs/AGENT_PROTOCOL.md): protocol, version line,
 * host name, and the address the coordinator reached this host at (the
 * server address of $SSH_CONNECTION; 127.0.0.1 without ssh). */
void agent_hello_payload(struct sbuf *sb);

#endif
