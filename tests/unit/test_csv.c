/* test_csv: the RFC 4180 reader behind `harness knee --windows`. */
#include "base/csv.h"
#include "t.h"

TEST(parses_quotes_crlf_blank_lines)
{
	const char *text = " a , b,c\r\n1,\"x,\"\"y\"\"\",\r\n\r\n\"multi\nline\",2,3\n";
	struct csv c = CSV_INIT;

	CHECK(csv_parse(text, strlen(text), "t.csv", &c) == 0);
	CHECK(c.ncols == 3 && c.nrows == 2);
	CHECK(csv_col(&c, "a") == 0 && csv_col(&c, "b") == 1 && csv_col(&c, "z") == -1);
	if (c.nrows == 2) {
		CHECK_STR(c.rows[0][1], "x,\"y\"");
		CHECK_STR(c.rows[0][2], "");
		CHECK_STR(c.rows[1][0], "multi\nline");
		CHECK(c.lines[0] == 2 && c.lines[1] == 4);
	}
	csv_release(&c);
	CHECK(c.nrows == 0 && c.rows == NULL);
}

TEST(rejects_bad_input)
{
	struct csv c = CSV_INIT;

	CHECK(csv_parse("a,b\n1\n", 6, "t.csv", &c) < 0);       /* field count */
	CHECK(csv_parse("a,b\n\"1,2\n", 9, "t.csv", &c) < 0);   /* open quote */
	CHECK(csv_parse("a,b\n1\"x,2\n", 10, "t.csv", &c) < 0); /* stray quote */
	CHECK(csv_parse("\n\n", 2, "t.csv", &c) < 0);           /* no header */
	CHECK(c.header == NULL);
	CHECK(csv_parse("a,b", 3, "t.csv", &c) == 0);           /* header only */
	CHECK(c.nrows == 0 && c.ncols == 2);
	csv_release(&c);
}

int main(void)
{
	RUN(parses_quotes_crlf_blank_lines);
	RUN(rejects_bad_input);
	return t_done();
}
