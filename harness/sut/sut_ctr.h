/*
 * sut_ctr: an implementation or dependency that runs as a container
 * (internal to the sut module; the contract is sut.h's). sut.c calls it
 * for an impl with container.present and keeps what it returns as the
 * arm's process, cgroup and network namespace:
 *
 *   create  the container (ctr.h ctr_argv_create: limits, ulimits, the
 *           untrusted flags under a jail, --network none, or host for a
 *           dependency), marked for ctr_reap_leftovers;
 *   init    (podman) its main process made and waiting: its pid, its
 *           cgroup (account_open_pid, accounted as a native arm's) and
 *           its network namespace, where the dependencies' ports are
 *           relayed (portfwd.h) before anything of it runs;
 *   start   `ENGINE start --attach NAME` spawned as the arm's process:
 *           its stdout/stderr are the container's, its exit the
 *           container's (conmon's exit code: 137 for SIGKILL);
 *   stop    `ENGINE stop -t GRACE` (SIGTERM, SIGKILL after the grace),
 *           then `rm --force`: no container, cgroup or namespace left.
 */
#ifndef HARNESS_SUT_CTR_H
#define HARNESS_SUT_CTR_H

#include <sys/types.h>

#include "sut/sut.h"

struct portfwd;
struct sut_ctr;

/* What a started container gives the sut. All owned by the caller once
 * returned (close, account_free, portfwd_stop, free). */
struct sut_ctr_up {
	pid_t attach;           /* ENGINE start --attach: the harness's child */
	pid_t main;             /* the container's main process */
	int netns_fd;           /* its network namespace, or -1 (host network) */
	struct account *acct;   /* its cgroup */
	struct portfwd *fwd;    /* the dependencies relayed in, or NULL */
	char *argv_text;        /* the create argv, one line */
};

/* Create, init and start the container of cfg->impl listening on port;
 * out_fd / err_fd are the arm's log files. NULL after one error() line
 * (nothing of it left). */
struct sut_ctr *sut_ctr_start(const struct sut_config *cfg, const char *wd, int port, int out_fd,
			      int err_fd, struct sut_ctr_up *up);

/* Stop it (the engine's stop with grace_s, SIGKILL after), wait for the
 * attach process (reaped by the caller: 1 when it was reaped here, with
 * *status), then remove it. Safe to call twice. */
void sut_ctr_stop(struct sut_ctr *c, double grace_s);
/* rm --force, and forget it (the leftovers' marker). */
void sut_ctr_remove(struct sut_ctr *c);
void sut_ctr_free(struct sut_ctr *c);

#endif
