/*
 * quota: the disk an untrusted arm may fill (sandbox.disk_mb): its
 * checkout and what its build and its server write there live on a
 * filesystem of their own, of a fixed size, so a pull request that
 * writes without end fills its own quota (ENOSPC to it), never the runs
 * filesystem the run databases of every run live on.
 *
 * The filesystem: DIR.img beside the checkout DIR, a file of exactly the
 * quota's size allocated up front (fallocate: the runs filesystem either
 * gives that room now or refuses, before anything of the arm runs),
 * formatted ext4 (mkfs.ext4: no journal, no blocks reserved for root)
 * and loop-mounted on DIR (mount -o loop,nosuid,nodev; the loop device
 * goes with the mount). A disk rather than a tmpfs: a tmpfs is memory,
 * charged to whichever cgroup writes it first (the build's, gone when
 * the build ends) and so outside the arm's memory limit and held by the
 * host for the whole run; a checkout and a build's outputs can be
 * gigabytes. The jail's private /tmp stays a tmpfs, within the arm's
 * memory limit (jail.h).
 *
 * Where it is mounted: in a mount namespace of the harness's own
 * (quota_own_namespace, before the first quota_make or quota_attach of
 * a run), a slave of the host's: the host's mounts are seen there, the
 * quotas' never propagate to the host. The namespace is the harness's
 * and its children's (the arms' jails are made from it, its watchdogs
 * live in it), so when the last of them is gone, however they ended
 * (SIGTERM before the harness handles it, SIGKILL to the harness alone
 * or to its process group, pkill -f), the kernel unmounts the quotas
 * and their loop devices (autoclear, as mount -o loop sets) go with
 * them: nothing is left mounted on the host, and the runs directory can
 * be removed. The price: on the host, src/ARM reads as an empty
 * directory while the run lasts (`nsenter -t PID -m` shows the
 * checkout).
 *
 * The image lives in the run's directory (invisible to the jail, whose
 * view of the runs directory is its checkout only) until the run ends:
 * quota_remove then unmounts it and removes both. A run that may be
 * resumed keeps its image, unmounted (quota_detach); quota_attach
 * mounts it again.
 *
 * Root only (mount); every function is called from the harness's main
 * thread.
 */
#ifndef HARNESS_QUOTA_H
#define HARNESS_QUOTA_H

#include <stddef.h>
#include <stdint.h>

/*
 * Put this process in a mount namespace of its own, a slave of the
 * host's (once; later calls do nothing): 0, or -1 after one error()
 * line. Call it while the process runs one thread (unshare moves only
 * the calling thread; -1 else). An agent's quotas (this agent's
 * filesystem) stay in its namespace instead: its directory's janitor
 * (scratch.h) unmounts them.
 */
int quota_own_namespace(void);

/*
 * Make DIR (which must not exist) the mount point of a new filesystem of
 * bytes. 0; or -1 after one error() line, nothing left behind: the
 * host's failure, never the arm's. No room for the image says so, naming
 * the filesystem as fs tells ("the runs filesystem", "this agent's
 * filesystem"), the quota (sandbox.disk_mb) and the room there is.
 */
int quota_make(const char *dir, uint64_t bytes, const char *fs);

/* DIR's image mounted on it again, when it has one and it is not
 * mounted: 0 (nothing to do included), -1 after one error() line. */
int quota_attach(const char *dir);

/* Unmount DIR's filesystem, keeping the image; nothing when DIR is not
 * a quota's mount point. */
void quota_detach(const char *dir);

/* Unmount DIR's filesystem and remove DIR, its files and the image;
 * nothing when DIR has no image. */
void quota_remove(const char *dir);

/* Room for quota_full's sentence (with its terminating NUL). */
#define QUOTA_FULL_LEN 96

/*
 * Is DIR's quota full: under 1 MiB (or 1%, the larger) of its blocks, or
 * no inode, left? Then a sentence of the figures in buf ("62 KiB free
 * of 64 MiB") and buf returned; else (not full, no quota) NULL.
 */
const char *quota_full(const char *dir, char *buf, size_t n);

#endif
