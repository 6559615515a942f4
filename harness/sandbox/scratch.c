/*
 * scratch: the directory and its janitor (scratch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/scratch.h"

/* Every entry of the directory open at dfd (taken), its subdirectories
 * first emptied. Each is opened relative to its parent with O_NOFOLLOW:
 * a directory that sandboxed code swaps for a symlink meanwhile is never
 * followed (the link itself is unlinked), so nothing outside the tree is
 * touched. Deeper than 64 levels is left. */
static void rm_entries(int dfd, int depth)
{
	struct dirent *e;
	DIR *d = fdopendir(dfd);
	int sub;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0) || errno != EISDIR)
			continue;
		sub = depth < 64 ? openat(dirfd(d), e->d_name,
					  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sub >= 0)
			rm_entries(sub, depth + 1);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void scratch_rmdir(const char *dir)
{
	int fd;

	if (!dir || !*dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		rm_entries(fd, 0);
	rmdir(dir);
}

/* A mountinfo field with its octal escapes (\040 a space, \011, \012,
 * \134) decoded, in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else
			*o++ = *s;
	}
	*o = 0;
}

/* The deepest mount point strictly under dir in this mount namespace,
 * into buf; 0 when there is none. */
static int deepest_mount_under(const char *dir, char *buf, size_t n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t dl = strlen(dir), best = 0;
	char line[8192], mp[4096];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		if (strncmp(mp, dir, dl) || mp[dl] != '/' || strlen(mp) <= best ||
		    strlen(mp) >= n)
			continue;
		best = strlen(mp);
		memcpy(buf, mp, best + 1);
	}
	fclose(f);
	return best != 0;
}

void scratch_unmount_under(const char *dir)
{
	char mp[4096];
	int i;

	/* deepest first; each detached at once (MNT_DETACH: a process that
	 * still holds it, none of which should be left, frees it when it
	 * goes; a loop device set up by mount -o loop goes with it) */
	for (i = 0; i < 64 && deepest_mount_under(dir, mp, sizeof(mp)); i++)
		if (umount2(mp, MNT_DETACH))
			break;
}

/* The janitor: nothing but the pipe's read end open; its end of file is
 * the owner gone. A 'q' first means the owner removed the directory.
 * Mounts under it (an arm's disk quota on an agent's host, quota.h)
 * first: else the owner killed with SIGKILL leaves them mounted, their
 * images' space held, and the directory's removal stops at them. */
static _Noreturn void janitor(int rd, const char *dir)
{
	if (watch_owner(rd) != 'q') {
		scratch_unmount_under(dir);
		scratch_rmdir(dir);
	}
	_exit(0);
}

int scratch_make(struct scratch *s, const char *prefix, struct sbuf *why)
{
	const char *tmp = getenv("TMPDIR");
	int p[2], st = 0;
	pid_t pid;

	s->fd = -1;
	snprintf(s->dir, sizeof(s->dir), "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
	if (!mkdtemp(s->dir)) {
		sbuf_addf(why, "cannot make a directory %s: %s", s->dir, strerror(errno));
		s->dir[0] = 0;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC)) {
		warning("%s: no janitor (pipe: %s): a SIGKILL would leave it", s->dir,
			strerror(errno));
		return 0;
	}
	fflush(NULL);
	/* Twice: the janitor's parent exits at once and is reaped here, so
	 * the janitor is never the owner's child (no zombie, nothing for
	 * the owner's waits to see). */
	pid = fork();
	if (!pid) {
		pid_t j;

		close(p[1]);
		j = fork();
		if (!j)
			janitor(p[0], s->dir);
		_exit(j < 0);
	}
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		warning("%s: no janitor (fork: %s): a SIGKILL would leave it", s->dir,
			strerror(errno));
		close(p[1]);
		return 0;
	}
	s->fd = p[1];
	return 0;
}

void scratch_remove(struct scratch *s)
{
	if (s->dir[0])
		scratch_rmdir(s->dir);
	s->dir[0] = 0;
	if (s->fd >= 0) {
		if (write(s->fd, "q", 1) < 0)
			(void)0;
		close(s->fd);
	}
	s->fd = -1;
}
