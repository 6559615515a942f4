/*
 * test_preflight_diff: the strict comparison of two answers, and a base's
 * self-check (issue 24 item 7: a commit under test answering 200 with
 * another body is told, with the difference shown; what the base varies
 * itself is not held against it).
 */
#include <string.h>

#include "runner/preflight_diff.h"
#include "t.h"

static struct preflight_answer ans(long status, const char *ctype, const char *body)
{
	struct preflight_answer a = { status, ctype, body, body ? strlen(body) : 0, 0 };

	return a;
}

/* The line preflight_diff writes, "" when the answers agree; noise (when
 * given) is the base's second answer's text, the noise lines in *nz. */
static const char *diff(struct preflight_answer ref, struct preflight_answer x,
			char *const *ignore, const struct preflight_answer *ref2, struct sbuf *nz)
{
	static char buf[512];
	const char *w = preflight_diff(&ref, &x, ignore, ref2, nz, buf, sizeof(buf));

	return w ? w : "";
}

#define OCTET "application/octet-stream"
#define JSON "application/json"

TEST(bodies_byte_for_byte_with_the_difference_shown)
{
	CHECK_STR(diff(ans(200, OCTET, "meridian"), ans(200, OCTET, "MERIDIAN"), NULL, NULL, NULL),
		  "bodies differ at byte 0 (8 vs 8 bytes): \"meridian\" vs \"MERIDIAN\"");
	CHECK_STR(diff(ans(200, OCTET, "meridian"), ans(200, OCTET, "meridian"), NULL, NULL, NULL),
		  "");
	/* far into a long body: an excerpt from a little before it */
	CHECK_STR(diff(ans(200, OCTET, "0123456789abcdefghijklmnopqrstuvwxyz"),
		       ans(200, OCTET, "0123456789abcdefghijKlmnopqrstuvwxyz"), NULL, NULL, NULL),
		  "bodies differ at byte 20 (36 vs 36 bytes): \"...cdefghijklmnopqrstuvwxyz\" vs "
		  "\"...cdefghijKlmnopqrstuvwxyz\"");
	/* control bytes and quotes escaped; a shorter body */
	CHECK_STR(diff(ans(200, OCTET, "a\"b\n"), ans(200, OCTET, "a\"b"), NULL, NULL, NULL),
		  "bodies differ at byte 3 (4 vs 3 bytes): \"a\\\"b\\x0a\" vs \"a\\\"b\"");
}

TEST(status_and_media_type_but_no_other_header)
{
	CHECK_STR(diff(ans(200, OCTET, "x"), ans(201, OCTET, "x"), NULL, NULL, NULL),
		  "status 200 vs 201");
	CHECK_STR(diff(ans(200, "text/plain", "x"), ans(200, "text/html", "x"), NULL, NULL, NULL),
		  "content type \"text/plain\" vs \"text/html\"");
	CHECK_STR(diff(ans(200, "Text/Plain; charset=utf-8", "x"), ans(200, "text/plain", "x"),
		       NULL, NULL, NULL), "");
}

TEST(json_structurally_with_the_ignore_list)
{
	char *ignore[] = { "/at", NULL };

	CHECK_STR(diff(ans(200, JSON, "{\"id\":42,\"name\":\"meridian\"}"),
		       ans(200, JSON, "{ \"name\": \"meridian\", \"id\": 42 }"), NULL, NULL, NULL), "");
	CHECK_STR(diff(ans(200, JSON, "{\"id\":42,\"name\":\"meridian\"}"),
		       ans(200, JSON, "{\"id\":42,\"name\":\"MERIDIAN\"}"), NULL, NULL, NULL),
		  "JSON differs at /name: \"meridian\" vs \"MERIDIAN\"");
	CHECK_STR(diff(ans(200, JSON, "{\"id\":1,\"at\":\"10:00\"}"),
		       ans(200, JSON, "{\"id\":1,\"at\":\"10:01\"}"), ignore, NULL, NULL), "");
	CHECK_STR(diff(ans(200, JSON, "{\"id\":1}"), ans(200, JSON, "{\"id\":1,\"x\":2}"), NULL,
		       NULL, NULL), "JSON differs at /x: (absent) vs 2");
	CHECK_STR(diff(ans(200, JSON, "{\"id\":1}"), ans(200, JSON, "id=1"), NULL, NULL, NULL),
		  "body is JSON vs not JSON");
}

