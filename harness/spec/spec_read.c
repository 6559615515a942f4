/*
 * spec_read: the small readers the validator is built from: key paths and
 * node lookup by path, did-you-mean, numbers, booleans, ranges with their
 * messages, and strings with the checks every string value shares
 * ({port} placement, identifiers, URLs, cpu lists, HTTP paths and methods).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "base/util.h"

static const char port_where[] =
	"{port} is only substituted in implementations[].start, env values, health.url and stats.url";

/* ------------------------------------------------------------- helpers */

char *spec_join_path(const char *parent, const char *key)
{
	struct sbuf sb = SBUF_INIT;

	if (*parent)
		sbuf_addf(&sb, "%s.%s", parent, key);
	else
		sbuf_adds(&sb, key);
	return sbuf_detach(&sb, NULL);
}

char *spec_index_path(const char *parent, size_t i)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s[%zu]", parent, i);
	return sbuf_detach(&sb, NULL);
}

const struct ynode *spec_map_get(const struct ynode *m, const char *key)
{
	size_t i;

	if (!m || m->kind != Y_MAP)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (m->keys[i]->kind == Y_SCALAR && !strcmp(m->keys[i]->str, key) &&
		    strlen(key) == m->keys[i]->len)
			return m->vals[i];
	return NULL;
}

int spec_map_has(const struct ynode *m, const char *key)
{
	size_t i;

	if (!m || m->kind != Y_MAP)
		return 0;
	for (i = 0; i < m->n; i++)
		if (m->keys[i]->kind == Y_SCALAR && !strcmp(m->keys[i]->str, key))
			return 1;
	return 0;
}

const struct ynode *spec_node_at(const struct ynode *root, const char *path)
{
	const struct ynode *n = root;
	char seg[128];
	const char *p = path;
	size_t k;

	while (n && *p) {
		for (k = 0; *p && *p != '.' && *p != '[' && k + 1 < sizeof(seg); p++)
			seg[k++] = *p;
		seg[k] = '\0';
		if (k)
			n = spec_map_get(n, seg);
		while (n && *p == '[') {
			unsigned long i = strtoul(p + 1, (char **)&p, 10);
			if (*p == ']')
				p++;
			n = (n->kind == Y_SEQ && i < n->n) ? n->vals[i] : NULL;
		}
		if (*p == '.')
			p++;
	}
	return n;
}

void spec_path_pos(const struct vctx *v, const char *path, int *line, int *col)
{
	char buf[512];
	size_t len = strlen(path);
	const struct ynode *n;

	*line = 1;
	*col = 1;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, path, len);
	buf[len] = '\0';
	for (;;) {
		char *cut;
		n = spec_node_at(v->root, buf);
		if (n) {
			*line = n->line;
			*col = n->col;
			return;
		}
		cut = strrchr(buf, '.');
		if (!cut || strrchr(buf, '[') > cut)
			cut = strrchr(buf, '[') ? strrchr(buf, '[') : cut;
		if (!cut)
			return;
		*cut = '\0';
	}
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment distance: Levenshtein plus adjacent
 * transpositions ("stpe" is one edit from "step"). */
size_t spec_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[33][33];

	if (la > 32 || lb > 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *spec_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t i, d, best = 99, lim;
	const char *r = NULL;

	lim = strlen(word) <= 4 ? 1 : strlen(word) <= 8 ? 2 : 3;
	for (i = 0; i < n; i++) {
		d = spec_edit_distance(word, cands[i]);
		if (d < best && d <= lim) {
			best = d;
			r = cands[i];
		}
	}
	return r;
}

