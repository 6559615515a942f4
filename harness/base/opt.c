/* opt: option tables, their parser and their usage (see opt.h). */
#include <math.h>
#include <string.h>

#include "base/opt.h"
#include "base/util.h"

int opt_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/* A number with an optional unit suffix from units[] (name, multiplier). */
struct unit {
	const char *suffix;
	double mul;
};

static int parse_with_unit(const char *s, const struct unit *units, size_t nunits,
			   double *out)
{
	char buf[64];
	size_t n = strlen(s), i, k;
	double v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	for (i = 0; i < nunits; i++) {
		k = strlen(units[i].suffix);
		if (n > k && !strcmp(buf + n - k, units[i].suffix)) {
			buf[n - k] = '\0';
			break;
		}
	}
	if (parse_double(buf, &v) || !isfinite(v) || !(v > 0))
		return -1;
	v *= i < nunits ? units[i].mul : 1;
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int opt_parse_rate(const char *s, double *out)
{
	static const struct unit u[] = { { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 } };

	return parse_with_unit(s, u, ARRAY_SIZE(u), out);
}

int opt_parse_duration(const char *s, double *out)
{
	/* "ms" before "s" and "m": the first suffix that matches wins. */
	static const struct unit u[] = { { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 } };

	return parse_with_unit(s, u, ARRAY_SIZE(u), out);
}

static const struct opt *find_long(const struct opt_set *s, const char *name, size_t len)
{
	const struct opt *const *t;
	const struct opt *o;

	for (t = s->tables; *t; t++)
		for (o = *t; o->kind != OPT_KIND_END; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
	return NULL;
}

static const struct opt *find_short(const struct opt_set *s, char c)
{
	const struct opt *const *t;
	const struct opt *o;

	for (t = s->tables; *t; t++)
		for (o = *t; o->kind != OPT_KIND_END; o++)
			if (o->short_name && o->short_name == c)
				return o;
	return NULL;
}

static int takes_value(const struct opt *o)
{
	return o->kind != OPT_KIND_BOOL && o->kind != OPT_KIND_SET;
}

/* Store v into o's target; -1 after one error() naming the option. */
static int set_value(const struct opt_set *s, const struct opt *o, const char *v)
{
	double d;
	long l;

	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(int *)o->value = 1;
		return 0;
	case OPT_KIND_SET:
		*(const char **)o->value = o->str;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = v;
		return 0;
	case OPT_KIND_LONG:
		if (parse_long(v, &l) || (double)l < o->min || (double)l > o->max)
			return error("%s: --%s: want an integer from %.0f to %.0f, got '%s'", s->cmd,
				     o->name, o->min, o->max, v);
		*(long *)o->value = l;
		return 0;
	case OPT_KIND_NUMBER:
		if (parse_double(v, &d) || !isfinite(d) || d < o->min || d > o->max)
			return error("%s: --%s: want a number from %g to %g, got '%s'", s->cmd,
				     o->name, o->min, o->max, v);
		*(double *)o->value = d;
		return 0;
	case OPT_KIND_RATE:
		if (opt_parse_rate(v, &d))
			return error("%s: --%s: want requests per second > 0 (e.g. 500, 1k, 2.5k),"
				     " got '%s'", s->cmd, o->name, v);
		*(double *)o->value = d;
		return 0;
	case OPT_KIND_DURATION:
		if (opt_parse_duration(v, &d))
			return error("%s: --%s: want a duration > 0 in seconds, or with a unit"
				     " (1500ms, 90s, 2m, 1h), got '%s'", s->cmd, o->name, v);
		*(double *)o->value = d;
		return 0;
	case OPT_KIND_CALLBACK:
		return o->cb(o, v);
	case OPT_KIND_END:
		break;
	}
	return error("%s: --%s: not an option", s->cmd, o->name);
}

int opt_parse(const struct opt_set *s, int argc, char **argv, char **args, int *nargs)
{
	int i, only_args = 0;

	*nargs = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq;
		const struct opt *o;

		if (only_args || a[0] != '-' || !a[1]) {
			args[(*nargs)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			o = find_long(s, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (eq)
				v = eq + 1;
		} else {
			o = a[2] ? NULL : find_short(s, a[1]);
		}
		if (!o)
			return error("%s: unknown option '%s'; see 'harness %s --help'", s->cmd, a,
				     s->cmd);
		if (!takes_value(o)) {
			if (v)
				return error("%s: --%s takes no value, got '%s'", s->cmd, o->name, a);
		} else if (!v) {
			if (i + 1 >= argc)
				return error("%s: --%s needs a value (%s)", s->cmd, o->name, o->argh);
			v = argv[++i];
		}
		if (set_value(s, o, v))
			return -1;
	}
	return 0;
}

/* Print one option line: name column, then the help's lines. */
static void print_one(const struct opt *o, FILE *f)
{
	char col[64];
	const char *h, *nl;
	int n;

	if (o->short_name)
		n = snprintf(col, sizeof(col), "-%c, --%s%s%s", o->short_name, o->name,
			     o->argh ? " " : "", o->argh ? o->argh : "");
	else
		n = snprintf(col, sizeof(col), "--%s%s%s", o->name, o->argh ? " " : "",
			     o->argh ? o->argh : "");
	fprintf(f, "  %-22s", col);
	if (n > 22)
		fprintf(f, "\n  %-22s", "");
	for (h = o->help; h; h = nl ? nl + 1 : NULL) {
		nl = strchr(h, '\n');
		if (h != o->help)
			fprintf(f, "  %-22s", "");
		fprintf(f, " %.*s\n", nl ? (int)(nl - h) : (int)strlen(h), h);
		if (nl && !nl[1])
			break;
	}
}

void opt_print_options(const struct opt_set *s, FILE *f)
{
	const struct opt *const *t;
	const struct opt *o;

	fprintf(f, "options:\n");
	for (t = s->tables; *t; t++)
		for (o = *t; o->kind != OPT_KIND_END; o++)
			if (o->help)
				print_one(o, f);
	fprintf(f, "  %-22s this text\n", "-h, --help");
}
