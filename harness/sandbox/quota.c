/*
 * quota: a size-limited filesystem per untrusted checkout (see quota.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/quota.h"
#include "sandbox/scratch.h"
#include "base/util.h"

/* The first of the usual places a system tool is found in, or NULL. */
static const char *tool(const char *name, char *buf, size_t n)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if ((size_t)snprintf(buf, n, "%s/%s", dirs[i], name) < n && !access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* Run argv (argv[0] a bare tool name) with stdout to /dev/null, its
 * stderr ours; 0 when it exits 0, else -1 after one error() line. */
static int run_tool(char **argv)
{
	char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", NULL };
	char path[256];
	int st, fd;
	pid_t pid;

	if (!tool(argv[0], path, sizeof(path)))
		return error("sandbox.disk_mb: %s not found (Debian package %s)", argv[0],
			     !strcmp(argv[0], "mount") ? "mount" : "e2fsprogs");
	pid = fork();
	if (pid < 0)
		return error("sandbox.disk_mb: fork for %s: %s", argv[0], strerror(errno));
	if (!pid) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		execve(path, argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error("sandbox.disk_mb: waitpid for %s: %s", argv[0], strerror(errno));
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	return error("sandbox.disk_mb: %s failed (%s %d)", path, WIFEXITED(st) ? "exit" : "signal",
		     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void image_path(const char *dir, struct sbuf *img)
{
	sbuf_reset(img);
	sbuf_addf(img, "%s.img", dir);
}

/* Is dir a mount point (another device than its parent's)? */
static int mounted(const char *dir)
{
	struct sbuf parent = SBUF_INIT;
	struct stat a, b;
	int ret;

	sbuf_addf(&parent, "%s/..", dir);
	ret = !stat(dir, &a) && !stat(parent.buf, &b) && a.st_dev != b.st_dev;
	sbuf_release(&parent);
	return ret;
}

/* How many threads this process runs (0: cannot tell). */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int quota_own_namespace(void)
{
	static int done;

	if (done)
		return 0;
	/* unshare moves only the calling thread: every other would stay
	 * behind, seeing none of the quotas */
	if (threads() != 1)
		return error("sandbox.disk_mb: cannot give the arms' disk quotas a mount namespace"
			     " of their own: the harness already runs %d threads", threads());
	if (unshare(CLONE_NEWNS))
		return error("sandbox.disk_mb: cannot make a mount namespace for the arms' disk"
			     " quotas (unshare): %s", strerror(errno));
	/* the host's mounts still seen here, ours never propagated there */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return error("sandbox.disk_mb: cannot keep the arms' disk quotas from the host's"
			     " mount namespace: %s", strerror(errno));
	done = 1;
	return 0;
}

/* Mount img on dir (made when missing); lost+found removed, so the
 * checkout starts in an empty directory. */
static int mount_image(const char *img, const char *dir)
{
	char *argv[] = { "mount", "-o", "loop,nosuid,nodev", (char *)img, (char *)dir, NULL };
	struct sbuf lf = SBUF_INIT;

	if (mkdir_p(dir, 0755))
		return error("%s: cannot create: %s", dir, strerror(errno));
	if (run_tool(argv))
		return -1;
	sbuf_addf(&lf, "%s/lost+found", dir);
	rmdir(lf.buf);
	sbuf_release(&lf);
	return 0;
}

/* The image file of bytes, every block allocated now; no room on the
 * filesystem it is made on (fs: which one, in words) says so, with the
 * room there is. */
static int make_image(const char *img, uint64_t bytes, const char *fs)
{
	int fd = open(img, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600), err;
	struct statvfs v;
	uint64_t avail;

	if (fd < 0)
		return error("%s: cannot create: %s", img, strerror(errno));
	err = posix_fallocate(fd, 0, (off_t)bytes);
	avail = !fstatvfs(fd, &v) ? (uint64_t)v.f_bavail * v.f_frsize : 0;
	close(fd);
	if (!err)
		return 0;
	unlink(img);
	if (err == ENOSPC)
		return error("%s: no room for the arm's disk quota (sandbox.disk_mb %" PRIu64
			     ") on %s: %" PRIu64 " MiB free there", img, bytes >> 20, fs, avail >> 20);
	return error("%s: cannot allocate the arm's disk quota (sandbox.disk_mb %" PRIu64 "): %s",
		     img, bytes >> 20, strerror(err));
}

int quota_make(const char *dir, uint64_t bytes, const char *fs)
{
	char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal",
			 "-E", "root_owner=0:0", NULL, NULL };
	struct sbuf img = SBUF_INIT;
	int ret = -1;

	image_path(dir, &img);
	if (make_image(img.buf, bytes, fs))
		goto out;
	mkfs[9] = img.buf;
	if (run_tool(mkfs) || mount_image(img.buf, dir)) {
		rmdir(dir);
		unlink(img.buf);
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&img);
	return ret;
}

int quota_attach(const char *dir)
{
	struct sbuf img = SBUF_INIT;
	int ret = 0;

	image_path(dir, &img);
	if (!access(img.buf, F_OK) && !mounted(dir))
		ret = mount_image(img.buf, dir);
	sbuf_release(&img);
	return ret;
}

void quota_detach(const char *dir)
{
	struct sbuf img = SBUF_INIT;

	image_path(dir, &img);
	/* busy (a process of the arm left behind): detached now, freed
	 * when it goes */
	if (!access(img.buf, F_OK) && mounted(dir) && umount2(dir, 0) && umount2(dir, MNT_DETACH))
		warning("%s: cannot unmount the arm's disk quota: %s", dir, strerror(errno));
	sbuf_release(&img);
}

void quota_remove(const char *dir)
{
	struct sbuf img = SBUF_INIT;

	image_path(dir, &img);
	if (!access(img.buf, F_OK)) {
		quota_detach(dir);
		if (!mounted(dir))
			scratch_rmdir(dir);
		if (unlink(img.buf))
			warning("%s: cannot remove: %s", img.buf, strerror(errno));
	}
	sbuf_release(&img);
}

const char *quota_full(const char *dir, char *buf, size_t n)
{
	struct sbuf img = SBUF_INIT;
	struct statvfs v;
	uint64_t total, avail, floor;
	int has;

	image_path(dir, &img);
	has = !access(img.buf, F_OK);
	sbuf_release(&img);
	if (!has || !mounted(dir) || statvfs(dir, &v))
		return NULL;
	total = (uint64_t)v.f_blocks * v.f_frsize;
	avail = (uint64_t)v.f_bavail * v.f_frsize;
	floor = total / 100 > (1 << 20) ? total / 100 : (1 << 20);
	if (avail >= floor && v.f_favail > 0)
		return NULL;
	if (v.f_favail == 0)
		snprintf(buf, n, "no inode free of %" PRIu64, (uint64_t)v.f_files);
	else
		snprintf(buf, n, "%" PRIu64 " KiB free of %" PRIu64 " MiB", avail >> 10, total >> 20);
	return buf;
}
