/*
 * footprint: what an implementation costs before it does any work (issue
 * 28, item 3; the "three reasons people give": startup time, idle
 * memory, artifact size). Read from /proc and the file system, never
 * from the implementation: a measurement of the process, not its claim.
 *
 *   memory   the sum over the processes of a process group (the harness
 *            starts every implementation as its own group) of Rss and
 *            Pss from /proc/PID/smaps_rollup, kB: RSS counts each shared
 *            page in full in every process, PSS divides it among them.
 *   artifact the apparent size of a file, or of every regular file under
 *            a directory (not following symbolic links), bytes.
 *
 * Threads: any; no state.
 */
#ifndef HARNESS_FOOTPRINT_H
#define HARNESS_FOOTPRINT_H

#include <stdint.h>
#include <sys/types.h>

/* Rss and Pss of one process, kB: 0, or -1 (gone, or not ours to read). */
int footprint_pid(pid_t pid, int64_t *rss_kb, int64_t *pss_kb);
/* The same summed over every process of group pgid: the count of
 * processes read (0: none readable, *rss_kb and *pss_kb -1). */
int footprint_group(pid_t pgid, int64_t *rss_kb, int64_t *pss_kb);
/* The apparent size of path (a file, or a directory's regular files,
 * recursively), bytes; -1 when it cannot be read (the message in why,
 * when given). */
int64_t footprint_artifact_bytes(const char *path, char *why, size_t whylen);

#endif
