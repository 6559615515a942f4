/*
 * scratch: a private temporary directory that does not outlive its
 * owner, however the owner ends (SIGKILL included).
 *
 * scratch_make creates PREFIX.XXXXXX under $TMPDIR (else /tmp) and forks
 * a janitor: a process that holds the read end of a pipe whose only
 * writer is the owner (close-on-exec, so no implementation or command the
 * owner execs holds it), blocks reading it, and at its end of file (the
 * owner exited, whatever way) unmounts whatever is mounted under it (an
 * arm's disk quota, quota.h), removes the directory and everything in
 * it, then exits. The janitor ignores SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT so a signal to the owner's process group does not take it
 * first. It holds nothing else open and does no other work.
 *
 * Why a janitor rather than unlinking the files once they are opened:
 * the logs in it are opened by path by other modules (sut's start logs,
 * sut_build's log, reopened by the agent to send their ends), and a
 * command can be running for minutes with its log's name in it; the
 * janitor covers every file there without changing them.
 *
 * The whole tree goes, subdirectories included (a rerun's checkout held
 * by an agent, sut_agent_src.h), walked relative to open directories
 * with O_NOFOLLOW: a symlink is unlinked, never followed, even one that
 * replaces a directory during the walk.
 *
 * Threads: call scratch_make while the process is single-threaded (the
 * janitor is a fork that keeps running code, not an exec).
 */
#ifndef HARNESS_SCRATCH_H
#define HARNESS_SCRATCH_H

#include <stddef.h>

#include "base/util.h"

struct scratch {
	char dir[4096];       /* "" when none */
	int fd;               /* the pipe's write end; -1 */
};
#define SCRATCH_INIT { "", -1 }

/*
 * Make the directory and its janitor. 0, or -1 with the reason appended
 * to why (nothing made then). Without a janitor (fork failed) it is
 * still made, with a warning: scratch_remove then is the only cleanup.
 */
int scratch_make(struct scratch *s, const char *prefix, struct sbuf *why);

/* Remove the directory and its files now, and let the janitor go. */
void scratch_remove(struct scratch *s);

/* Remove every entry of dir, recursively (symlinks never followed), then
 * dir itself. Used by the janitor. */
void scratch_rmdir(const char *dir);

/* Unmount (detach) every mount point strictly under dir in this mount
 * namespace, deepest first: the janitor's first step, so an owner killed
 * with SIGKILL leaves no mount of its own (an agent's arm disk quotas,
 * quota.h). Only paths under dir, a directory this owner made with
 * mkdtemp: nothing of anyone else's. Root only (nothing done else). */
void scratch_unmount_under(const char *dir);

#endif
