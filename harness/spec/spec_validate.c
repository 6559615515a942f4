/*
 * spec_validate: node tree + the key tables (spec_table.c) -> struct spec.
 *
 * One generic walker reads every map against its table: unknown keys are
 * rejected (with a did-you-mean), required keys checked, types and ranges
 * checked, defaults stored. Checks that involve several keys follow
 * (spec_check.c), then the gates (spec_gates.c). Every problem is
 * collected; nothing stops at the first one.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "base/promtext.h"
#include "spec/spec_internal.h"
#include "base/util.h"

/* --------------------------------------------------------- typed fields */

#define AT(base, off, type) ((type *)((char *)(base) + (off)))

static void walk_obj(struct vctx *v, const struct field *tab, void *base,
		     const struct ynode *m, const char *path, int report);

/* One diagnostic at n: it must be `want` ("a list", "a map of ..."), and
 * what it is instead. */
static void wrong_kind(struct vctx *v, const struct ynode *n, const char *path,
		       const char *want)
{
	struct sbuf sb = SBUF_INIT;

	ynode_describe(n, &sb);
	VERR(v, n, path, "must be %s, got %s", want, sb.buf);
	sbuf_release(&sb);
}

/* The start of a map whose keys are names (FT_KV, FT_SIGNALS, FT_NAMED):
 * 0 when n is a map to read; -1 when it is null (absent: nothing to read)
 * or not a map (after one diagnostic: it must be `want`). */
static int map_of_names(struct vctx *v, const struct ynode *n, const char *path,
			const char *want)
{
	if (ynode_is_null(n))
		return -1;
	if (n->kind != Y_MAP) {
		wrong_kind(v, n, path, want);
		return -1;
	}
	return 0;
}

static void read_argv(struct vctx *v, const struct field *f, void *base,
		      const struct ynode *n, const char *path)
{
	char **argv;
	size_t i, k = 0;

	if (n->kind != Y_SEQ) {
		wrong_kind(v, n, path, "a list of arguments like [prog, --flag, value]");
		return;
	}
	if (n->n < f->min_items) {
		VERR(v, n, path, "must not be empty");
		return;
	}
	argv = xcalloc(n->n + 1, sizeof(*argv));
	for (i = 0; i < n->n; i++) {
		const struct ynode *e = n->vals[i];
		char *p = spec_index_path(path, i);
		if (e->kind == Y_MAP && e->n == 1 && e->keys[0]->kind == Y_SCALAR &&
		    !strcmp(e->keys[0]->str, "port") && ynode_is_null(e->vals[0])) {
			VERR(v, e, p, "write \"{port}\" in quotes (unquoted, YAML reads {port} as a map)");
		} else if (!spec_read_string(v, e, p, f->flags, 0, &argv[k], NULL)) {
			if (i == 0 && !argv[k][0]) {
				VERR(v, e, p, "the program to run must not be empty");
				free(argv[k]);
				argv[k] = NULL;
			} else {
				k++;
			}
		}
		free(p);
	}
	*AT(base, f->off, char **) = argv;
}

/* FT_INTLIST: a non-empty list of whole numbers in range, no repeats. */
static void read_intlist(struct vctx *v, const struct field *f, void *base,
			 const struct ynode *n, const char *path)
{
	size_t i, j, k = 0;
	int *arr;
	double d;

	if (n->kind != Y_SEQ || n->n < f->min_items) {
		wrong_kind(v, n, path, "a non-empty list of numbers like [200, 201]");
		return;
	}
	arr = xcalloc(n->n, sizeof(*arr));
	for (i = 0; i < n->n; i++) {
		const struct ynode *e = n->vals[i];
		char *p = spec_index_path(path, i);

		if (spec_read_number(v, e, p, &d)) {
			free(p);
			continue;
		}
		if (d != floor(d)) {
			VERR(v, e, p, "must be a whole number, got %s", e->str);
		} else if (!spec_check_range(v, e, p, d, f->flags, f->min, f->max, 1)) {
			for (j = 0; j < k && arr[j] != (int)d; j++)
				;
			if (j < k)
				VERR(v, e, p, "%d is listed twice", (int)d);
			else
				arr[k++] = (int)d;
		}
		free(p);
	}
	free(*AT(base, f->off, int *));
	*AT(base, f->off, int *) = arr;
	*AT(base, f->off2, size_t) = k;
}

