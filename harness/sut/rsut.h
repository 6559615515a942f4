/*
 * rsut: an implementation run on another host (implementations[].host)
 * through an agent in its --sut role (sut_agent.h), seen from the
 * coordinator: started and health-checked there, its accounting windows
 * measured there by the same account module as a local arm's (each
 * sample streamed back as it is taken), its runtime stats polled there
 * (each poll streamed back), stopped there. The agent is started over ssh like a load agent (agent_link.h:
 * version check, HELLO); the HELLO's address (where ssh reached the
 * host) is the implementation's address: "{host}" in its start argv, env
 * values, health and stats URLs is replaced by it, and the load goes to
 * http(s)://ADDRESS:PORT.
 *
 * Lifetime: the agent kills the implementation's tree and removes its
 * cgroup when its standard input closes, so the coordinator dying in any
 * way (even SIGKILL) leaves nothing on that host; rsut_free closes it.
 *
 * Ownership: an rsut owns its link and every string it returns. Not
 * thread-safe: every call from the runner's thread.
 */
#ifndef HARNESS_RSUT_H
#define HARNESS_RSUT_H

#include <signal.h>

#include "account/account.h"
#include "agent/agent_link.h"
#include "base/hostfacts.h"
#include "spec/spec.h"
#include "sut/sut_wire.h"

struct rsut_config {
	const char *dest;                /* ssh destination */
	const struct agent_opts *opts;   /* binary, ssh options (sut set here) */
	/* rsut_start: what bind_sut made of the spec (sut_wire.h: the one
	 * mapping; workdir, label, port, limits, accounting, https are sent,
	 * paths and strings as they are on that host); "{host}" in its
	 * start argv, env, health and stats URLs is replaced there. */
	const struct sut_config *sut;
	/* Here: where the end of its stdout and stderr (sent by the agent
	 * when it stops) is appended, as <impl name>.stdout.log and
	 * .stderr.log like a local start's; NULL: not kept. */
	const char *log_dir;
	/* Set non-zero (a signal handler's flag): waits give up within
	 * about 200 ms. */
	volatile sig_atomic_t *stop;
	/* Non-NULL with on set: build and run it jailed there as
	 * sandbox->uid (sut_wire.h), as a local arm's sandbox; "{host}" in
	 * its start argv, env and health URL is then 127.0.0.1 (the jail's
	 * own loopback, where the agent checks its health), and the load
	 * and the stats poller reach it at ADDRESS:PORT through the agent's
	 * relay into its namespace. */
	const struct sut_wire_sandbox *sandbox;
	/* Non-NULL: a start that failed leaves here the sandbox limits it
	 * hit there (a jail's forks refused, OOM kills, its disk quota). */
	struct sut_wire_hits *failed_hits;
};

struct rsut;

/*
 * Start the agent, the implementation through it, and wait until it is
 * healthy there. NULL after one error() line; *unhealthy is then 1 when
 * it was started but exited or never answered healthy (the
 * implementation's doing), 0 when the host, ssh or the agent failed.
 */
struct rsut *rsut_start(const struct rsut_config *cfg, int *unhealthy);

const char *rsut_url(const struct rsut *r);       /* http(s)://ADDRESS:PORT */
/* Its runtime stats (rtstats.h), polled by the agent on that host and
 * streamed back poll by poll (each timed on this host's now_ns clock
 * through the agent's clock offset, measured when it started); fed as
 * frames are read (rsut_exited, every request). NULL when it has no stats
 * URL. Owned by r: valid until rsut_free. */
struct rtstats *rsut_stats(struct rsut *r);
int rsut_port(const struct rsut *r);
const char *rsut_dest(const struct rsut *r);
const char *rsut_address(const struct rsut *r);
const char *rsut_host(const struct rsut *r);      /* its host name */
const char *rsut_cpus(const struct rsut *r);      /* NULL unknown */
const char *rsut_cpus_method(const struct rsut *r);
const char *rsut_backend(const struct rsut *r);   /* the accounting backend there */
const struct hostfacts *rsut_facts(const struct rsut *r);

/* The sandbox limits it hit there, as of the last accounting window's
 * end (account_limit_hits there, its disk quota there). */
void rsut_limit_hits(const struct rsut *r, struct sut_wire_hits *h);

/* Non-blocking: 1 once it exited there (or its agent was lost). */
int rsut_exited(struct rsut *r);
/* 1 when it is gone because its agent's channel broke (not its doing). */
int rsut_lost(const struct rsut *r);
/* "exited with status 1", "its agent's connection was lost", ... */
const char *rsut_exit_desc(const struct rsut *r);

/* An accounting window on that host (account.h), its samples those the
 * agent streamed during it. 0, or -1 (quiet: the window then has no
 * accounting, as a local one whose begin failed). */
int rsut_window_begin(struct rsut *r);
int rsut_window_end(struct rsut *r, struct account_window *out);

/*
 * Run bc (bind_build's: bc->impl->build, its argv) to completion on cfg's
 * host as sut_build runs it here: in bc->workdir with the impl's env, in
 * a cgroup labelled label, killed after bc->timeout_s (0: never) or when
 * cfg->stop is set (cfg->sut unused). The end of its output (64 KiB at
 * most) is appended to bc->log_path here. *bc->exit_code (when non-NULL):
 * its exit code, or -1 when it did not exit on its own; *bc->hits and
 * bc->disk_full (when non-NULL): the limits it hit there, as sut_build
 * fills them here (zero when no answer came). Returns 0 when it
 * exited 0; 1 when it exited otherwise and bc->quiet; else -1 after one
 * error() line.
 */
int rsut_run(const struct rsut_config *cfg, const struct sut_build_config *bc, const char *label);

/* Stop it there (its tree and cgroup), keep the end of its logs
 * (cfg.log_dir) and close the agent; safe twice. The agent removes its
 * own log directory there when it exits. */
void rsut_stop(struct rsut *r);
/* rsut_stop, then free. */
void rsut_free(struct rsut *r);

#endif
