/* test_scratch: a scratch directory goes with its owner: removed by
 * scratch_remove, and by the janitor when the owner is SIGKILLed (with a
 * file still open in it) or exits without removing it. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/scratch.h"
#include "t.h"
#include "base/util.h"

/* 1 once path is gone, within 5 s (the janitor runs on a loaded host). */
static int gone_within_5s(const char *path)
{
	struct stat st;
	int i;

	for (i = 0; i < 500; i++) {
		if (stat(path, &st))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* An owner (a child) makes the directory, writes a file in it and keeps
 * it open, reports the path, then ends by `how`: 0 _exit, 1 SIGKILL. */
static void owner_dies(int how)
{
	char dir[4096] = "";
	int p[2], st;
	pid_t pid;
	ssize_t n;

	CHECK(pipe(p) == 0);
	pid = fork();
	if (!pid) {
		struct scratch s = SCRATCH_INIT;
		struct sbuf why = SBUF_INIT, f = SBUF_INIT;
		int fd;

		if (scratch_make(&s, "harness-test-scratch", &why))
			_exit(2);
		sbuf_addf(&f, "%s/a.log", s.dir);
		fd = open(f.buf, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1)
			_exit(3);
		if (write(p[1], s.dir, strlen(s.dir) + 1) < 0)
			_exit(4);
		if (how)
			raise(SIGKILL);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], dir, sizeof(dir) - 1);
	close(p[0]);
	waitpid(pid, &st, 0);
	CHECK(n > 1 && !strncmp(dir, "/", 1));
	CHECK(how ? WIFSIGNALED(st) : WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (n > 1) {
		int gone = gone_within_5s(dir);

		CHECK(gone);
		if (!gone)
			scratch_rmdir(dir);
	}
}

TEST(removed_by_the_janitor_when_the_owner_is_killed)
{
	owner_dies(1);
}

TEST(removed_by_the_janitor_when_the_owner_just_exits)
{
	owner_dies(0);
}

TEST(removed_at_once_by_scratch_remove)
{
	struct scratch s = SCRATCH_INIT;
	struct sbuf why = SBUF_INIT, f = SBUF_INIT;
	struct stat st;
	char dir[4096];

	CHECK(scratch_make(&s, "harness-test-scratch", &why) == 0);
	CHECK(s.fd >= 0 && stat(s.dir, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(dir, sizeof(dir), "%s", s.dir);
	sbuf_addf(&f, "%s/b.log", s.dir);
	CHECK(write_file(f.buf, "y", 1) == 0);
	scratch_remove(&s);
	CHECK(stat(dir, &st) != 0 && s.dir[0] == 0 && s.fd == -1);
	sbuf_release(&f);
	sbuf_release(&why);
}

/* A tree (a rerun's checkout held by an agent): subdirectories go too; a
 * symlink to a directory outside is unlinked, never followed. */
TEST(a_tree_goes_and_symlinks_are_not_followed)
{
	struct scratch s = SCRATCH_INIT;
	struct sbuf why = SBUF_INIT, p = SBUF_INIT, out = SBUF_INIT;
	char outside[] = "/tmp/harness-test-outside.XXXXXX";
	struct stat st;

	CHECK(mkdtemp(outside) != NULL);
	sbuf_addf(&out, "%s/keep", outside);
	CHECK(write_file(out.buf, "x", 1) == 0);
	CHECK(scratch_make(&s, "harness-test-scratch", &why) == 0);
	sbuf_addf(&p, "%s/a/.git/objects", s.dir);
	CHECK(mkdir_p(p.buf, 0755) == 0);
	sbuf_addf(&p, "/pack");
	CHECK(write_file(p.buf, "y", 1) == 0);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s/a/link", s.dir);
	CHECK(symlink(outside, p.buf) == 0);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s", s.dir);
	scratch_remove(&s);
	CHECK(stat(p.buf, &st) == -1);     /* the whole tree gone */
	CHECK(stat(out.buf, &st) == 0);    /* outside: untouched */
	unlink(out.buf);
	rmdir(outside);
	sbuf_release(&why);
	sbuf_release(&p);
	sbuf_release(&out);
}

TEST(refused_where_it_cannot_be_made)
{
	struct scratch s = SCRATCH_INIT;
	struct sbuf why = SBUF_INIT;
	char *old = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;

	setenv("TMPDIR", "/nonexistent-harness-dir", 1);
	CHECK(scratch_make(&s, "harness-test-scratch", &why) == -1);
	CHECK(why.buf && strstr(why.buf, "/nonexistent-harness-dir/harness-test-scratch."));
	CHECK(s.dir[0] == 0 && s.fd == -1);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	sbuf_release(&why);
}

int main(void)
{
	RUN(removed_by_the_janitor_when_the_owner_is_killed);
	RUN(removed_by_the_janitor_when_the_owner_just_exits);
	RUN(removed_at_once_by_scratch_remove);
	RUN(a_tree_goes_and_symlinks_are_not_followed);
	RUN(refused_where_it_cannot_be_made);
	return t_done();
}
