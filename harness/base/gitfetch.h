/*
 * gitfetch: fetch one commit of a repository with libgit2 and check it out
 * (harness rerun).
 *
 * REPO is a local path (relative to the current directory), a file:// URL
 * or any URL libgit2 can fetch (https where the network allows). http(s)
 * credentials: embedded as https://user:pass@host/... (used for the fetch,
 * never recorded; but visible to every user of the host in the harness's
 * command line), else from the environment: HARNESS_GIT_PASSWORD (a
 * token) as user HARNESS_GIT_USER (default x-access-token), the way to
 * keep a token off any command line. REF is, tried in this order:
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

#define GITFETCH_ENV_PASSWORD "HARNESS_GIT_PASSWORD"
#define GITFETCH_ENV_USER "HARNESS_GIT_USER"
#define GITFETCH_DEFAULT_USER "x-access-token"

/* The credentials a fetch of url offers: the URL's user:pass, else the
 * environment's (above). 0 with *user and *pass malloc'd, or -1 (both
 * NULL) when there are none. */
int gitfetch_credentials(const char *url, char **user, char **pass);
/* Remove the environment's credentials from this process (rerun calls it
 * once every fetch is done, before any fetched code runs). */
void gitfetch_forget_credentials(void);

/* "https://user:pass@host/x" -> "https://host/x" (malloc'd): the URL
 * recorded (fetchable again with the environment's credentials); any
 * other string is returned copied unchanged. */
char *gitfetch_strip_credentials(const char *url);

/* The URL as printed: its userinfo "user:pass@" becomes "user:***@",
 * "TOKEN@" becomes "***@" (a user name alone may be the token), malloc'd;
 * any other string copied unchanged. Every message that quotes a REPO a
 * user gave goes through it. */
char *gitfetch_redact_url(const char *url);
#define GITFETCH_REDACTED "***"

/* text (a message that may quote url, decoded or not) with every
 * occurrence of url's secret (its password, or its user name when it has
 * no password) replaced by "***", malloc'd; a copy when url has none. */
char *gitfetch_redact_text(const char *text, const char *url);

/*
 * Split "NAME=REPO#REF" (REF optional: "NAME=REPO") into malloc'd parts
 * (*ref NULL when absent). The '#' taken is the last one. -1 with an
 * error() when there is no '=' or a part is empty.
 */
int gitfetch_parse_arg(const char *arg, char **name, char **repo, char **ref);

#endif
