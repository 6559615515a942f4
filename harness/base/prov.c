/*
 * prov: repository provenance with libgit2 (see prov.h).
 *
 * The diff hash is taken over the patch text libgit2 prints for
 * HEAD -> work tree (through the index), with untracked files' contents
 * included. Each line is hashed with its origin character, so the hash
 * changes when any byte of the difference changes, and equals for two
 * trees with the same difference from the same commit.
 */
#include "base/prov.h"
#include "base/util.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_once_t git_once = PTHREAD_ONCE_INIT;

static void git_init_once(void)
{
	git_libgit2_init();
	/* why: rerun checkouts are owned by their arm's uid (prov.h). The
	 * option is an enum constant, not a macro (an #ifdef never saw it):
	 * told by the version that introduced it. Without it a checkout
	 * owned by another uid read as "no repository" (GIT_ENOTFOUND), so a
	 * rerun could not be resumed ("at commit (none)"). */
#if LIBGIT2_VER_MAJOR > 1 || LIBGIT2_VER_MINOR >= 5
	if (git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0) < 0)
		warning("libgit2: cannot switch its ownership validation off: %s",
			prov_git_errmsg());
#endif
}

void prov_git_init(void)
{
	pthread_once(&git_once, git_init_once);
}

const char *prov_git_errmsg(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

/* The directory to start discovery from: path itself, or its parent when
 * it is not a directory. Canonical (realpath). NULL when path is missing. */
static char *start_dir(const char *path)
{
	char *real = realpath(path, NULL);
	struct stat st;
	char *slash;

	if (!real)
		return NULL;
	if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) {
		slash = strrchr(real, '/');
		if (slash == real)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
	}
	return real;
}

/* Open the repository containing dir; 1 when there is none, -1 on error. */
static int open_repo(const char *dir, git_repository **repo)
{
	int rc;

	prov_git_init();
	rc = git_repository_open_ext(repo, dir, 0, NULL);
	if (rc == GIT_ENOTFOUND)
		return 1;
	if (rc < 0)
		return error("%s: cannot open its git repository: %s", dir, prov_git_errmsg());
	return 0;
}

/* The work tree root, canonical, without the trailing '/'. */
static char *workdir_of(git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);
	char *real;
	size_t n;

	if (!wd)
		return NULL;
	real = realpath(wd, NULL);
	if (!real)
		real = xstrdup(wd);
	n = strlen(real);
	while (n > 1 && real[n - 1] == '/')
		real[--n] = '\0';
	return real;
}

static int hash_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
		     const git_diff_line *line, void *payload)
{
	struct sha256 *c = payload;
	char origin = line->origin;

	(void)delta;
	(void)hunk;
	sha256_update(c, &origin, 1);
	sha256_update(c, line->content, line->content_len);
	return 0;
}

/* dirty and diff_hash of the work tree against HEAD's tree (or the empty
 * tree when HEAD is unborn), tracked files only: as `git describe
 * --dirty`, an untracked file (a CI job's output, an editor's backup)
 * changes nothing of the commit (issue 29: every baseline was "+dirty"
 * because the CI snippet wrote its outputs into the checkout). */
static int read_dirty(git_repository *repo, git_tree *head_tree, struct prov_repo *out)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	struct sha256 c;
	int ret = -1;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_SHOW_BINARY | GIT_DIFF_INCLUDE_TYPECHANGE;
	if (git_diff_tree_to_workdir_with_index(&diff, repo, head_tree, &opts) < 0) {
		error("%s: cannot diff the work tree: %s", out->path ? out->path : "?",
		      prov_git_errmsg());
		goto out;
	}
	out->dirty = git_diff_num_deltas(diff) > 0;
	out->diff_hash[0] = '\0';
	if (out->dirty) {
		sha256_init(&c);
		if (git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, hash_line, &c) < 0) {
			error("%s: cannot print the work tree's diff: %s",
			      out->path ? out->path : "?", prov_git_errmsg());
			goto out;
		}
		sha256_final_hex(&c, out->diff_hash);
	}
	ret = 0;
out:
	git_diff_free(diff);
	return ret;
}

int prov_repo_read(const char *path, struct prov_repo *out)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	char *dir = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	dir = start_dir(path);
	if (!dir) {
		error("%s: %s", path, strerror(errno));
		goto out;
	}
	rc = open_repo(dir, &repo);
	if (rc) {
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	out->path = workdir_of(repo);

	rc = git_repository_head(&head, repo);
	if (rc == 0) {
		if (git_reference_is_branch(head))
			out->branch = xstrdup(git_reference_shorthand(head));
		if (git_reference_peel((git_object **)&commit, head, GIT_OBJECT_COMMIT) < 0) {
			error("%s: HEAD does not name a commit: %s", dir, prov_git_errmsg());
			goto out;
		}
		git_oid_tostr(hex, sizeof(hex), git_commit_id(commit));
		out->commit = xstrdup(hex);
		if (git_commit_tree(&tree, commit) < 0) {
			error("%s: cannot read HEAD's tree: %s", dir, prov_git_errmsg());
			goto out;
		}
	} else if (rc == GIT_EUNBORNBRANCH) {
		git_reference *sym = NULL;
		/* A fresh repository: the branch exists by name only. */
		if (git_reference_lookup(&sym, repo, "HEAD") == 0) {
			const char *t = git_reference_symbolic_target(sym);
			if (t && !strncmp(t, "refs/heads/", 11))
				out->branch = xstrdup(t + 11);
			git_reference_free(sym);
		}
	} else {
		error("%s: cannot read HEAD: %s", dir, prov_git_errmsg());
		goto out;
	}

	if (!git_repository_is_bare(repo) && read_dirty(repo, tree, out))
		goto out;
	ret = 0;
out:
	if (ret)
		prov_repo_release(out);
	git_tree_free(tree);
	git_commit_free(commit);
	git_reference_free(head);
	git_repository_free(repo);
	free(dir);
	return ret;
}

void prov_repo_release(struct prov_repo *r)
{
	free(r->path);
	free(r->commit);
	free(r->branch);
	memset(r, 0, sizeof(*r));
}

int prov_file_dirty(const char *file)
{
	git_repository *repo = NULL;
	char *real = NULL, *dir = NULL, *wd = NULL;
	unsigned int flags = 0;
	size_t n;
	int rc, ret = -1;

	real = realpath(file, NULL);
	if (!real) {
		error("%s: %s", file, strerror(errno));
		goto out;
	}
	dir = start_dir(real);
	if (!dir) {
		error("%s: %s", file, strerror(errno));
		goto out;
	}
	rc = open_repo(dir, &repo);
	if (rc) {
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	wd = workdir_of(repo);
	if (!wd) {
		ret = 0; /* a bare repository has no work tree files */
		goto out;
	}
	n = strlen(wd);
	if (strncmp(real, wd, n) || (real[n] != '/' && n != 1)) {
		ret = 0; /* outside the work tree (e.g. inside .git) */
		goto out;
	}
	rc = git_status_file(&flags, repo, real + n + (n == 1 ? 0 : 1));
	if (rc < 0) {
		error("%s: cannot read its git status: %s", file, prov_git_errmsg());
		goto out;
	}
	ret = flags == GIT_STATUS_CURRENT ? 0 : 1;
out:
	git_repository_free(repo);
	free(wd);
	free(dir);
	free(real);
	return ret;
}
