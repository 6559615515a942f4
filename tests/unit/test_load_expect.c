/* test_load_expect: a response against its request's expect (load_expect.c):
 * statuses, the body searched as it streams in (a match split across
 * reads, at every split point), max_bytes, truncation, the sample head. */
#include <stdio.h>
#include <string.h>

#include "load/load_internal.h"
#include "t.h"

static char why[96];

static const char *check(const struct load_expect *e, int status, const char *body,
			 size_t split)
{
	static struct load_check k;
	size_t n = strlen(body);

	load_check_start(&k);
	if (split > n)
		split = n;
	load_check_body(&k, e, body, split);
	load_check_body(&k, e, body + split, n - split);
	return load_expect_why(e, status, &k, why, sizeof(why));
}

TEST(default_is_2xx_or_3xx)
{
	struct load_expect e = { 0 };

	CHECK(load_expect_why(&e, 200, NULL, why, sizeof(why)) == NULL);
	CHECK(load_expect_why(&e, 399, NULL, why, sizeof(why)) == NULL);
	CHECK(load_expect_why(&e, 404, NULL, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "status 404") != NULL);
	CHECK(load_expect_why(&e, 199, NULL, why, sizeof(why)) != NULL);
	CHECK(load_expect_why(&e, 500, NULL, why, sizeof(why)) != NULL);
	CHECK(!load_expect_needs_body(&e));
}

TEST(listed_statuses)
{
	int st[] = { 201, 404 };
	struct load_expect e = { .status = st, .nstatus = 2 };

	CHECK(load_expect_why(&e, 404, NULL, why, sizeof(why)) == NULL);
	CHECK(load_expect_why(&e, 201, NULL, why, sizeof(why)) == NULL);
	CHECK(load_expect_why(&e, 200, NULL, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "status 200, expected 201") != NULL);
}

TEST(body_contains_across_reads)
{
	char needle[] = "\"id\":42";
	struct load_expect e = { .body_contains = needle, .body_contains_len = 7 };
	const char *body = "{\"name\":\"x\",\"id\":42,\"more\":1}";
	size_t s;

	CHECK(load_expect_needs_body(&e));
	/* Every split point, including those inside the needle. */
	for (s = 0; s <= strlen(body); s++)
		CHECK(check(&e, 200, body, s) == NULL);
	CHECK(check(&e, 200, "{\"id\":43}", 3) != NULL);
	CHECK(strstr(why, "does not contain") != NULL);
	CHECK(check(&e, 200, "", 0) != NULL);
	CHECK(strstr(why, "0 bytes") != NULL);
	/* Status is judged first. */
	CHECK(check(&e, 500, body, 5) != NULL);
	CHECK(strstr(why, "status 500") != NULL);
}

TEST(many_small_reads)
{
	char needle[] = "abcdef";
	struct load_expect e = { .body_contains = needle, .body_contains_len = 6 };
	const char *body = "xxabcxdefxxabcdefyy";
	struct load_check k;
	size_t i;

	load_check_start(&k);
	for (i = 0; body[i]; i++)
		load_check_body(&k, &e, body + i, 1);
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) == NULL);
	CHECK(k.bytes == strlen(body));
	CHECK(k.nhead == strlen(body));
	CHECK(!memcmp(k.head, body, k.nhead));
	load_check_start(&k);
	for (i = 0; i < 11; i++)   /* "xxabcxdefxx": a near miss only */
		load_check_body(&k, &e, body + i, 1);
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
}

TEST(max_bytes_and_truncated)
{
	struct load_expect e = { .max_bytes = 4 };
	struct load_check k;
	char big[LOAD_SAMPLE_BODY + 50];

	CHECK(check(&e, 200, "1234", 2) == NULL);
	CHECK(check(&e, 200, "12345", 2) != NULL);
	CHECK(strstr(why, "5 bytes") != NULL);
	memset(big, 'a', sizeof(big));
	load_check_start(&k);
	load_check_body(&k, &e, big, sizeof(big));
	CHECK(k.nhead == LOAD_SAMPLE_BODY);   /* the sample keeps the head only */
	e.max_bytes = 0;
	load_check_start(&k);
	k.truncated = 1;
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "truncated") != NULL);
}

