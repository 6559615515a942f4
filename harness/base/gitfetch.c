/*
 * gitfetch: fetch + detached checkout with libgit2 (see gitfetch.h).
 *
 * Why list the remote first: it lets a missing ref be reported as exactly
 * that ("no ref X in REPO"), distinct from a repository that cannot be
 * reached, and lets us fetch one ref rather than the whole remote.
 */
#include "base/gitfetch.h"
#include "base/prov.h"
#include "base/util.h"

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

/* The userinfo of url ("user:pass" in scheme://user:pass@host/...):
 * *at is its '@' (the last one before the path), NULL when there is none. */
static const char *userinfo(const char *url, const char **at)
{
	const char *host = strstr(url, "://"), *end, *p;

	*at = NULL;
	if (!host)
		return NULL;
	host += 3;
	end = host + strcspn(host, "/?#");
	for (p = host; p < end; p++)
		if (*p == '@')
			*at = p;
	return *at ? host : NULL;
}

char *gitfetch_strip_credentials(const char *url)
{
	const char *at, *ui = userinfo(url, &at);
	struct sbuf sb = SBUF_INIT;

	if (!ui)
		return xstrdup(url);
	sbuf_add(&sb, url, (size_t)(ui - url));
	sbuf_adds(&sb, at + 1);
	return sbuf_detach(&sb, NULL);
}

char *gitfetch_redact_url(const char *url)
{
	const char *at, *ui = userinfo(url, &at), *colon;
	struct sbuf sb = SBUF_INIT;

	if (!ui)
		return xstrdup(url);
	colon = memchr(ui, ':', (size_t)(at - ui));
	/* a user name alone may be the token (https://TOKEN@host/...) */
	sbuf_add(&sb, url, (size_t)((colon ? colon + 1 : ui) - url));
	sbuf_adds(&sb, GITFETCH_REDACTED);
	sbuf_adds(&sb, at);
	return sbuf_detach(&sb, NULL);
}

char *gitfetch_redact_text(const char *text, const char *url)
{
	const char *at, *ui = userinfo(url, &at), *colon, *p, *hit;
	struct sbuf sb = SBUF_INIT;
	size_t n;

	if (!ui)
		return xstrdup(text);
	colon = memchr(ui, ':', (size_t)(at - ui));
	if (colon)
		ui = colon + 1;
	n = (size_t)(at - ui);
	for (p = text; n && (hit = memmem(p, strlen(p), ui, n)); p = hit + n) {
		sbuf_add(&sb, p, (size_t)(hit - p));
		sbuf_adds(&sb, GITFETCH_REDACTED);
	}
	sbuf_adds(&sb, p);
	return sbuf_detach(&sb, NULL);
}

int gitfetch_parse_arg(const char *arg, char **name, char **repo, char **ref)
{
	const char *eq = strchr(arg, '='), *hash;

	char *shown = gitfetch_redact_url(arg);
	int ret = -1;

	*name = *repo = *ref = NULL;
	hash = eq ? strrchr(eq + 1, '#') : NULL;
	if (!eq || eq == arg || !eq[1])
		error("--impl %s: expected NAME=REPO#REF", shown);
	else if (hash == eq + 1 || (hash && !hash[1]))
		error("--impl %s: expected NAME=REPO#REF (empty %s)", shown,
		      hash == eq + 1 ? "REPO" : "REF");
	else
		ret = 0;
	free(shown);
	if (ret)
		return ret;
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

int gitfetch_credentials(const char *url, char **user, char **pass)
{
	const char *at, *ui = userinfo(url, &at), *colon, *env;

	*user = *pass = NULL;
	colon = ui ? memchr(ui, ':', (size_t)(at - ui)) : NULL;
	if (colon) {
		*user = xstrndup(ui, (size_t)(colon - ui));
		*pass = xstrndup(colon + 1, (size_t)(at - colon - 1));
		return 0;
	}
	env = getenv(GITFETCH_ENV_PASSWORD);
	if (!env || !*env)
		return -1;
	*pass = xstrdup(env);
	env = getenv(GITFETCH_ENV_USER);
	*user = xstrdup(env && *env ? env : GITFETCH_DEFAULT_USER);
	return 0;
}

void gitfetch_forget_credentials(void)
{
	unsetenv(GITFETCH_ENV_PASSWORD);
	unsetenv(GITFETCH_ENV_USER);
}

static void cred_parse(const char *url, struct cred_state *c)
{
	memset(c, 0, sizeof(*c));
	gitfetch_credentials(url, &c->user, &c->pass);
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

/* One fetch in progress: what its phases share. */
struct fetch {
	const char *ref, *dest;
	struct gitfetch_result *out;
	git_repository *repo;
	git_remote *remote;
	git_remote_callbacks cbs;
	struct cred_state cred;
	char *fetch_url, *record_url;
	char *spec;             /* the refspec to fetch */
	char *errmsg;           /* libgit2's last message, credentials redacted */
	int have_head;          /* ref named a remote head: head_oid */
	git_oid head_oid;
};

/* libgit2's last error message with the URL's credentials redacted (it
 * may quote the URL); valid until the next call or the end of the fetch. */
static const char *git_err(struct fetch *f)
{
	free(f->errmsg);
	f->errmsg = gitfetch_redact_text(prov_git_errmsg(), f->fetch_url);
	return f->errmsg;
}

/* Phase 1: an empty destination with a fresh repository in it. */
static int fetch_prepare(struct fetch *f)
{
	if (!dir_empty_or_absent(f->dest))
		return error("%s: destination exists and is not empty", f->dest);
	if (mkdir_p(f->dest, 0755))
		return error("%s: cannot create: %s", f->dest, strerror(errno));
	if (git_repository_init(&f->repo, f->dest, 0) < 0)
		return error("%s: cannot create a repository: %s", f->dest, prov_git_errmsg());
	return 0;
}

/* Phase 2: list the remote's refs and choose what to fetch: the head ref
 * names, or every ref when ref is a commit id (prefix). */
static int fetch_list(struct fetch *f)
{
	git_remote_create_options ro;
	const git_remote_head **heads = NULL;
	const git_remote_head *head;
	size_t nheads = 0;

	cred_parse(f->fetch_url, &f->cred);
	git_remote_init_callbacks(&f->cbs, GIT_REMOTE_CALLBACKS_VERSION);
	f->cbs.credentials = cred_cb;
	f->cbs.payload = &f->cred;
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = f->repo;
	/* why: url.*.insteadOf rewriting would fetch from elsewhere than the
	 * URL recorded (and libgit2 1.5 leaks in that config glob). */
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&f->remote, f->fetch_url, &ro) < 0 ||
	    git_remote_connect(f->remote, GIT_DIRECTION_FETCH, &f->cbs, NULL, NULL) < 0 ||
	    git_remote_ls(&heads, &nheads, f->remote) < 0)
		return error("%s: cannot fetch: %s", f->record_url, git_err(f));
	head = pick_head(heads, nheads, f->ref);
	if (head) {
		/* heads[] is the remote's until disconnect: copy what we need. */
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, "+%s:%s", head->name, FETCHED_REF);
		f->spec = sbuf_detach(&sb, NULL);
		f->out->ref_resolved = xstrdup(head->name);
		git_oid_cpy(&f->head_oid, &head->oid);
		f->have_head = 1;
	} else if (is_hex(f->ref, 7)) {
		f->spec = xstrdup("+refs/*:refs/harness/all/*");
	} else {
		return error("%s: no ref '%s' (looked for %s, refs/heads/%s, refs/tags/%s)",
			     f->record_url, f->ref, f->ref, f->ref, f->ref);
	}
	git_remote_disconnect(f->remote);
	return 0;
}

