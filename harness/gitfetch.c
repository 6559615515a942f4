/*
 * gitfetch: fetch + detached checkout with libgit2 (see gitfetch.h).
 *
 * Why list the remote first: it lets a missing ref be reported as exactly
 * that ("no ref X in REPO"), distinct from a repository that cannot be
 * reached, and lets us fetch one ref rather than the whole remote.
 */
#include "gitfetch.h"
#include "prov.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define FETCHED_REF "refs/harness/fetched"

void gitfetch_result_release(struct gitfetch_result *r)
{
	free(r->commit);
	free(r->ref_asked);
	free(r->ref_resolved);
	free(r->remote_url);
	r->commit = r->ref_asked = r->ref_resolved = r->remote_url = NULL;
}

char *gitfetch_strip_credentials(const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host, *at, *end;
	struct sbuf sb = SBUF_INIT;

	if (!scheme)
		return xstrdup(url);
	host = scheme + 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (!at)
		return xstrdup(url);
	/* The last '@' before the path ends the userinfo. */
	while (memchr(at + 1, '@', (size_t)(end - at - 1)))
		at = memchr(at + 1, '@', (size_t)(end - at - 1));
	sbuf_add(&sb, url, (size_t)(host - url));
	sbuf_adds(&sb, at + 1);
	return sbuf_detach(&sb, NULL);
}

int gitfetch_parse_arg(const char *arg, char **name, char **repo, char **ref)
{
	const char *eq = strchr(arg, '='), *hash;

	*name = *repo = *ref = NULL;
	if (!eq || eq == arg || !eq[1])
		return error("--impl %s: expected NAME=REPO#REF", arg);
	hash = strrchr(eq + 1, '#');
	if (hash == eq + 1 || (hash && !hash[1]))
		return error("--impl %s: expected NAME=REPO#REF (empty %s)", arg,
			     hash == eq + 1 ? "REPO" : "REF");
	*name = xstrndup(arg, (size_t)(eq - arg));
	if (hash) {
		*repo = xstrndup(eq + 1, (size_t)(hash - eq - 1));
		*ref = xstrdup(hash + 1);
	} else {
		*repo = xstrdup(eq + 1);
	}
	return 0;
}

/* ------------------------------------------------------------ helpers */

static int is_hex(const char *s, size_t min)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n >= min && n <= GIT_OID_HEXSZ;
}

/* The URL libgit2 is given, and the one recorded. A local path (anything
 * without "://" that exists) is made absolute. */
static int resolve_url(const char *repo, char **fetch_url, char **record_url)
{
	char *real;

	if (strstr(repo, "://")) {
		*fetch_url = xstrdup(repo);
		*record_url = gitfetch_strip_credentials(repo);
		return 0;
	}
	real = realpath(repo, NULL);
	if (!real)
		return error("%s: cannot fetch: %s", repo, strerror(errno));
	*fetch_url = real;
	*record_url = xstrdup(real);
	return 0;
}

/* Credentials from the URL's userinfo, offered once. */
struct cred_state {
	char *user, *pass;
	int tried;
};

