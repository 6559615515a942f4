/*
 * test_gitfetch: argument parsing and credential stripping. Fetching
 * itself is tested end to end (tests/e2e/rerun.sh) against repositories
 * made with git.
 */
#include "t.h"
#include "base/gitfetch.h"
#include "base/util.h"

#include <stdlib.h>

static void strip_is(const char *in, const char *want)
{
	char *got = gitfetch_strip_credentials(in);
	CHECK_STR(got, want);
	free(got);
}

TEST(strips_credentials)
{
	strip_is("https://user:secret@example.com/o/r.git", "https://example.com/o/r.git");
	strip_is("https://token@example.com/o/r", "https://example.com/o/r");
	strip_is("https://u:p@ss@example.com:8443/x", "https://example.com:8443/x");
	strip_is("https://example.com/a@b", "https://example.com/a@b"); /* '@' in the path */
	strip_is("file:///tmp/repo", "file:///tmp/repo");
	strip_is("/tmp/repo", "/tmp/repo");
	strip_is("git@example.com:o/r.git", "git@example.com:o/r.git"); /* no secret */
}

static void redact_is(const char *in, const char *want)
{
	char *got = gitfetch_redact_url(in);
	CHECK_STR(got, want);
	free(got);
}

static void redact_text_is(const char *text, const char *url, const char *want)
{
	char *got = gitfetch_redact_text(text, url);
	CHECK_STR(got, want);
	free(got);
}

/* Issue 25 item 8: what is printed keeps the user and hides the secret. */
TEST(redacts_credentials)
{
	redact_is("http://bob:s3cretPW@host:8080/o/r.git", "http://bob:***@host:8080/o/r.git");
	redact_is("https://ghp_TOKEN@github.com/o/r", "https://***@github.com/o/r");
	redact_is("https://u:p@ss@example.com/x", "https://u:***@example.com/x");
	redact_is("https://u:@example.com/x", "https://u:***@example.com/x");
	redact_is("go=https://u:pw@h/r#main", "go=https://u:***@h/r#main"); /* an --impl arg */
	redact_is("https://example.com/a@b", "https://example.com/a@b");
	redact_is("/tmp/repo", "/tmp/repo");
	redact_text_is("failed to connect to http://bob:s3cretPW@h/: s3cretPW refused",
		       "http://bob:s3cretPW@h/r", "failed to connect to http://bob:***@h/: *** refused");
	redact_text_is("auth as ghp_TOKEN failed", "https://ghp_TOKEN@h/r", "auth as *** failed");
	redact_text_is("no secret here", "https://h/r", "no secret here");
	redact_text_is("empty password", "https://u:@h/r", "empty password");
}

/* gitfetch_credentials(url) gives want_u and want_p (NULL: any). */
static void creds(const char *url, const char *want_u, const char *want_p)
{
	char *u, *p;

	CHECK(gitfetch_credentials(url, &u, &p) == 0);
	CHECK_STR(u, want_u);
	if (want_p)
		CHECK_STR(p, want_p);
	free(u);
	free(p);
}

TEST(credentials_from_url_then_environment)
{
	char *u, *p;

	unsetenv("HARNESS_GIT_PASSWORD");
	unsetenv("HARNESS_GIT_USER");
	CHECK(gitfetch_credentials("https://host/o/r", &u, &p) == -1 && !u && !p);
	creds("https://me:tok@host/o/r", "me", "tok");
	setenv("HARNESS_GIT_PASSWORD", "envtok", 1);
	creds("https://host/o/r", "x-access-token", "envtok");
	setenv("HARNESS_GIT_USER", "bot", 1);
	creds("https://host/o/r", "bot", NULL);
	/* the URL's own wins */
	creds("https://me:tok@host/o/r", "me", NULL);
	gitfetch_forget_credentials();
	CHECK(!getenv("HARNESS_GIT_PASSWORD") && !getenv("HARNESS_GIT_USER"));
	CHECK(gitfetch_credentials("https://host/o/r", &u, &p) == -1);
}

TEST(parses_impl_args)
{
	char *n, *r, *f;

	CHECK(gitfetch_parse_arg("go=/tmp/repo#feature/x", &n, &r, &f) == 0);
	CHECK_STR(n, "go");
	CHECK_STR(r, "/tmp/repo");
	CHECK_STR(f, "feature/x");
	free(n), free(r), free(f);

	CHECK(gitfetch_parse_arg("go=https://h/r#x#refs/pull/42/head", &n, &r, &f) == 0);
	CHECK_STR(r, "https://h/r#x");   /* the last '#' splits */
	CHECK_STR(f, "refs/pull/42/head");
	free(n), free(r), free(f);

	CHECK(gitfetch_parse_arg("go=file:///tmp/r", &n, &r, &f) == 0);
	CHECK(f == NULL);
	free(n), free(r);

	CHECK(gitfetch_parse_arg("go", &n, &r, &f) == -1);
	CHECK(gitfetch_parse_arg("=repo#x", &n, &r, &f) == -1);
	CHECK(gitfetch_parse_arg("go=", &n, &r, &f) == -1);
	CHECK(gitfetch_parse_arg("go=#x", &n, &r, &f) == -1);
	CHECK(gitfetch_parse_arg("go=repo#", &n, &r, &f) == -1);
	CHECK(n == NULL && r == NULL && f == NULL);
}

TEST(missing_repository_fails)
{
	struct gitfetch_result res;
	CHECK(gitfetch("/nonexistent/repo", "main", "/tmp/test_gitfetch.never", &res) == -1);
	CHECK(res.commit == NULL);
}

int main(void)
{
	RUN(strips_credentials);
	RUN(redacts_credentials);
	RUN(credentials_from_url_then_environment);
	RUN(parses_impl_args);
	RUN(missing_repository_fails);
	return t_done();
}