/* Phase 3: fetch the chosen refspec (no tags, no FETCH_HEAD). */
static int fetch_objects(struct fetch *f)
{
	git_fetch_options fo;
	git_strarray specs;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks = f->cbs;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	specs.strings = &f->spec;
	specs.count = 1;
	/* why a reflog message: libgit2's default quotes the URL */
	if (git_remote_fetch(f->remote, &specs, &fo, "harness rerun: fetch") < 0)
		return error("%s: cannot fetch %s: %s", f->record_url, f->ref, git_err(f));
	return 0;
}

/* Phase 4: find the commit, check it out (detached), fill the result. */
static int fetch_checkout(struct fetch *f)
{
	git_object *obj = NULL, *commit = NULL;
	git_checkout_options co;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	if (f->have_head) {
		if (git_object_lookup(&obj, f->repo, &f->head_oid, GIT_OBJECT_ANY) < 0) {
			error("%s: fetched %s but cannot read it: %s", f->record_url,
			      f->out->ref_resolved, git_err(f));
			goto out;
		}
	} else {
		git_oid prefix;
		size_t len = strlen(f->ref);
		if (git_oid_fromstrn(&prefix, f->ref, len) < 0 ||
		    git_object_lookup_prefix(&obj, f->repo, &prefix, len, GIT_OBJECT_ANY) < 0) {
			error("%s: no commit '%s' reachable from any of its refs", f->record_url, f->ref);
			goto out;
		}
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		error("%s: '%s' does not name a commit", f->record_url, f->ref);
		goto out;
	}
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(f->repo, commit, &co) < 0 ||
	    git_repository_set_head_detached(f->repo, git_object_id(commit)) < 0) {
		error("%s: cannot check out %s: %s", f->dest, f->ref, git_err(f));
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), git_object_id(commit));
	f->out->commit = xstrdup(hex);
	f->out->ref_asked = xstrdup(f->ref);
	f->out->remote_url = f->record_url;
	f->record_url = NULL;
	ret = 0;
out:
	git_object_free(commit);
	git_object_free(obj);
	return ret;
}

int gitfetch(const char *repo_arg, const char *ref, const char *dest,
	     struct gitfetch_result *out)
{
	struct fetch f;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	prov_git_init();
	f.ref = ref && *ref ? ref : "HEAD";
	f.dest = dest;
	f.out = out;
	if (!resolve_url(repo_arg, &f.fetch_url, &f.record_url) && !fetch_prepare(&f) &&
	    !fetch_list(&f) && !fetch_objects(&f) && !fetch_checkout(&f))
		ret = 0;
	if (ret)
		gitfetch_result_release(out);
	git_remote_free(f.remote);
	git_repository_free(f.repo);
	free(f.cred.user);
	free(f.cred.pass);
	free(f.spec);
	free(f.fetch_url);
	free(f.record_url);
	free(f.errmsg);
	return ret;
}