TEST(what_the_base_varies_itself_is_left_out_and_named)
{
	struct sbuf nz = SBUF_INIT;
	struct preflight_answer b2 = ans(200, JSON, "{\"id\":8,\"name\":\"meridian\",\"t\":2}");

	/* the id and the time vary from one answer of the base to the next */
	CHECK_STR(diff(ans(200, JSON, "{\"id\":7,\"name\":\"meridian\",\"t\":1}"),
		       ans(200, JSON, "{\"id\":9,\"name\":\"meridian\",\"t\":3}"), NULL, &b2, &nz), "");
	CHECK_STR(nz.buf, "/id\n/t\n");
	sbuf_reset(&nz);
	/* ... which does not hide a difference elsewhere */
	CHECK_STR(diff(ans(200, JSON, "{\"id\":7,\"name\":\"meridian\",\"t\":1}"),
		       ans(200, JSON, "{\"id\":9,\"name\":\"MERIDIAN\",\"t\":3}"), NULL, &b2, &nz),
		  "JSON differs at /name: \"meridian\" vs \"MERIDIAN\"");
	CHECK_STR(nz.buf, "/id\n/t\n");
	sbuf_reset(&nz);
	/* a base that answers the same twice: nothing left out */
	b2 = ans(200, OCTET, "meridian");
	CHECK_STR(diff(ans(200, OCTET, "meridian"), ans(200, OCTET, "MERIDIAN"), NULL, &b2, &nz),
		  "bodies differ at byte 0 (8 vs 8 bytes): \"meridian\" vs \"MERIDIAN\"");
	CHECK_STR(nz.buf, "");
	/* a text body the base varies: not comparable, said */
	b2 = ans(200, OCTET, "meridian 2");
	CHECK_STR(diff(ans(200, OCTET, "meridian 1"), ans(200, OCTET, "MERIDIAN"), NULL, &b2, &nz),
		  "");
	CHECK_STR(nz.buf, "the body\n");
	sbuf_reset(&nz);
	/* a status the base varies: nothing to judge by */
	b2 = ans(503, OCTET, "meridian");
	CHECK_STR(diff(ans(200, OCTET, "meridian"), ans(404, OCTET, "x"), NULL, &b2, &nz), "");
	CHECK_STR(nz.buf, "the status or media type\n");
	sbuf_release(&nz);
}

TEST(a_base_that_varies_everywhere_cannot_judge)
{
	struct sbuf nz = SBUF_INIT, a = SBUF_INIT, b = SBUF_INIT;
	struct preflight_answer b2;
	int i;

	/* more varying members than PREFLIGHT_NOISE_MAX: the body as a whole */
	sbuf_adds(&a, "{");
	sbuf_adds(&b, "{");
	for (i = 0; i <= PREFLIGHT_NOISE_MAX; i++) {
		sbuf_addf(&a, "%s\"k%02d\":%d", i ? "," : "", i, i);
		sbuf_addf(&b, "%s\"k%02d\":%d", i ? "," : "", i, i + 100);
	}
	sbuf_adds(&a, "}");
	sbuf_adds(&b, "}");
	b2 = ans(200, JSON, b.buf);
	CHECK_STR(diff(ans(200, JSON, a.buf), ans(200, JSON, "[]"), NULL, &b2, &nz), "");
	CHECK(strstr(nz.buf, "the body\n") != NULL);
	sbuf_release(&nz);
	sbuf_release(&a);
	sbuf_release(&b);
}

int main(void)
{
	RUN(bodies_byte_for_byte_with_the_difference_shown);
	RUN(status_and_media_type_but_no_other_header);
	RUN(json_structurally_with_the_ignore_list);
	RUN(what_the_base_varies_itself_is_left_out_and_named);
	RUN(a_base_that_varies_everywhere_cannot_judge);
	return t_done();
}