static int is_number_text(const char *s)
{
	int digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	while (isdigit((unsigned char)*s)) {
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			s++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

static int is_bool_text(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "True") ||
	       !strcmp(s, "False") || !strcmp(s, "TRUE") || !strcmp(s, "FALSE");
}

static void got(const struct ynode *n, struct sbuf *sb)
{
	sbuf_reset(sb);
	ynode_describe(n, sb);
}

int spec_read_number(struct vctx *v, const struct ynode *n, const char *path, double *out)
{
	struct sbuf sb = SBUF_INIT;

	if (n->kind == Y_SCALAR && n->plain && is_number_text(n->str) &&
	    strlen(n->str) == n->len) {
		errno = 0;
		*out = strtod(n->str, NULL);
		if (isfinite(*out))
			return 0;
	}
	got(n, &sb);
	VERR(v, n, path, "must be a number, got %s", sb.buf);
	sbuf_release(&sb);
	return -1;
}

int spec_read_bool(struct vctx *v, const struct ynode *n, const char *path, int *out)
{
	struct sbuf sb = SBUF_INIT;

	if (n->kind == Y_SCALAR && n->plain && is_bool_text(n->str)) {
		*out = n->str[0] == 't' || n->str[0] == 'T';
		return 0;
	}
	got(n, &sb);
	VERR(v, n, path, "must be true or false, got %s", sb.buf);
	sbuf_release(&sb);
	return -1;
}

int spec_is_ident(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return 0;
	return 1;
}

static void fmt_bound(struct sbuf *sb, double x, int is_int)
{
	if (x == floor(x) && fabs(x) < 1e15)
		sbuf_addf(sb, is_int ? "%.0f" : "%.1f", x);
	else
		sbuf_addf(sb, "%g", x);
}

int spec_check_range(struct vctx *v, const struct ynode *n, const char *path, double x,
		     unsigned flags, double min, double max, int is_int)
{
	struct sbuf sb = SBUF_INIT, g = SBUF_INIT;
	int low = 0, high = 0;

	if (flags & F_MIN)
		low = (flags & F_MINX) ? !(x > min) : !(x >= min);
	if (flags & F_MAX)
		high = (flags & F_MAXX) ? !(x < max) : !(x <= max);
	if (!low && !high)
		return 0;
	if ((flags & F_MIN) && (flags & F_MAX) && min == max) {
		sbuf_adds(&sb, "must be ");
		fmt_bound(&sb, min, is_int);
	} else if (low) {
		sbuf_adds(&sb, (flags & F_MINX) ? "must be > " : "must be >= ");
		fmt_bound(&sb, min, is_int);
	} else {
		sbuf_adds(&sb, (flags & F_MAXX) ? "must be < " : "must be <= ");
		fmt_bound(&sb, max, is_int);
	}
	ynode_describe(n, &g);
	VERR(v, n, path, "%s, got %s", sb.buf, g.buf);
	sbuf_release(&sb);
	sbuf_release(&g);
	return -1;
}

/* --------------------------------------------------------- string checks */

static int cpus_ok(const char *s)
{
	/* "0-2,4": comma-separated numbers or ranges a-b with a <= b */
	while (*s) {
		char *e;
		unsigned long a, b;
		if (!isdigit((unsigned char)*s))
			return 0;
		a = strtoul(s, &e, 10);
		s = e;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				return 0;
			b = strtoul(s + 1, &e, 10);
			if (b < a)
				return 0;
			s = e;
		}
		if (a > 4095)
			return 0;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return 0;
	}
	return 1;
}

int spec_token_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return 0;
	return 1;
}

int spec_envname_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* Checks every string value shares: NUL, {port}, and the flag's syntax. */
static int check_string(struct vctx *v, const struct ynode *n, const char *path, unsigned flags)
{
	const char *s = n->str;

	if (strlen(s) != n->len && !(flags & F_NOSTORE)) {
		VERR(v, n, path, "must not contain a NUL character");
		return -1;
	}
	if (!(flags & F_PORT) && strstr(s, "{port}")) {
		VERR(v, n, path, "%s", port_where);
		return -1;
	}
	if ((flags & F_IDENT) && !spec_is_ident(s)) {
		VERR(v, n, path, "must be letters, digits, '_', '.' or '-', got \"%.60s\"", s);
		return -1;
	}
	if ((flags & F_URL) && strncmp(s, "http://", 7) && strncmp(s, "https://", 8)) {
		VERR(v, n, path, "must be an http:// or https:// URL, got \"%.60s\"", s);
		return -1;
	}
	if ((flags & F_CPUS) && !cpus_ok(s)) {
		VERR(v, n, path, "must be a cpu list like \"0-2,4\", got \"%.60s\"", s);
		return -1;
	}
	if ((flags & F_PATH) && (s[0] != '/' || strpbrk(s, " \r\n\t"))) {
		VERR(v, n, path, "must start with '/' and contain no spaces, got \"%.60s\"", s);
		return -1;
	}
	if ((flags & F_TOKEN) && !spec_token_ok(s)) {
		VERR(v, n, path, "must be an HTTP method like GET or POST, got \"%.60s\"", s);
		return -1;
	}
	return 0;
}

/* FT_STR (strict: a number or true/false must be quoted) or FT_SCALAR. */
int spec_read_string(struct vctx *v, const struct ynode *n, const char *path,
		       unsigned flags, int strict, char **out, size_t *len)
{
	struct sbuf sb = SBUF_INIT;

	if (n->kind != Y_SCALAR || ynode_is_null(n)) {
		got(n, &sb);
		VERR(v, n, path, "must be a string, got %s", sb.buf);
		goto fail;
	}
	if (strict && n->plain && (is_number_text(n->str) || is_bool_text(n->str))) {
		VERR(v, n, path, "must be a string, got %s (quote it: \"%s\")", n->str, n->str);
		goto fail;
	}
	if (strict && !n->len) {
		VERR(v, n, path, "must not be empty");
		goto fail;
	}
	if (check_string(v, n, path, flags))
		goto fail;
	*out = xmalloc(n->len + 1);
	memcpy(*out, n->str, n->len + 1);
	if (len)
		*len = n->len;
	return 0;
fail:
	sbuf_release(&sb);
	return -1;
}