static void read_kv(struct vctx *v, const struct field *f, void *base,
		    const struct ynode *n, const char *path)
{
	struct kv *kv;
	size_t i, k = 0;

	if (map_of_names(v, n, path, "a map of name: value"))
		return;
	kv = xcalloc(n->n + 1, sizeof(*kv));
	for (i = 0; i < n->n; i++) {
		const struct ynode *key = n->keys[i], *val = n->vals[i];
		char *p = spec_join_path(path, key->str);
		if ((f->flags & F_ENVNAME) && !spec_envname_ok(key->str)) {
			VERR(v, key, p, "not a valid environment variable name");
		} else if ((f->flags & F_HDRNAME) && !spec_token_ok(key->str)) {
			VERR(v, key, p, "not a valid HTTP header name");
		} else if (!spec_read_string(v, val, p, f->flags & F_PORT, 0, &kv[k].value, NULL)) {
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
	*AT(base, f->off, struct kv *) = kv;
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

	if (map_of_names(v, n, path, "a map of signal name: JSON pointer"))
		return;
	sig = xcalloc(n->n + 1, sizeof(*sig));
	for (i = 0; i < n->n; i++) {
		const struct ynode *key = n->keys[i], *val = n->vals[i];
		char *p = spec_join_path(path, key->str);
		if (!spec_is_ident(key->str)) {
			VERR(v, key, p, "a signal name must be letters, digits, '_', '.' or '-'");
		} else if (!spec_read_string(v, val, p, 0, 0, &sig[k].pointer, NULL)) {
			/* Which of the two a signal must be depends on
			 * stats.format: spec_check.c checks that. */
			if (sig[k].pointer[0] != '=' && !pointer_ok(sig[k].pointer) &&
			    !prom_selector_valid(sig[k].pointer)) {
				VERR(v, val, p, "must be a JSON pointer (RFC 6901) like /gc/count, or a"
				     " Prometheus metric selector like db_pool{state=\"busy\"}, or a derived"
				     " signal \"= delta(hits) / (delta(hits) + delta(misses))\", got"
				     " \"%.60s\"", sig[k].pointer);
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
		char *p = spec_index_path(path, i);
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
		wrong_kind(v, n, path, "a list");
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
		char *p = spec_index_path(path, i);
		walk_obj(v, f->sub, arr + i * f->elsize, n->vals[i], p, 1);
		free(p);
	}
	*AT(base, f->off, void *) = arr;
	*AT(base, f->off2, size_t) = n->n;
}

static void read_named(struct vctx *v, const struct field *f, void *base,
		       const struct ynode *n, const char *path)
{
	char *arr;
	size_t i, k = 0;

	if (map_of_names(v, n, path, "a map of name: map"))
		return;
	arr = xcalloc(n->n + 1, f->elsize);
	for (i = 0; i < n->n; i++) {
		const struct ynode *key = n->keys[i];
		char *p = spec_join_path(path, key->str);

		if (!spec_envname_ok(key->str)) {
			VERR(v, key, p, "a name must be letters, digits and '_', not starting with a digit");
		} else {
			walk_obj(v, f->sub, arr + k * f->elsize, n->vals[i], p, 1);
			*(char **)(arr + k * f->elsize) = xstrdup(key->str);
			k++;
		}
		free(p);
	}
	*AT(base, f->off, void *) = arr;
	*AT(base, f->off2, size_t) = k;
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
	wrong_kind(v, n, path, "a whole number >= 0");
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
		if (spec_read_string(v, n, path, f->flags, f->type == FT_STR, &s, &len))
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
	case FT_INTLIST:
		read_intlist(v, f, base, n, path);
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
	case FT_NAMED:
		read_named(v, f, base, n, path);
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
	char *p = spec_join_path(path, key->str);

	for (i = 0; tab[i].key && n < ARRAY_SIZE(names); i++)
		names[n++] = tab[i].key;
	sugg = spec_suggest(key->str, names, n);
	if (!strcmp(key->str, "<<")) {
		VERR(v, key, p, "YAML merge keys are not supported; alias the whole map instead");
	} else if (sugg) {
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
		wrong_kind(v, m, path[0] ? path : "spec", "a map of keys");
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
		const struct ynode *val = spec_map_get(m, f->key);
		char *p = spec_join_path(path, f->key);
		int given = spec_map_has(m, f->key);

		if (given && !val) /* key without a value is read as null */
			given = 0;
		if (given && ynode_is_null(val) && f->type != FT_OBJ && f->type != FT_KV &&
		    f->type != FT_SIGNALS && f->type != FT_NAMED && f->type != FT_GATES && f->type != FT_GATELIST) {
			VERR(v, val, p, "has no value");
		} else if (given) {
			read_field(v, f, base, val, p);
		} else {
			if (((f->flags & F_REQ) || ((f->flags & F_REQ_NOCTR) &&
						      !spec_map_has(m, "container"))) && report) {
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


void spec_validate(struct spec *s, const struct ynode *root, struct spec_diags *d,
		   struct spec_diags *refuse, struct spec_diags *warn)
{
	struct vctx v = { s, d, root, refuse, warn };

	if (!root || ynode_is_null(root)) {
		spec_diag_add(d, 1, 1, "spec", "the file is empty; a spec is a map of keys (see specs/README.md)");
		root = NULL;
		v.root = NULL;
	} else if (root->kind != Y_MAP) {
		wrong_kind(&v, root, "spec", "a map of keys");
		root = NULL;
		v.root = NULL;
	}
	walk_obj(&v, spec_root_fields, s, root, "", root != NULL);
	if (!root)
		return;
	spec_check_all(&v);
	spec_check_arms(&v);
	spec_check_vars(&v);
	spec_check_deps(&v);
	spec_check_generators(&v);
	spec_check_hosts(&v);
	spec_check_containers(&v);
	spec_finish_gates(&v);
	spec_check_gate_points(&v);
}
