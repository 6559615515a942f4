/* test_jsonptr: RFC 6901 evaluation, including the RFC's own examples. */
#include <jansson.h>
#include <stdlib.h>

#include "base/jsonptr.h"
#include "t.h"

/* RFC 6901 section 5 document */
static const char *rfc_doc = "{\"foo\":[\"bar\",\"baz\"],\"\":0,\"a/b\":1,\"c%d\":2,\"e^f\":3,"
			     "\"g|h\":4,\"i\\\\j\":5,\"k\\\"l\":6,\" \":7,\"m~n\":8}";

static double num(json_t *doc, const char *ptr)
{
	json_t *v = jsonptr_get(doc, ptr);
	return v && json_is_number(v) ? json_number_value(v) : -1;
}

TEST(rfc6901_examples)
{
	json_t *doc = json_loads(rfc_doc, 0, NULL);

	CHECK(doc != NULL);
	CHECK(jsonptr_get(doc, "") == doc);
	CHECK(json_is_array(jsonptr_get(doc, "/foo")));
	CHECK_STR(json_string_value(jsonptr_get(doc, "/foo/0")), "bar");
	CHECK(num(doc, "/") == 0);
	CHECK(num(doc, "/a~1b") == 1);
	CHECK(num(doc, "/c%d") == 2);
	CHECK(num(doc, "/e^f") == 3);
	CHECK(num(doc, "/g|h") == 4);
	CHECK(num(doc, "/i\\j") == 5);
	CHECK(num(doc, "/k\"l") == 6);
	CHECK(num(doc, "/ ") == 7);
	CHECK(num(doc, "/m~0n") == 8);
	json_decref(doc);
}

TEST(absent_and_invalid)
{
	json_t *doc = json_loads("{\"a\":{\"b\":[1,2,{\"c\":3}]},\"01\":9}", 0, NULL);

	CHECK(num(doc, "/a/b/2/c") == 3);
	CHECK(num(doc, "/a/b/1") == 2);
	CHECK(jsonptr_get(doc, "/a/b/3") == NULL);      /* past the end */
	CHECK(jsonptr_get(doc, "/a/b/-") == NULL);      /* "-" never exists for reading */
	CHECK(jsonptr_get(doc, "/a/b/01") == NULL);     /* leading zero */
	CHECK(jsonptr_get(doc, "/a/b/x") == NULL);
	CHECK(jsonptr_get(doc, "/a/b/2/c/d") == NULL);  /* through a number */
	CHECK(num(doc, "/01") == 9);                    /* object members may look numeric */
	CHECK(jsonptr_get(doc, "a") == NULL);           /* must start with '/' */
	CHECK(jsonptr_get(doc, "/a~2") == NULL);        /* bad escape */
	CHECK(jsonptr_valid("/a~") == -1);
	CHECK(jsonptr_valid("") == 0);
	CHECK(jsonptr_valid("/x/~0~1") == 0);
	json_decref(doc);
}

TEST(remove_values)
{
	json_t *doc = json_loads("{\"a\":{\"b\":[1,2,3],\"c/d\":4},\"e\":5}", 0, NULL);
	char *s;

	CHECK(jsonptr_remove(doc, "/a/b/1") == 0);       /* later elements move down */
	CHECK(num(doc, "/a/b/1") == 3);
	CHECK(jsonptr_remove(doc, "/a/c~1d") == 0);      /* escaped member name */
	CHECK(jsonptr_get(doc, "/a/c~1d") == NULL);
	CHECK(jsonptr_remove(doc, "/e") == 0);
	CHECK(jsonptr_remove(doc, "/e") == -1);          /* absent now */
	CHECK(jsonptr_remove(doc, "/a/b/9") == -1);
	CHECK(jsonptr_remove(doc, "/a/b/-") == -1);
	CHECK(jsonptr_remove(doc, "/x/y") == -1);
	CHECK(jsonptr_remove(doc, "") == -1);            /* the whole document stays */
	CHECK(jsonptr_remove(doc, "a") == -1);
	s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	CHECK_STR(s, "{\"a\":{\"b\":[1,3]}}");
	free(s);
	json_decref(doc);
}

int main(void)
{
	RUN(rfc6901_examples);
	RUN(remove_values);
	RUN(absent_and_invalid);
	return t_done();
}