static void cred_parse(const char *url, struct cred_state *c)
{
	const char *host = strstr(url, "://"), *end, *at, *colon;

	memset(c, 0, sizeof(*c));
	if (!host)
		return;
	host += 3;
	end = host + strcspn(host, "/?#");
	at = NULL;
	for (const char *p = host; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return;
	colon = memchr(host, ':', (size_t)(at - host));
	if (!colon)
		return;
	c->user = xstrndup(host, (size_t)(colon - host));
	c->pass = xstrndup(colon + 1, (size_t)(at - colon - 1));
}

static int cred_cb(git_credential **out, const char *url, const char *user_from_url,
		   unsigned int allowed, void *payload)
{
	struct cred_state *c = payload;

	(void)url;
	(void)user_from_url;
	if (!c->user || c->tried || !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
		return GIT_PASSTHROUGH;
	c->tried = 1;
	return git_credential_userpass_plaintext_new(out, c->user, c->pass);
}

static int dir_empty_or_absent(const char *dest)
{
	DIR *d = opendir(dest);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return errno == ENOENT;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* Pick the advertised ref for ref; NULL when none matches. */
static const git_remote_head *pick_head(const git_remote_head **heads, size_t n, const char *ref)
{
	static const char *const prefixes[] = { "", "refs/heads/", "refs/tags/" };
	size_t f, i, plen;

	for (f = 0; f < ARRAY_SIZE(prefixes); f++) {
		plen = strlen(prefixes[f]);
		for (i = 0; i < n; i++)
			if (!strncmp(heads[i]->name, prefixes[f], plen) &&
			    !strcmp(heads[i]->name + plen, ref))
				return heads[i];
	}
	if (is_hex(ref, 7)) {
		char hex[GIT_OID_HEXSZ + 1];
		for (i = 0; i < n; i++) {
			git_oid_tostr(hex, sizeof(hex), &heads[i]->oid);
			if (!strncasecmp(hex, ref, strlen(ref)))
				return heads[i];
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ fetch */

int gitfetch(const char *repo_arg, const char *ref, const char *dest,
	     struct gitfetch_result *out)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_remote_callbacks cbs;
	git_fetch_options fo;
	git_remote_create_options ro;
	git_checkout_options co;
	git_object *obj = NULL, *commit = NULL;
	const git_remote_head **heads = NULL;
	const git_remote_head *head = NULL;
	git_oid head_oid;
	struct cred_state cred = { 0 };
	char *fetch_url = NULL, *record_url = NULL, *spec = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	size_t nheads = 0;
	git_strarray specs;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	prov_git_init();
	if (!ref || !*ref)
		ref = "HEAD";
	if (resolve_url(repo_arg, &fetch_url, &record_url))
		goto out;
	if (!dir_empty_or_absent(dest)) {
		error("%s: destination exists and is not empty", dest);
		goto out;
	}
	if (mkdir_p(dest, 0755)) {
		error("%s: cannot create: %s", dest, strerror(errno));
		goto out;
	}
	if (git_repository_init(&repo, dest, 0) < 0) {
		error("%s: cannot create a repository: %s", dest, prov_git_errmsg());
		goto out;
	}
	cred_parse(fetch_url, &cred);
	git_remote_init_callbacks(&cbs, GIT_REMOTE_CALLBACKS_VERSION);
	cbs.credentials = cred_cb;
	cbs.payload = &cred;
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	/* why: url.*.insteadOf rewriting would fetch from elsewhere than the
	 * URL recorded (and libgit2 1.5 leaks in that config glob). */
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, fetch_url, &ro) < 0 ||
	    git_remote_connect(remote, GIT_DIRECTION_FETCH, &cbs, NULL, NULL) < 0 ||
	    git_remote_ls(&heads, &nheads, remote) < 0) {
		error("%s: cannot fetch: %s", record_url, prov_git_errmsg());
		goto out;
	}
	head = pick_head(heads, nheads, ref);
	if (head) {
		/* heads[] is the remote's until disconnect: copy what we need. */
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, "+%s:%s", head->name, FETCHED_REF);
		spec = sbuf_detach(&sb, NULL);
		out->ref_resolved = xstrdup(head->name);
		git_oid_cpy(&head_oid, &head->oid);
	} else if (is_hex(ref, 7)) {
		spec = xstrdup("+refs/*:refs/harness/all/*");
	} else {
		error("%s: no ref '%s' (looked for %s, refs/heads/%s, refs/tags/%s)",
		      record_url, ref, ref, ref, ref);
		goto out;
	}
	git_remote_disconnect(remote);

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks = cbs;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	specs.strings = &spec;
	specs.count = 1;
	if (git_remote_fetch(remote, &specs, &fo, NULL) < 0) {
		error("%s: cannot fetch %s: %s", record_url, ref, prov_git_errmsg());
		goto out;
	}

	if (head) {
		if (git_object_lookup(&obj, repo, &head_oid, GIT_OBJECT_ANY) < 0) {
			error("%s: fetched %s but cannot read it: %s", record_url, out->ref_resolved,
			      prov_git_errmsg());
			goto out;
		}
	} else {
		git_oid prefix;
		size_t len = strlen(ref);
		if (git_oid_fromstrn(&prefix, ref, len) < 0 ||
		    git_object_lookup_prefix(&obj, repo, &prefix, len, GIT_OBJECT_ANY) < 0) {
			error("%s: no commit '%s' reachable from any of its refs", record_url, ref);
			goto out;
		}
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		error("%s: '%s' does not name a commit", record_url, ref);
		goto out;
	}

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(repo, commit, &co) < 0 ||
	    git_repository_set_head_detached(repo, git_object_id(commit)) < 0) {
		error("%s: cannot check out %s: %s", dest, ref, prov_git_errmsg());
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), git_object_id(commit));
	out->commit = xstrdup(hex);
	out->ref_asked = xstrdup(ref);
	out->remote_url = record_url;
	record_url = NULL;
	ret = 0;
out:
	if (ret)
		gitfetch_result_release(out);
	git_object_free(commit);
	git_object_free(obj);
	git_remote_free(remote);
	git_repository_free(repo);
	free(cred.user);
	free(cred.pass);
	free(spec);
	free(fetch_url);
	free(record_url);
	return ret;
}
