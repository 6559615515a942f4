/* test_opt: the option-table parser every subcommand shares (opt.h). */
#include "base/opt.h"
#include "t.h"
#include "base/util.h"

static int flag, called;
static const char *str;
static long n = -1;
static double num = -1, rate = -1, dur = -1;
static const char *fmt = "md";

static int cb(const struct opt *o, const char *v)
{
	called++;
	return strcmp(v, "bad") ? 0 : error("t: --%s: bad value", o->name);
}

static const struct opt table[] = {
	OPT_BOOL('q', "quiet", &flag, "be quiet"),
	OPT_STRING('o', "output", "DIR", &str, "where\nsecond line"),
	OPT_LONG("count", "N", &n, 1, 10, "how many"),
	OPT_NUMBER("level", "L", &num, 0, 1, "a level"),
	OPT_RATE("rate", &rate, "rate"),
	OPT_DURATION("duration", &dur, "duration"),
	OPT_CALLBACK("cb", "V", cb, "callback"),
	OPT_SET("json", &fmt, "json", NULL),
	OPT_END(),
};
static const struct opt *const tables[] = { table, NULL };
static const struct opt_set set = { "t", tables };

static int parse(int argc, const char **argv, char **args, int *nargs)
{
	return opt_parse(&set, argc, (char **)argv, args, nargs);
}

TEST(parses_every_kind)
{
	const char *argv[] = { "t", "A", "-q", "--output", "d", "--count=3", "--level", "0.5",
			       "--rate", "2.5k", "--duration", "1500ms", "--cb", "x", "--json",
			       "-", "--", "--quiet", NULL };
	char *args[20];
	int nargs;

	CHECK(parse(18, argv, args, &nargs) == 0);
	CHECK(flag == 1);
	CHECK_STR(str, "d");
	CHECK(n == 3);
	NEAR(num, 0.5, 0, "exact");
	NEAR(rate, 2500, 0, "exact");
	NEAR(dur, 1.5, 1e-12, "exact");
	CHECK(called == 1);
	CHECK_STR(fmt, "json");
	CHECK(nargs == 3);
	CHECK_STR(args[0], "A");
	CHECK_STR(args[1], "-");
	CHECK_STR(args[2], "--quiet");
}

TEST(refuses_bad_input)
{
	const char *unknown[] = { "t", "--nope", NULL };
	const char *missing[] = { "t", "--output", NULL };
	const char *range[] = { "t", "--count", "11", NULL };
	const char *notnum[] = { "t", "--level", "x", NULL };
	const char *badrate[] = { "t", "--rate", "-1k", NULL };
	const char *flagval[] = { "t", "--quiet=1", NULL };
	const char *badcb[] = { "t", "--cb", "bad", NULL };
	const char *shortcombo[] = { "t", "-qo", NULL };
	char *args[4];
	int nargs;

	CHECK(parse(2, unknown, args, &nargs) == -1);
	CHECK(parse(2, missing, args, &nargs) == -1);
	CHECK(parse(3, range, args, &nargs) == -1);
	CHECK(parse(3, notnum, args, &nargs) == -1);
	CHECK(parse(3, badrate, args, &nargs) == -1);
	CHECK(parse(2, flagval, args, &nargs) == -1);
	CHECK(parse(3, badcb, args, &nargs) == -1);
	CHECK(parse(2, shortcombo, args, &nargs) == -1);
}

TEST(units)
{
	double v;

	CHECK(opt_parse_rate("1k", &v) == 0 && v == 1000);
	CHECK(opt_parse_rate("1K", &v) == 0 && v == 1000);
	CHECK(opt_parse_rate("1.5M", &v) == 0 && v == 1.5e6);
	CHECK(opt_parse_rate("750", &v) == 0 && v == 750);
	CHECK(opt_parse_rate("0", &v) == -1);
	CHECK(opt_parse_rate("k", &v) == -1);
	CHECK(opt_parse_rate("1kk", &v) == -1);
	CHECK(opt_parse_rate("nan", &v) == -1);
	CHECK(opt_parse_rate("inf", &v) == -1);
	CHECK(opt_parse_duration("90", &v) == 0 && v == 90);
	CHECK(opt_parse_duration("90s", &v) == 0 && v == 90);
	CHECK(opt_parse_duration("2m", &v) == 0 && v == 120);
	CHECK(opt_parse_duration("1h", &v) == 0 && v == 3600);
	CHECK(opt_parse_duration("250ms", &v) == 0 && fabs(v - 0.25) < 1e-12);
	CHECK(opt_parse_duration("-1", &v) == -1);
	CHECK(opt_parse_duration("1d", &v) == -1);
	CHECK(opt_parse_duration("", &v) == -1);
}

TEST(usage_lists_the_table)
{
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t len;

	opt_print_options(&set, f);
	len = (size_t)ftell(f);
	fclose(f);
	buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = '\0';
	CHECK(strstr(buf, "  -q, --quiet") != NULL);
	CHECK(strstr(buf, "  -o, --output DIR") != NULL);
	CHECK(strstr(buf, "second line") != NULL);
	CHECK(strstr(buf, "--count N") != NULL);
	CHECK(strstr(buf, "--rate R") != NULL);
	CHECK(strstr(buf, "--json") == NULL);   /* hidden: no help text */
	CHECK(strstr(buf, "-h, --help") != NULL);
}

int main(void)
{
	RUN(parses_every_kind);
	RUN(refuses_bad_input);
	RUN(units);
	RUN(usage_lists_the_table);
	return t_done();
}
