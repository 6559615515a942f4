/* Unit tests of jout (base/jout.h): jout_set writes its pairs in order and
 * returns the object, a NULL value drops its key (json_object_set_new's
 * rule); a missing number or string is null; text that is not UTF-8 is
 * kept with '?' for its high bytes. */
#include <stdlib.h>

#include "t.h"
#include "base/jout.h"

/* o as one line of JSON (o's reference kept), for comparing. */
static const char *line(json_t *o)
{
	static char buf[512];
	char *s = jout_dumps_line(json_incref(o));

	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	return buf;
}

TEST(set_writes_pairs_in_order)
{
	json_t *o = json_object();

	CHECK(jout_set(o, "b", json_integer(2), "a", jout_str("x"), "c", jout_num(NAN), NULL) == o);
	CHECK_STR(line(o), "{\"b\":2,\"a\":\"x\",\"c\":null}\n");
	/* more pairs onto the same object: after the others */
	jout_set(o, "d", json_true(), NULL);
	CHECK_STR(line(o), "{\"b\":2,\"a\":\"x\",\"c\":null,\"d\":true}\n");
	/* a key set again keeps its place, with the new value */
	jout_set(o, "a", json_false(), NULL);
	CHECK_STR(line(o), "{\"b\":2,\"a\":false,\"c\":null,\"d\":true}\n");
	json_decref(o);
}

TEST(set_drops_a_null_value)
{
	json_t *o = jout_set(json_object(), "a", json_integer(1), "gone", (json_t *)NULL,
			     "z", json_integer(3), NULL);

	CHECK_STR(line(o), "{\"a\":1,\"z\":3}\n");
	json_decref(o);
}

TEST(missing_values_are_null)
{
	json_t *o = jout_set(json_object(), "s", jout_str(NULL), "n", jout_num(INFINITY),
			     "t", jout_tri(-1), "f", jout_tri(0), "bad", jout_str("a\xff"), NULL);

	CHECK_STR(line(o), "{\"s\":null,\"n\":null,\"t\":null,\"f\":false,\"bad\":\"a?\"}\n");
	json_decref(o);
}

int main(void)
{
	RUN(set_writes_pairs_in_order);
	RUN(set_drops_a_null_value);
	RUN(missing_values_are_null);
	return t_done();
}
