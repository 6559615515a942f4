/*
 * gitfetch: fetch one commit of a repository with libgit2 and check it out
 * (harness rerun).
 *
 * REPO is a local path (relative to the current directory), a file:// URL
 * or any URL libgit2 can fetch (https where the network allows; http(s)
 * credentials embedded as https://user:pass@host/... are used for the fetch
 * and never recorded). REF is, tried in this order:
 *   - a full ref name as the remote advertises it (refs/pull/42/head,
 *     refs/heads/main, HEAD);
 *   - a branch (refs/heads/REF), then a tag (refs/tags/REF, peeled);
 *   - a commit id, full or abbreviated (>= 7 hex digits): the advertised
 *     ref pointing at it is fetched, else every ref of the remote, and the
 *     commit is looked up among what arrived.
 * NULL or "" means the remote's HEAD.
 *
 * The destination directory is created (it must not exist or be empty),
 * initialised as a repository with the fetched ref stored under
 * refs/harness/fetched, and its work tree checked out at that exact commit
 * with HEAD detached.
 *
 * Ownership: struct gitfetch_result owns its strings;
 * gitfetch_result_release() frees them.
 */
#ifndef HARNESS_GITFETCH_H
#define HARNESS_GITFETCH_H

struct gitfetch_result {
	char *commit;       /* 40 hex digits */
	char *ref_asked;    /* REF as given ("HEAD" when none) */
	char *ref_resolved; /* the remote ref that was fetched, or NULL when
	                       a commit id was found among all refs */
	char *remote_url;   /* credentials stripped; a local path made absolute */
};

/*
 * Fetch repo at ref into dest and check it out. -1 with one error() line
 * naming the repository and, when it is missing, the ref (the caller exits
 * 2 on either).
 */
int gitfetch(const char *repo, const char *ref, const char *dest,
	     struct gitfetch_result *out);
void gitfetch_result_release(struct gitfetch_result *r);

/* "https://user:pass@host/x" -> "https://host/x" (malloc'd); any other
 * string is returned copied unchanged. */
char *gitfetch_strip_credentials(const char *url);

/*
 * Split "NAME=REPO#REF" (REF optional: "NAME=REPO") into malloc'd parts
 * (*ref NULL when absent). The '#' taken is the last one. -1 with an
 * error() when there is no '=' or a part is empty.
 */
int gitfetch_parse_arg(const char *arg, char **name, char **repo, char **ref);

#endif
