/*
 * sut_agent_src: what an agent in its --sut role keeps on its host for a
 * rerun (docs/AGENT_PROTOCOL.md, FETCH and GIVE): one commit fetched with
 * the gitfetch module of this very binary into a fresh directory of its
 * own, $TMPDIR/harness-agent-src.XXXXXX/NAME (the directory 0755, so a
 * sandbox uid can reach its checkout), and that checkout given to a
 * sandbox uid (or frozen: root's) as sandbox_give does for a local rerun.
 * The checkout is on a disk quota of its own (quota.h, sandbox.disk_mb
 * as the FETCH says), its image beside it in that directory.
 * Builds and starts of the arm run in it through other agents; this one
 * only holds it, and removes it when it exits (scratch.h: its janitor
 * does, when the agent is SIGKILLed).
 *
 * Ownership: a struct agent_src owns its directory; agent_src_remove
 * deletes it with everything in it (symlinks never followed). One thread.
 */
#ifndef HARNESS_SUT_AGENT_SRC_H
#define HARNESS_SUT_AGENT_SRC_H

#include "base/frame.h"
#include "sandbox/scratch.h"

struct agent_src {
	struct scratch dir; /* the fresh directory (its janitor removes it even
			       when the agent is SIGKILLed); "" until a FETCH */
	char *path;         /* dir/NAME, the checkout; NULL until fetched */
	int quota;          /* path is a disk quota's mount point (quota.h),
			       its image dir/NAME.img */
};
#define AGENT_SRC_INIT { SCRATCH_INIT, NULL, 0 }

/* FETCH's payload d: fetch it; *reply gets FETCHED's payload. */
void agent_src_fetch(struct agent_src *s, struct dec *d, struct sbuf *reply);
/* GIVE's payload d: give the checkout away; *reply gets GIVEN's. */
void agent_src_give(struct agent_src *s, struct dec *d, struct sbuf *reply);
/* Remove the directory and the checkout in it; safe twice. A FETCH must
 * arrive while the agent is single-threaded (scratch_make forks). */
void agent_src_remove(struct agent_src *s);

#endif
