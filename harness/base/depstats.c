/*
 * depstats: parse a dependency's stats output and its load command's
 * throughput (depstats.h).
 */
#include "base/depstats.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static void put(struct depstats *s, const char *key, size_t klen, double v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->keys[i]) == klen && !memcmp(s->keys[i], key, klen)) {
			s->vals[i] = v;
			return;
		}
	s->keys = xrealloc(s->keys, (s->n + 1) * sizeof(*s->keys));
	s->vals = xrealloc(s->vals, (s->n + 1) * sizeof(*s->vals));
	s->keys[s->n] = xstrndup(key, klen);
	s->vals[s->n++] = v;
}

/* One line [p, e): its last separator splits name and number. */
static void parse_line(struct depstats *s, const char *p, const char *e)
{
	const char *sep = NULL, *q;
	char num[64];
	double v;

	while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (q = p; q < e; q++)
		if (*q == ':' || *q == '|' || *q == '\t' || *q == ' ')
			sep = q;
	if (!sep || sep == p || (size_t)(e - sep - 1) >= sizeof(num) || e - sep - 1 < 1)
		return;
	memcpy(num, sep + 1, (size_t)(e - sep - 1));
	num[e - sep - 1] = 0;
	if (parse_double(num, &v) || !isfinite(v))
		return;
	put(s, p, (size_t)(sep - p), v);
}

void depstats_parse(const char *text, size_t len, struct depstats *out)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			e = end;
		parse_line(out, p, e);
		p = e + 1;
	}
}

double depstats_get(const struct depstats *s, const char *key)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->keys[i], key))
			return s->vals[i];
	return NAN;
}

void depstats_release(struct depstats *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

int depstats_throughput(const char *pattern, const char *text, double *out)
{
	regex_t re;
	regmatch_t m[2];
	char num[64];
	int ret = -1;

	*out = NAN;
	if (regcomp(&re, pattern, REG_EXTENDED))
		return -1;
	if (!regexec(&re, text, 2, m, 0) && m[1].rm_so >= 0 &&
	    (size_t)(m[1].rm_eo - m[1].rm_so) < sizeof(num)) {
		memcpy(num, text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
		num[m[1].rm_eo - m[1].rm_so] = 0;
		if (!parse_double(num, out) && isfinite(*out))
			ret = 0;
		else
			*out = NAN;
	}
	regfree(&re);
	return ret;
}

int depstats_kept_up(double rate, double achieved, int exit_code, double tolerance_pct)
{
	if (exit_code != 0 || !isfinite(achieved))
		return 0;
	if (isnan(rate))
		return achieved > 0;
	return achieved >= rate * (1 - tolerance_pct / 100);
}
