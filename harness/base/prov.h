/*
 * prov: provenance of the code being measured, read with libgit2.
 *
 * For the spec's repository and every implementation's `repo` the runner
 * records which commit was checked out, on which branch, and whether the
 * work tree differed from it (and a hash of that difference, so two runs
 * on "the same dirty tree" can be told apart from two different ones).
 *
 * libgit2 is initialised once, on first use (prov_git_init); it is never
 * shut down. Its ownership validation (the "dubious ownership" check) is
 * switched off: `harness rerun` checks contributor code out into a tree
 * owned by the sandbox user and root must still read its provenance;
 * libgit2 runs no hooks, filters or fsmonitor commands from a repository's
 * config, so reading such a tree is safe.
 *
 * Ownership: struct prov_repo owns its strings; prov_repo_release() frees
 * them and re-initialises the struct.
 */
#ifndef HARNESS_PROV_H
#define HARNESS_PROV_H

struct prov_repo {
	char *path;         /* work tree root (absolute, no trailing '/'),
	                       NULL when not in a git work tree */
	char *commit;       /* HEAD's commit id (40 hex), NULL when not a git
	                       repository or HEAD has no commit yet */
	char *branch;       /* short branch name; NULL when detached / none */
	int dirty;          /* 1 when a tracked file differs from HEAD in the
	                       work tree or the index; untracked files do not
	                       count (as `git describe --dirty`) */
	char diff_hash[65]; /* sha-256 of the uncommitted difference ("git diff
	                       HEAD" as a patch, binary content as binary
	                       patches); "" when clean */
};

/* Initialise libgit2 (idempotent, thread-safe). */
void prov_git_init(void);

/*
 * Read the repository containing path (any file or directory inside a work
 * tree). Not in a repository: out->commit (and path) NULL, dirty 0, returns
 * 0. Returns -1 with an error() naming path only when path does not exist or
 * the repository cannot be read.
 */
int prov_repo_read(const char *path, struct prov_repo *out);
void prov_repo_release(struct prov_repo *r);

/*
 * 1 when file is modified (in the work tree or staged) relative to HEAD, or
 * untracked, or ignored, in its repository; 0 when it is committed and
 * clean; 0 when it is not inside a git repository at all (provenance cannot
 * be checked there, so the spec is accepted as is). -1 with an error() when
 * file cannot be resolved (does not exist).
 */
int prov_file_dirty(const char *file);

/* The last libgit2 error as text ("unknown libgit2 error" when none). */
const char *prov_git_errmsg(void);

#endif
