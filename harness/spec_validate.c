/*
 * spec_validate: node tree + the key tables (spec_table.c) -> struct spec.
 *
 * One generic walker reads every map against its table: unknown keys are
 * rejected (with a did-you-mean), required keys checked, types and ranges
 * checked, defaults stored. Checks that involve several keys follow in
 * check_*(). Every problem is collected; nothing stops at the first one.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gate.h"
#include "spec_internal.h"
#include "util.h"

#define MAX_RUNGS 1000
#define MAX_BODY_FILE (64u * 1024 * 1024)

static const char port_where[] =
	"{port} is only substituted in implementations[].start, env values, health.url and stats.url";

/* ------------------------------------------------------------- helpers */

static char *join_path(const char *parent, const char *key)
{
	struct sbuf sb = SBUF_INIT;

	if (*parent)
		sbuf_addf(&sb, "%s.%s", parent, key);
	else
		sbuf_adds(&sb, key);
	return sbuf_detach(&sb, NULL);
}

static char *index_path(const char *parent, size_t i)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s[%zu]", parent, i);
	return sbuf_detach(&sb, NULL);
}

static const struct ynode *map_get(const struct ynode *m, const char *key)
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

static int map_has(const struct ynode *m, const char *key)
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
			n = map_get(n, seg);
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

static int token_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return 0;
	return 1;
}

static int envname_ok(const char *s)
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
	if ((flags & F_TOKEN) && !token_ok(s)) {
		VERR(v, n, path, "must be an HTTP method like GET or POST, got \"%.60s\"", s);
		return -1;
	}
	return 0;
}

/* FT_STR (strict: a number or true/false must be quoted) or FT_SCALAR. */
static int read_string(struct vctx *v, const struct ynode *n, const char *path,
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

/* --------------------------------------------------------- typed fields */

#define AT(base, off, type) ((type *)((char *)(base) + (off)))

static void walk_obj(struct vctx *v, const struct field *tab, void *base,
		     const struct ynode *m, const char *path, int report);

static void read_argv(struct vctx *v, const struct field *f, void *base,
		      const struct ynode *n, const char *path)
{
	char **argv;
	size_t i, k = 0;

	if (n->kind != Y_SEQ) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a list of arguments like [prog, --flag, value], got %s",
		     sb.buf);
		sbuf_release(&sb);
		return;
	}
	if (n->n < f->min_items) {
		VERR(v, n, path, "must not be empty");
		return;
	}
	argv = xcalloc(n->n + 1, sizeof(*argv));
	for (i = 0; i < n->n; i++) {
		const struct ynode *e = n->vals[i];
		char *p = index_path(path, i);
		if (e->kind == Y_MAP && e->n == 1 && e->keys[0]->kind == Y_SCALAR &&
		    !strcmp(e->keys[0]->str, "port") && ynode_is_null(e->vals[0])) {
			VERR(v, e, p, "write \"{port}\" in quotes (unquoted, YAML reads {port} as a map)");
		} else if (!read_string(v, e, p, f->flags, 0, &argv[k], NULL)) {
			k++;
		}
		free(p);
	}
	*AT(base, f->off, char **) = argv;
}

