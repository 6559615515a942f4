/*
 * rsut_fetch: a rerun's commit fetched on the host of an implementation
 * that runs there (implementations[].host), seen from the coordinator.
 * One agent in its --sut role (sut_agent_src.h) fetches it with the
 * gitfetch module of its own binary into a directory of its own on that
 * host (FETCH) and holds it for as long as this link stays open: the
 * builds and starts of the arm (rsut.h, other agents) run in that path.
 * The commit, ref and remote URL it reports are recorded as a local
 * rerun's are. rsut_src_give hands the checkout to the arm's sandbox uid
 * there (or makes it root's: a frozen @base control), as sandbox_give
 * does here. Closing the link (rsut_src_close, or this process dying in
 * any way) makes the agent remove the checkout.
 *
 * Credentials: the coordinator's HARNESS_GIT_PASSWORD (and
 * HARNESS_GIT_USER) go with the FETCH over the ssh channel, are set in
 * the agent's environment for the fetch only, and removed after it;
 * credentials in the URL travel in it, as locally.
 *
 * Ownership: an rsut_src owns its link and its strings. One thread.
 */
#ifndef HARNESS_RSUT_FETCH_H
#define HARNESS_RSUT_FETCH_H

#include <stdint.h>

#include "agent/agent_link.h"
#include "base/gitfetch.h"

struct rsut_src;

/*
 * Fetch repo at ref (NULL: its HEAD) as the checkout of arm `name` on
 * dest's host, onto a filesystem of its own there of disk_bytes
 * (sandbox.disk_mb, quota.h, as a local rerun's checkout; 0: none). On
 * success the agent's link is returned, *out filled (as gitfetch's) and
 * the checkout's path there is rsut_src_path. NULL after one error()
 * line; *env_error is then 1 when the host, ssh or the agent failed (no
 * room there for the quota included: the caller exits 3), 0 when the
 * fetch itself did (a repository or ref that cannot be fetched there:
 * exit 2, as locally).
 */
struct rsut_src *rsut_fetch(const char *dest, const struct agent_opts *opts, const char *name,
			    const char *repo, const char *ref, uint64_t disk_bytes,
			    struct gitfetch_result *out, int *env_error);

const char *rsut_src_path(const struct rsut_src *s);  /* on that host */
const char *rsut_src_dest(const struct rsut_src *s);

/* Give the checkout (recursively, its top .git excepted, as sandbox.h)
 * to uid and the group of the sandbox user `user` there (created when
 * missing), checking that bwrap runs there; uid 0: root's (frozen). 0, or
 * -1 after one error() line. */
int rsut_src_give(struct rsut_src *s, const char *user, int uid);

/* Close the link: the agent removes the checkout and exits. NULL: no-op. */
void rsut_src_close(struct rsut_src *s);

#endif
