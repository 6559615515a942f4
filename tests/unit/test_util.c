/* Unit tests of util: sha-256 against FIPS 180-4 examples, sbuf, parsing. */
#include "t.h"
#include "base/util.h"

TEST(sha256_known_vectors)
{
	char hex[65];

	/* FIPS 180-4 / NIST CAVP examples. */
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(sbuf_grows_and_formats)
{
	struct sbuf sb = SBUF_INIT;
	int i;

	CHECK_STR(sb.buf, "");
	for (i = 0; i < 1000; i++)
		sbuf_addf(&sb, "%d,", i);
	CHECK(sb.len == 3890);
	CHECK(!strncmp(sb.buf, "0,1,2,", 6));
	sbuf_reset(&sb);
	sbuf_add_json_str(&sb, "a\"b\n");
	CHECK_STR(sb.buf, "\"a\\\"b\\n\"");
	sbuf_release(&sb);
}

TEST(xml_escaping)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_add_xml(&sb, "<a href=\"x?a=1&b='2'\">\x01\n\t</a>");
	CHECK_STR(sb.buf, "&lt;a href=&quot;x?a=1&amp;b=&#39;2&#39;&quot;&gt;\n\t&lt;/a&gt;");
	sbuf_add_xml(&sb, NULL);
	CHECK(sb.len == strlen("&lt;a href=&quot;x?a=1&amp;b=&#39;2&#39;&quot;&gt;\n\t&lt;/a&gt;"));
	sbuf_release(&sb);
}

TEST(parse_numbers_strictly)
{
	double d;
	long l;

	CHECK(parse_double("1.5", &d) == 0 && d == 1.5);
	CHECK(parse_double("1.5x", &d) == -1);
	CHECK(parse_double("", &d) == -1);
	CHECK(parse_long("42", &l) == 0 && l == 42);
	CHECK(parse_long("4 2", &l) == -1);
}

int main(void)
{
	RUN(sha256_known_vectors);
	RUN(sbuf_grows_and_formats);
	RUN(parse_numbers_strictly);
	RUN(xml_escaping);
	return t_done();
}