static void read_kv(struct vctx *v, const struct field *f, void *base,
		    const struct ynode *n, const char *path)
{
	struct spec_kv *kv;
	size_t i, k = 0;

	if (ynode_is_null(n))
		return;
	if (n->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a map of name: value, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	kv = xcalloc(n->n + 1, sizeof(*kv));
	for (i = 0; i < n->n; i++) {
		const struct ynode *key = n->keys[i], *val = n->vals[i];
		char *p = join_path(path, key->str);
		if ((f->flags & F_ENVNAME) && !envname_ok(key->str)) {
			VERR(v, key, p, "not a valid environment variable name");
		} else if ((f->flags & F_HDRNAME) && !token_ok(key->str)) {
			VERR(v, key, p, "not a valid HTTP header name");
		} else if (!read_string(v, val, p, f->flags & F_PORT, 0, &kv[k].value, NULL)) {
			if ((f->flags & F_HDRNAME) && strpbrk(kv[k].value, "\r\n")) {
				VERR(v, val, p, "a header value must not contain a line break");
				free(kv[k].value);
			} else {
				kv[k].key = xstrdup(key->str);
				k++;
			}
		}
		free(p);
	}
	*AT(base, f->off, struct spec_kv *) = kv;
	*AT(base, f->off2, size_t) = k;
}

static int pointer_ok(const char *s)
{
	if (*s && *s != '/')
		return 0;
	for (; *s; s++)
		if (*s == '~' && s[1] != '0' && s[1] != '1')
			return 0;
	return 1;
}

static void read_signals(struct vctx *v, const struct field *f, void *base,
			 const struct ynode *n, const char *path)
{
	struct spec_signal *sig;
	size_t i, k = 0;

	if (ynode_is_null(n))
		return;
	if (n->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a map of signal name: JSON pointer, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	sig = xcalloc(n->n + 1, sizeof(*sig));
	for (i = 0; i < n->n; i++) {
		const struct ynode *key = n->keys[i], *val = n->vals[i];
		char *p = join_path(path, key->str);
		if (!spec_is_ident(key->str)) {
			VERR(v, key, p, "a signal name must be letters, digits, '_', '.' or '-'");
		} else if (!read_string(v, val, p, 0, 0, &sig[k].pointer, NULL)) {
			if (!pointer_ok(sig[k].pointer)) {
				VERR(v, val, p, "must be a JSON pointer (RFC 6901) like /gc/count, got \"%.60s\"",
				     sig[k].pointer);
				free(sig[k].pointer);
			} else {
				sig[k].name = xstrdup(key->str);
				k++;
			}
		}
		free(p);
	}
	*AT(base, f->off, struct spec_signal *) = sig;
	*AT(base, f->off2, size_t) = k;
}

static int enum_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int read_enum(struct vctx *v, const struct field *f, const struct ynode *n,
		     const char *path)
{
	struct sbuf sb = SBUF_INIT;
	size_t i, count = 0;
	int idx = -1;
	const char *sugg;

	if (n->kind == Y_SCALAR && strlen(n->str) == n->len)
		idx = enum_index(f->enums, n->str);
	if (idx >= 0)
		return idx;
	for (i = 0; f->enums[i]; i++) {
		sbuf_addf(&sb, "%s%s", i ? ", " : "", f->enums[i]);
		count++;
	}
	sugg = n->kind == Y_SCALAR ? spec_suggest(n->str, f->enums, count) : NULL;
	{
		struct sbuf g = SBUF_INIT;
		ynode_describe(n, &g);
		if (sugg)
			VERR(v, n, path, "must be one of %s, got %s (did you mean %s?)", sb.buf, g.buf, sugg);
		else
			VERR(v, n, path, "must be one of %s, got %s", sb.buf, g.buf);
		sbuf_release(&g);
	}
	sbuf_release(&sb);
	return -1;
}

static void read_enumset(struct vctx *v, const struct field *f, void *base,
			 const struct ynode *n, const char *path)
{
	unsigned set = 0;
	size_t i;
	int idx;

	if (n->kind != Y_SEQ || n->n < 1) {
		VERR(v, n, path, "must be a non-empty list");
		return;
	}
	for (i = 0; i < n->n; i++) {
		char *p = index_path(path, i);
		idx = read_enum(v, f, n->vals[i], p);
		if (idx >= 0 && (set & (1u << idx)))
			VERR(v, n->vals[i], p, "%s is listed twice", f->enums[idx]);
		if (idx >= 0)
			set |= 1u << idx;
		free(p);
	}
	*AT(base, f->off, unsigned) = set;
}

static void read_list(struct vctx *v, const struct field *f, void *base,
		      const struct ynode *n, const char *path)
{
	char *arr;
	size_t i;

	if (n->kind != Y_SEQ) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a list, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	if (n->n < f->min_items) {
		VERR(v, n, path, "needs at least %zu entr%s, got %zu", f->min_items,
		     f->min_items == 1 ? "y" : "ies", n->n);
		if (!n->n)
			return;
	}
	arr = xcalloc(n->n, f->elsize);
	for (i = 0; i < n->n; i++) {
		char *p = index_path(path, i);
		walk_obj(v, f->sub, arr + i * f->elsize, n->vals[i], p, 1);
		free(p);
	}
	*AT(base, f->off, void *) = arr;
	*AT(base, f->off2, size_t) = n->n;
}

static void set_default(const struct field *f, void *base)
{
	switch (f->type) {
	case FT_INT:
	case FT_BOOL:
	case FT_ENUM:
		*AT(base, f->off, int) = (int)f->dnum;
		break;
	case FT_U64:
		*AT(base, f->off, uint64_t) = (uint64_t)f->dnum;
		break;
	case FT_MB:
		*AT(base, f->off, uint64_t) = (uint64_t)(f->dnum * 1048576.0);
		break;
	case FT_NUM:
		*AT(base, f->off, double) = f->dnum;
		break;
	case FT_ENUMSET:
		*AT(base, f->off, unsigned) = (unsigned)f->dnum;
		break;
	case FT_STR:
	case FT_SCALAR:
		if (f->dstr)
			*AT(base, f->off, char *) = xstrdup(f->dstr);
		break;
	default:
		break;
	}
}

static int read_u64(struct vctx *v, const struct ynode *n, const char *path, uint64_t *out)
{
	struct sbuf sb = SBUF_INIT;
	const char *s = n->str;
	char *end;

	if (n->kind == Y_SCALAR && n->plain && *s) {
		while (*s && isdigit((unsigned char)*s))
			s++;
		if (!*s) {
			errno = 0;
			*out = strtoull(n->str, &end, 10);
			if (!errno)
				return 0;
		}
	}
	ynode_describe(n, &sb);
	VERR(v, n, path, "must be a whole number >= 0, got %s", sb.buf);
	sbuf_release(&sb);
	return -1;
}

static void read_field(struct vctx *v, const struct field *f, void *base,
		       const struct ynode *n, const char *path)
{
	double d;
	uint64_t u;
	int b, idx;

	switch (f->type) {
	case FT_INT:
		if (spec_read_number(v, n, path, &d))
			return;
		if (d != floor(d)) {
			VERR(v, n, path, "must be a whole number, got %s", n->str);
			return;
		}
		if (spec_check_range(v, n, path, d, f->flags, f->min, f->max, 1))
			return;
		*AT(base, f->off, int) = (int)d;
		return;
	case FT_U64:
		if (read_u64(v, n, path, &u))
			return;
		if (spec_check_range(v, n, path, (double)u, f->flags, f->min, f->max, 1))
			return;
		*AT(base, f->off, uint64_t) = u;
		return;
	case FT_NUM:
	case FT_MB:
		if (spec_read_number(v, n, path, &d))
			return;
		if (spec_check_range(v, n, path, d, f->flags, f->min, f->max, f->type == FT_MB))
			return;
		if (f->type == FT_MB)
			*AT(base, f->off, uint64_t) = (uint64_t)(d * 1048576.0);
		else
			*AT(base, f->off, double) = d;
		return;
	case FT_BOOL:
		if (!spec_read_bool(v, n, path, &b))
			*AT(base, f->off, int) = b;
		return;
	case FT_STR:
	case FT_SCALAR: {
		char *s = NULL;
		size_t len = 0;
		if (read_string(v, n, path, f->flags, f->type == FT_STR, &s, &len))
			return;
		free(*AT(base, f->off, char *));
		*AT(base, f->off, char *) = s;
		if (f->off2)
			*AT(base, f->off2, size_t) = len;
		return;
	}
	case FT_ENUM:
		idx = read_enum(v, f, n, path);
		if (idx >= 0 && !(f->flags & F_NOSTORE))
			*AT(base, f->off, int) = idx;
		return;
	case FT_ENUMSET:
		read_enumset(v, f, base, n, path);
		return;
	case FT_ARGV:
		read_argv(v, f, base, n, path);
		return;
	case FT_KV:
		read_kv(v, f, base, n, path);
		return;
	case FT_SIGNALS:
		read_signals(v, f, base, n, path);
		return;
	case FT_OBJ:
		if (f->flags & F_PRESENT)
			*AT(base, f->off + f->off2, int) = 1;
		walk_obj(v, f->sub, AT(base, f->off, char), n, path, 1);
		return;
	case FT_LIST:
		read_list(v, f, base, n, path);
		return;
	case FT_GATELIST:
		spec_read_gatelist(v, f, base, n, path);
		return;
	case FT_GATES:
		spec_read_gates(v, n, path);
		return;
	}
}

static void unknown_key(struct vctx *v, const struct field *tab, const struct ynode *key,
			const char *path)
{
	const char *names[64] = { 0 };
	struct sbuf sb = SBUF_INIT;
	size_t n = 0, i;
	const char *sugg;
	char *p = join_path(path, key->str);

	for (i = 0; tab[i].key && n < ARRAY_SIZE(names); i++)
		names[n++] = tab[i].key;
	sugg = spec_suggest(key->str, names, n);
	if (sugg) {
		VERR(v, key, p, "unknown key (did you mean %s?)", sugg);
	} else {
		for (i = 0; i < n; i++)
			sbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
		VERR(v, key, p, "unknown key; expected one of: %s", sb.buf);
	}
	sbuf_release(&sb);
	free(p);
}

/*
 * Read map m against tab into base. m may be NULL (the key was absent):
 * then only defaults are stored. report = 0 also silences "required".
 */
static void walk_obj(struct vctx *v, const struct field *tab, void *base,
		     const struct ynode *m, const char *path, int report)
{
	const struct field *f;
	size_t i;

	if (m && ynode_is_null(m))
		m = NULL; /* "soak:" alone means a soak with defaults */
	if (m && m->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(m, &sb);
		VERR(v, m, path[0] ? path : "spec", "must be a map of keys, got %s", sb.buf);
		sbuf_release(&sb);
		m = NULL;
		report = 0;
	}
	if (m) {
		for (i = 0; i < m->n; i++) {
			const struct ynode *k = m->keys[i];
			for (f = tab; f->key; f++)
				if (k->kind == Y_SCALAR && !strcmp(f->key, k->str))
					break;
			if (!f->key && k->kind == Y_SCALAR)
				unknown_key(v, tab, k, path);
		}
	}
	for (f = tab; f->key; f++) {
		const struct ynode *val = map_get(m, f->key);
		char *p = join_path(path, f->key);
		int given = map_has(m, f->key);

		if (given && !val) /* key without a value is read as null */
			given = 0;
		if (given && ynode_is_null(val) && f->type != FT_OBJ && f->type != FT_KV &&
		    f->type != FT_SIGNALS && f->type != FT_GATES && f->type != FT_GATELIST) {
			VERR(v, val, p, "has no value");
		} else if (given) {
			read_field(v, f, base, val, p);
		} else {
			if ((f->flags & F_REQ) && report) {
				int line = m ? m->line : 1, col = m ? m->col : 1;
				if (!m)
					spec_path_pos(v, path, &line, &col);
				spec_diag_add(v->d, line, col, p, "required key missing");
			}
			/* An F_NOSTORE field has no storage: its offset 0 would
			 * clobber the struct's first member (confirm.present). */
			if ((f->flags & F_DEF) && !(f->flags & F_NOSTORE))
				set_default(f, base);
			if (f->type == FT_OBJ && !(f->flags & F_PRESENT))
				walk_obj(v, f->sub, AT(base, f->off, char), NULL, p, 0);
			else if (f->type == FT_OBJ)
				walk_obj(v, f->sub, AT(base, f->off, char), NULL, p, 0);
		}
		free(p);
	}
}

/* ---------------------------------------------------- cross-key checks */

static void err_at(struct vctx *v, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_at(struct vctx *v, const char *path, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;
	int line, col;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	spec_path_pos(v, path, &line, &col);
	spec_diag_add(v->d, line, col, path, "%s", sb.buf);
	sbuf_release(&sb);
}

static int given(struct vctx *v, const char *path)
{
	return spec_node_at(v->root, path) != NULL;
}

static void fmt_num(char *buf, size_t n, double x)
{
	snprintf(buf, n, "%g", x);
}

static void check_window(struct vctx *v, const char *stage, double window_s, double discard_s)
{
	char p[64], a[32], b[32];

	if (discard_s < window_s || window_s <= 0)
		return;
	snprintf(p, sizeof(p), "stages.%s.discard_s", stage);
	fmt_num(a, sizeof(a), discard_s);
	fmt_num(b, sizeof(b), window_s);
	if (!given(v, p))
		snprintf(p, sizeof(p), "stages.%s.window_s", stage);
	err_at(v, p, "discard_s (%s) must be < window_s (%s): window_s includes the discarded head",
	       a, b);
}

/* Lexically normalise base/rel (".", "..", "//"); returns malloc'd. */
static char *resolve(const char *base, const char *rel)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT;
	char *save = NULL, *tok;

	if (rel[0] != '/')
		sbuf_addf(&in, "%s/", base);
	sbuf_adds(&in, rel);
	for (tok = strtok_r(in.buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			char *slash = strrchr(out.buf, '/');
			if (slash) {
				out.len = (size_t)(slash - out.buf);
				out.buf[out.len] = '\0';
			}
			continue;
		}
		sbuf_addf(&out, "/%s", tok);
	}
	if (!out.len)
		sbuf_adds(&out, "/");
	sbuf_release(&in);
	return sbuf_detach(&out, NULL);
}

static void check_impls(struct vctx *v)
{
	struct spec *s = v->s;
	size_t i, j;
	char p[64];

	for (i = 0; i < s->nimpls; i++) {
		struct spec_impl *im = &s->impls[i];
		const struct ynode *n;

		snprintf(p, sizeof(p), "implementations[%zu]", i);
		n = spec_node_at(v->root, p);
		if (n) {
			im->line = n->line;
			im->col = n->col;
		}
		if (im->repo) {
			char *r = resolve(s->base_dir, im->repo);
			free(im->repo);
			im->repo = r;
		}
		for (j = 0; j < i && im->name; j++) {
			if (s->impls[j].name && !strcmp(s->impls[j].name, im->name)) {
				snprintf(p, sizeof(p), "implementations[%zu].name", i);
				err_at(v, p, "duplicate name \"%s\" (implementations[%zu] has it)",
				       im->name, j);
				break;
			}
		}
	}
}

/* Read a referenced file; problems are reported at path (as the user wrote it). */
static int read_ref_file(struct vctx *v, const char *abs, struct sbuf *sb, size_t max,
			 const char *path, const char *as_written)
{
	char buf[65536];
	int fd, ret = -1;
	ssize_t n;

	struct stat st;

	/* O_NONBLOCK: a FIFO must not hang `harness check` */
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err_at(v, path, "cannot read \"%s\": %s", as_written, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_at(v, path, "\"%s\" is not a regular file", as_written);
		goto out;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_at(v, path, "cannot read \"%s\": %s", as_written, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (sb->len + (size_t)n > max) {
			err_at(v, path, "\"%s\" is larger than %zu MiB", as_written, max >> 20);
			goto out;
		}
		sbuf_add(sb, buf, (size_t)n);
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static void check_requests(struct vctx *v)
{
	struct spec_workload *w = &v->s->workload;
	struct sbuf sb = SBUF_INIT;
	size_t i, j;
	char p[96];

	for (i = 0; i < w->nrequests; i++) {
		struct spec_request *r = &w->requests[i];

		for (j = 0; j < i && r->name; j++) {
			if (w->requests[j].name && !strcmp(w->requests[j].name, r->name)) {
				snprintf(p, sizeof(p), "workload.requests[%zu].name", i);
				err_at(v, p, "duplicate name \"%s\" (workload.requests[%zu] has it)",
				       r->name, j);
				break;
			}
		}
		if (!r->body_file)
			continue;
		snprintf(p, sizeof(p), "workload.requests[%zu].body_file", i);
		if (r->body) {
			err_at(v, p, "give body or body_file, not both");
			continue;
		}
		{
			char *abs = resolve(v->s->base_dir, r->body_file);
			sbuf_reset(&sb);
			if (read_ref_file(v, abs, &sb, MAX_BODY_FILE, p, r->body_file) == 0) {
				r->body = sbuf_detach(&sb, &r->body_len);
			}
			free(r->body_file);
			r->body_file = abs;
		}
	}
	sbuf_release(&sb);
}

static void check_stages(struct vctx *v)
{
	struct spec *s = v->s;
	struct spec_ladder *l = &s->ladder;
	char a[32], b[32];
	double *rates = NULL;
	size_t n;

	if (l->start_rps > 0 && l->max_rps > 0 && l->max_rps < l->start_rps) {
		fmt_num(a, sizeof(a), l->max_rps);
		fmt_num(b, sizeof(b), l->start_rps);
		err_at(v, "stages.ladder.max_rps", "must be >= start_rps (%s), got %s", b, a);
	}
	check_window(v, "ladder", l->window_s, l->discard_s);
	if (l->start_rps > 0 && l->step > 1 && l->max_rps >= l->start_rps) {
		/* count without allocating a million rungs */
		double k = floor(log(l->max_rps / l->start_rps) / log(l->step)) + 1;
		if (k > MAX_RUNGS) {
			err_at(v, "stages.ladder.step",
			       "gives %.0f rungs from start_rps to max_rps; at most %d", k, MAX_RUNGS);
		} else {
			n = spec_ladder_rungs(s, &rates);
			free(rates);
			(void)n;
		}
	}
	if (s->confirm.present) {
		if (!given(v, "stages.confirm.window_s"))
			s->confirm.window_s = l->window_s;
		if (!given(v, "stages.confirm.discard_s"))
			s->confirm.discard_s = l->discard_s;
		check_window(v, "confirm", s->confirm.window_s, s->confirm.discard_s);
	}
	if (s->soak.present)
		check_window(v, "soak", s->soak.window_s, s->soak.discard_s);
}

static void check_warmup(struct vctx *v)
{
	struct spec_warmup *w = &v->s->warmup;
	int fixed = given(v, "warmup.rate.fixed_rps");
	char a[32], b[32];

	if (fixed && given(v, "warmup.rate.knee_fraction"))
		err_at(v, "warmup.rate.fixed_rps", "give fixed_rps or knee_fraction, not both");
	else if (fixed && given(v, "warmup.rate.min_rps"))
		err_at(v, "warmup.rate.min_rps", "applies to knee_fraction only, not to fixed_rps");
	if (!fixed && !given(v, "warmup.rate.knee_fraction"))
		w->knee_fraction = 0.5;
	if (fixed)
		w->knee_fraction = 0;
	if (w->min_s > w->max_s) {
		fmt_num(a, sizeof(a), w->min_s);
		fmt_num(b, sizeof(b), w->max_s);
		err_at(v, given(v, "warmup.max_s") ? "warmup.max_s" : "warmup.min_s",
		       "max_s (%s) must be >= min_s (%s)", b, a);
	}
	if (w->trailing_s > w->max_s) {
		fmt_num(a, sizeof(a), w->trailing_s);
		fmt_num(b, sizeof(b), w->max_s);
		err_at(v, given(v, "warmup.trailing_s") ? "warmup.trailing_s" : "warmup.max_s",
		       "trailing_s (%s) must be <= max_s (%s)", a, b);
	}
}

void spec_validate(struct spec *s, const struct ynode *root, struct spec_diags *d)
{
	struct vctx v = { s, d, root };

	if (!root || ynode_is_null(root)) {
		spec_diag_add(d, 1, 1, "spec", "the file is empty; a spec is a map of keys (see specs/README.md)");
		root = NULL;
		v.root = NULL;
	} else if (root->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(root, &sb);
		spec_diag_add(d, root->line, root->col, "spec", "must be a map of keys, got %s", sb.buf);
		sbuf_release(&sb);
		root = NULL;
		v.root = NULL;
	}
	walk_obj(&v, spec_root_fields, s, root, "", root != NULL);
	if (!root)
		return;
	check_impls(&v);
	check_requests(&v);
	check_stages(&v);
	check_warmup(&v);
	spec_finish_gates(&v);
}
