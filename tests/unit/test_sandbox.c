/*
 * test_sandbox: the sandbox user and directory ownership. Creating the user
 * needs root; as another user those checks are skipped (said so on stdout).
 */
#include "t.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpl[] = "/tmp/test_sandbox.XXXXXX";
static char *root;

static int owner_of(const char *rel)
{
	struct sbuf p = SBUF_INIT;
	struct stat st;
	int r;

	sbuf_addf(&p, "%s/%s", root, rel);
	r = lstat(p.buf, &st) ? -1 : (int)st.st_uid;
	sbuf_release(&p);
	return r;
}

static void mk(const char *rel, int dir)
{
	struct sbuf p = SBUF_INIT;
	sbuf_addf(&p, "%s/%s", root, rel);
	if (dir)
		mkdir_p(p.buf, 0755);
	else
		write_file(p.buf, "x", 1);
	sbuf_release(&p);
}

TEST(rejects_bad_names)
{
	int uid = -1, gid = -1;
	CHECK(sandbox_user_ensure("--help", &uid, &gid) == -1);
	CHECK(sandbox_user_ensure("Root", &uid, &gid) == -1);
	CHECK(sandbox_user_ensure("a b", &uid, &gid) == -1);
	CHECK(sandbox_user_ensure("", &uid, &gid) == -1);
	CHECK(uid == -1);
}

TEST(existing_user_resolves)
{
	int uid = -1, gid = -1;
	CHECK(sandbox_user_ensure("root", &uid, &gid) == 0);
	CHECK(uid == 0 && gid == 0);
}

TEST(creates_default_user)
{
	int uid = -1, gid = -1, uid2 = -1, gid2 = -1;

	if (geteuid() != 0) {
		printf("# skipped: not root\n");
		return;
	}
	CHECK(sandbox_user_ensure(NULL, &uid, &gid) == 0);
	CHECK(uid > 0 && gid > 0);
	/* Idempotent: the second call finds it. */
	CHECK(sandbox_user_ensure(SANDBOX_DEFAULT_USER, &uid2, &gid2) == 0);
	CHECK(uid2 == uid && gid2 == gid);
}

TEST(give_skips_git_and_checks_reach)
{
	struct sbuf p = SBUF_INIT;
	int uid = 4242, gid = 4242;

	if (geteuid() != 0) {
		printf("# skipped: not root\n");
		return;
	}
	mk("src/impl/.git/objects", 1);
	mk("src/impl/.git/HEAD", 0);
	mk("src/impl/sub", 1);
	mk("src/impl/sub/main.c", 0);
	mk("src/impl/.gitignore", 0);   /* not the .git directory: given */
	sbuf_addf(&p, "%s/src/impl", root);
	CHECK(sandbox_give(p.buf, uid, gid, 1) == 0);
	CHECK(owner_of("src/impl") == uid);
	CHECK(owner_of("src/impl/sub/main.c") == uid);
	CHECK(owner_of("src/impl/.gitignore") == uid);
	CHECK(owner_of("src/impl/.git") == 0);
	CHECK(owner_of("src/impl/.git/HEAD") == 0);
	CHECK(owner_of("src") == 0);

	/* mkdtemp made root 0700: uid 4242 cannot get in. */
	chmod(root, 0700);
	CHECK(sandbox_reachable(p.buf, uid, gid) == -1);
	chmod(root, 0755);
	CHECK(sandbox_reachable(p.buf, uid, gid) == 0);
	sbuf_release(&p);
}

int main(void)
{
	root = mkdtemp(tmpl);
	if (!root)
		return 1;
	RUN(rejects_bad_names);
	RUN(existing_user_resolves);
	RUN(creates_default_user);
	RUN(give_skips_git_and_checks_reach);
	t_rm_rf(root);
	return t_done();
}