TEST(content_type)
{
	char want[] = "application/json";
	struct load_expect e = { .content_type = want };
	struct load_check k;

	load_check_start(&k);
	/* The parser may split names and values anywhere. */
	load_check_field(&k, "Content-Le", 10);
	load_check_field(&k, "ngth", 4);
	load_check_value(&k, "2", 1);
	load_check_field(&k, "content-", 8);
	load_check_field(&k, "TYPE", 4);
	load_check_value(&k, "Application/", 12);
	load_check_value(&k, "JSON; charset=utf-8", 19);
	load_check_field(&k, "X-A-Very-Long-Header-Name", 25);
	load_check_value(&k, "text/html", 9);
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) == NULL);
	load_check_start(&k);
	load_check_field(&k, "Content-Type", 12);
	load_check_value(&k, "text/html", 9);
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "content type \"text/html\"") != NULL);
	load_check_start(&k);            /* none declared */
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
	load_check_start(&k);
	load_check_field(&k, "Content-Type", 12);
	load_check_value(&k, "application/json+x", 18);   /* a prefix is not a match */
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
}

/* load_expect_check: one whole response, for the pre-flight. */
TEST(whole_response)
{
	char want[] = "application/json", needle[] = "\"id\"";
	struct kv json[] = { { (char *)"/id", (char *)"42" } };
	struct load_expect e = { .content_type = want, .body_contains = needle,
				 .body_contains_len = 4, .json = json, .njson = 1 };
	struct load_expect any = { 0 };

	CHECK(load_expect_check(&e, 200, "application/json; charset=utf-8", "{\"id\": 42}", 10,
				why, sizeof(why)) == NULL);
	CHECK(load_expect_check(&e, 200, NULL, "{\"id\": 42}", 10, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "content type") != NULL);
	CHECK(load_expect_check(&e, 200, "application/json", "{\"id\": 43}", 10, why,
				sizeof(why)) != NULL);
	CHECK(strstr(why, "/id is 43, expected 42") != NULL);
	CHECK(load_expect_check(&any, 404, NULL, "", 0, why, sizeof(why)) != NULL);
	CHECK_STR(why, "status 404, expected 2xx or 3xx");
	CHECK(load_expect_check(&any, 302, NULL, NULL, 0, why, sizeof(why)) == NULL);
}

TEST(json_pointers)
{
	struct kv want[] = {
		{ (char *)"/id", (char *)"42" },
		{ (char *)"/tags/1", (char *)"b" },
		{ (char *)"/ok", (char *)"true" },
		{ (char *)"/none", (char *)"null" },
	};
	struct load_expect e = { .json = want, .njson = 4 };
	const char *body = "{\"id\": 42.0, \"tags\": [\"a\", \"b\"], \"ok\": true, \"none\": null}";
	struct load_check k = { 0 };
	size_t s;

	CHECK(load_expect_needs_body(&e));
	for (s = 0; s <= strlen(body); s += 7) {
		CHECK(check(&e, 200, body, s) == NULL);   /* split anywhere */
	}
	CHECK(check(&e, 200, "{\"id\": 43, \"tags\": [\"a\", \"b\"]}", 5) != NULL);
	CHECK(strstr(why, "/id is 43, expected 42") != NULL);
	CHECK(check(&e, 200, "{\"id\": 42, \"tags\": [\"a\"]}", 5) != NULL);
	CHECK(strstr(why, "no /tags/1") != NULL);
	CHECK(check(&e, 200, "<html>", 2) != NULL);
	CHECK(strstr(why, "not JSON") != NULL);
	e.njson = 1;
	CHECK(check(&e, 200, "{\"id\": \"42\"}", 3) == NULL);   /* "42" as written */
	/* Too large a body is not parsed, and says so. */
	load_check_start(&k);
	k.jtoo_big = 1;
	CHECK(load_expect_why(&e, 200, &k, why, sizeof(why)) != NULL);
	CHECK(strstr(why, "too large") != NULL);
	load_check_release(&k);
}

int main(void)
{
	RUN(json_pointers);
	RUN(content_type);
	RUN(default_is_2xx_or_3xx);
	RUN(listed_statuses);
	RUN(body_contains_across_reads);
	RUN(many_small_reads);
	RUN(max_bytes_and_truncated);
	RUN(whole_response);
	return t_done();
}
