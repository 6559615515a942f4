/*
 * sut_ctr: the lifecycle of an implementation or dependency that runs as
 * a container, below armops_ctr.c (the backend), which hands it to sut.c
 * as a struct sut_starter: sut.c keeps what sut_ctr_start gives as the
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

struct sut_ctr;

/* Create, init and start the container of cfg->impl listening on port,
 * on the host's network when host_network (a dependency), else in its
 * own namespace; out_fd / err_fd are the arm's log files. up as
 * struct sut_starter's start fills it (up->pid: `ENGINE start --attach`,
 * up->main: the container's main process; netns_fd -1 on the host's
 * network). NULL after one error() line (nothing of it left). */
struct sut_ctr *sut_ctr_start(const struct sut_config *cfg, const char *wd, int port,
			      int host_network, int out_fd, int err_fd, struct sut_proc *up);

/* Stop it (the engine's stop with grace_s, SIGKILL after), wait for the
 * attach process (reaped by the caller: 1 when it was reaped here, with
 * *status), then remove it. Safe to call twice. */
void sut_ctr_stop(struct sut_ctr *c, double grace_s);
/* rm --force, and forget it (the leftovers' marker). */
void sut_ctr_remove(struct sut_ctr *c);
void sut_ctr_free(struct sut_ctr *c);
/* Its name ("harness-<owner>-<label>-<n>") and the image it runs (owned
 * by c). */
const char *sut_ctr_name(const struct sut_ctr *c);
const char *sut_ctr_image(const struct sut_ctr *c);
/* 1 once the engine recorded an OOM of it (podman's conmon: the file "oom"
 * in LOG_DIR/IMPL.container, this start's), else 0. */
int sut_ctr_oom(const struct sut_ctr *c);

#endif
