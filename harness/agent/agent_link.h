/*
 * agent_link: the coordinator's end of one agent (agent.h): started as
 * `ssh -T [-o OPTION]... DEST BINARY agent`, or, for the destination
 * `local`, as this binary's own `harness agent` on pipes.
 *
 * Before anything runs, `BINARY agent --version` is run on the host (a
 * separate ssh call) and its line compared with this binary's: a
 * different protocol or harness version is refused (the caller exits 3).
 * Then the agent is started and its HELLO checked again.
 *
 * Clock: agent_link_sync measures the agent's clock offset with the
 * four-timestamp exchange (t1 coordinator send, t2 agent receive, t3
 * agent send, t4 coordinator receive; offset = ((t2 - t1) + (t3 - t4)) / 2,
 * round trip = (t4 - t1) - (t3 - t2)) over several rounds and keeps the
 * round with the shortest round trip; its uncertainty is half that round
 * trip (the true offset lies within offset +- uncertainty whatever the
 * split of the round trip between the two directions).
 *
 * Ownership: a link owns its child process and pipes; agent_link_close
 * closes the agent's standard input (the agent exits), waits for the
 * child a little, then kills it. Not thread-safe.
 */
#ifndef HARNESS_AGENT_LINK_H
#define HARNESS_AGENT_LINK_H

#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"

struct agent_opts {
	const char *binary;            /* the agent's harness on the host; NULL: "harness" */
	const char *const *ssh_options; /* each passed as -o OPTION, before ours */
	size_t nssh_options;
	int sut;                       /* start `agent --sut` (sut_agent.h) */
};

struct agent_link {
	char *dest;               /* as given */
	pid_t pid;                /* ssh (or the local agent); 0 when none */
	int to, from;             /* its standard input, its standard output */
	char *host;               /* the agent's host name (HELLO) */
	char *address;            /* the address ssh reached it at (HELLO) */
	/* The last agent_link_sync. */
	int64_t offset_ns;        /* agent clock - coordinator clock */
	int64_t uncert_ns;        /* half the best round trip */
	int lost;                 /* the channel broke */
};

/* 1 when dest names the local host ("local"). */
int agent_dest_is_local(const char *dest);
/* A destination ssh could take, and not an option: 0, or -1 with *why. */
int agent_dest_check(const char *dest, const char **why);
/* A binary path safe to give ssh as a remote command word. */
int agent_binary_check(const char *binary, const char **why);

/* The address dest reaches, before connecting: "127.0.0.1" for local,
 * else the hostname `ssh -G` resolves it to with o's ssh options (its
 * ~/.ssh/config applied; no connection made). malloc'd, or NULL after an
 * error() naming dest. */
char *agent_dest_address(const char *dest, const struct agent_opts *o);

/* Check the version, start the agent, read its HELLO. 0, or -1 after an
 * error() naming dest (the caller exits 3). */
int agent_link_open(struct agent_link *l, const char *dest, const struct agent_opts *o);
/* `rounds` exchanges; fills offset_ns and uncert_ns. 0, or -1 after an
 * error() (l->lost set). */
int agent_link_sync(struct agent_link *l, int rounds);
void agent_link_close(struct agent_link *l);

/* Send one frame; -1 (l->lost set, no message) when the channel broke. */
int agent_link_send(struct agent_link *l, int type, const struct sbuf *payload);

/* The four-timestamp arithmetic, exposed for the unit test. */
void agent_clock_round(int64_t t1, int64_t t2, int64_t t3, int64_t t4, int64_t *offset,
		       int64_t *rtt);

#endif
