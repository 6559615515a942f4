/*
 * spec_yaml: YAML bytes -> a small node tree that remembers where every
 * node was written, built from libyaml's event stream.
 *
 * Stricter than YAML on purpose, because a spec is frozen and a typo must
 * not silently mean something else: duplicate keys, aliases to undefined
 * anchors, non-scalar keys, several documents, unknown tags, NUL bytes and
 * files over 1 MiB are errors. A tab in indentation gets its own message
 * (libyaml's is "found character that cannot start any token").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "spec/spec_internal.h"
#include "base/util.h"

#define MAX_DEPTH 64
#define MAX_ALIASES 10000

struct frame {
	struct ynode *node;
	int expect_key;          /* maps: the next node is a key */
	char *path;              /* key path of this node, "" at the root */
};

struct anchor {
	char *name;
	struct ynode *node;
};

struct builder {
	struct ydoc *doc;
	struct spec_diags *d;
	struct frame stack[MAX_DEPTH];
	int depth;
	struct anchor *anchors;
	size_t nanchors, aanchors;
	size_t naliases;
	int failed;
};

static struct ynode *node_new(struct ydoc *doc, enum ynode_kind kind, yaml_mark_t m)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (int)m.line + 1;
	n->col = (int)m.column + 1;
	XGROW(doc->all, doc->alloc, doc->nall + 1);
	doc->all[doc->nall++] = n;
	return n;
}

static void node_push(struct ynode *parent, struct ynode *key, struct ynode *val)
{
	if (parent->n == parent->alloc) {
		size_t a = parent->alloc;
		XGROW(parent->vals, a, parent->n + 1);
		if (parent->kind == Y_MAP)
			parent->keys = xrealloc(parent->keys, a * sizeof(*parent->keys));
		parent->alloc = a;
	}
	if (parent->kind == Y_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
}

void ydoc_release(struct ydoc *doc)
{
	size_t i;

	for (i = 0; i < doc->nall; i++) {
		free(doc->all[i]->str);
		free(doc->all[i]->keys);
		free(doc->all[i]->vals);
		free(doc->all[i]);
	}
	free(doc->all);
	memset(doc, 0, sizeof(*doc));
}

int ynode_is_null(const struct ynode *n)
{
	if (!n)
		return 1;
	if (n->kind != Y_SCALAR || !n->plain)
		return 0;
	return !strcmp(n->str, "") || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
	       !strcmp(n->str, "Null") || !strcmp(n->str, "NULL");
}

void ynode_describe(const struct ynode *n, struct sbuf *sb)
{
	size_t i;
	int q;

	if (!n || ynode_is_null(n)) {
		sbuf_adds(sb, "null");
		return;
	}
	if (n->kind == Y_MAP) {
		sbuf_adds(sb, "a map");
		return;
	}
	if (n->kind == Y_SEQ) {
		sbuf_adds(sb, "a list");
		return;
	}
	/* plain scalars are shown as written (0.9, yes), quoted ones quoted */
	q = !n->plain;
	if (q)
		sbuf_add(sb, "\"", 1);
	for (i = 0; i < n->len && i < 60; i++) {
		unsigned char c = (unsigned char)n->str[i];
		if (c == '"' || c == '\\')
			sbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			sbuf_addf(sb, "\\x%02x", c);
		else
			sbuf_add(sb, &c, 1);
	}
	if (n->len > 60)
		sbuf_adds(sb, "...");
	if (q)
		sbuf_add(sb, "\"", 1);
}

/* ---------------------------------------------------------------- errors */

static void offset_pos(const char *text, size_t len, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* The first tab in the indentation of lines 1..upto, or 0. */
static int find_indent_tab(const char *text, size_t len, int upto, int *line, int *col)
{
	size_t i = 0;
	int ln = 1, c;

	while (i < len && ln <= upto) {
		for (c = 1; i < len && (text[i] == ' ' || text[i] == '\t'); i++, c++) {
			if (text[i] == '\t') {
				*line = ln;
				*col = c;
				return 1;
			}
		}
		while (i < len && text[i] != '\n')
			i++;
		i++;
		ln++;
	}
	return 0;
}

static void parser_error(yaml_parser_t *p, const char *text, size_t len, struct spec_diags *d)
{
	int line, col, tl, tc;
	const char *problem = p->problem ? p->problem : "malformed YAML";

	if (p->error == YAML_READER_ERROR) {
		offset_pos(text, len, p->problem_offset, &line, &col);
		if (p->problem_value >= 0)
			spec_diag_add(d, line, col, "yaml", "not UTF-8 text: %s (byte 0x%02x)",
				      problem, (unsigned)p->problem_value & 0xff);
		else
			spec_diag_add(d, line, col, "yaml", "not UTF-8 text: %s", problem);
		return;
	}
	if (p->error == YAML_MEMORY_ERROR) {
		spec_diag_add(d, 1, 1, "yaml", "out of memory while parsing");
		return;
	}
	line = (int)p->problem_mark.line + 1;
	col = (int)p->problem_mark.column + 1;
	if (find_indent_tab(text, len, line, &tl, &tc)) {
		spec_diag_add(d, tl, tc, "yaml", "tab character in indentation (YAML indents with spaces only)");
		return;
	}
	if (p->context)
		spec_diag_add(d, line, col, "yaml", "%s (%s at line %d, column %d)%s", problem,
			      p->context, (int)p->context_mark.line + 1,
			      (int)p->context_mark.column + 1,
			      strstr(problem, "did not find expected") &&
			      strstr(p->context, "block") ? "; check the indentation" : "");
	else
		spec_diag_add(d, line, col, "yaml", "%s", problem);
}

/* ------------------------------------------------------------- building */

static const char *const ok_tags[] = {
	"!", "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
	"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:map",
	"tag:yaml.org,2002:seq",
};

static int check_tag(struct builder *b, const yaml_char_t *tag, yaml_mark_t m, int *force_str)
{
	size_t i;

	*force_str = 0;
	if (!tag)
		return 0;
	for (i = 0; i < ARRAY_SIZE(ok_tags); i++) {
		if (!strcmp((const char *)tag, ok_tags[i])) {
			*force_str = i < 2;
			return 0;
		}
	}
	spec_diag_add(b->d, (int)m.line + 1, (int)m.column + 1, "yaml",
		      "tag %.60s is not supported in a spec", (const char *)tag);
	b->failed = 1;
	return -1;
}

static void add_anchor(struct builder *b, const yaml_char_t *name, struct ynode *n)
{
	if (!name)
		return;
	XGROW(b->anchors, b->aanchors, b->nanchors + 1);
	b->anchors[b->nanchors].name = xstrdup((const char *)name);
	b->anchors[b->nanchors].node = n;
	b->nanchors++;
}

static struct ynode *find_anchor(struct builder *b, const char *name)
{
	size_t i;

	for (i = b->nanchors; i > 0; i--)
		if (!strcmp(b->anchors[i - 1].name, name))
			return b->anchors[i - 1].node;
	return NULL;
}

static char *child_path(const char *parent, const struct ynode *key, size_t index)
{
	struct sbuf sb = SBUF_INIT;

	if (key) {
		if (*parent)
			sbuf_addf(&sb, "%s.", parent);
		sbuf_add(&sb, key->str, strnlen(key->str, 80));
	} else {
		sbuf_addf(&sb, "%s[%zu]", parent, index);
	}
	return sbuf_detach(&sb, NULL);
}

/* Place n in the container on top of the stack; returns its key path. */
static char *attach(struct builder *b, struct ynode *n)
{
	struct frame *f;
	struct ynode *key;

	if (b->depth == 0) {
		b->doc->root = n;
		return xstrdup("");
	}
	f = &b->stack[b->depth - 1];
	if (f->node->kind == Y_SEQ) {
		node_push(f->node, NULL, n);
		return child_path(f->path, NULL, f->node->n - 1);
	}
	if (f->expect_key) {
		if (n->kind != Y_SCALAR) {
			spec_diag_add(b->d, n->line, n->col, f->path[0] ? f->path : "yaml",
				      "a key must be a plain word, not %s",
				      n->kind == Y_MAP ? "a map" : "a list");
			b->failed = 1;
		}
		node_push(f->node, n, NULL);
		f->expect_key = 0;
		return NULL;
	}
	key = f->node->keys[f->node->n - 1];
	f->node->vals[f->node->n - 1] = n;
	f->expect_key = 1;
	return key->kind == Y_SCALAR ? child_path(f->path, key, 0) : xstrdup(f->path);
}

struct keyref {
	const struct ynode *key;
	size_t index;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t n = x->key->len < y->key->len ? x->key->len : y->key->len;
	int c;

	/* non-scalar keys (already reported) have no text: order them apart */
	if (x->key->kind != Y_SCALAR || y->key->kind != Y_SCALAR) {
		if (x->key->kind != y->key->kind)
			return x->key->kind < y->key->kind ? -1 : 1;
		return x->index < y->index ? -1 : x->index > y->index;
	}
	c = n ? memcmp(x->key->str, y->key->str, n) : 0;
	if (c)
		return c;
	if (x->key->len != y->key->len)
		return x->key->len < y->key->len ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Duplicate keys in a finished map: sort (n log n, a spec may be 1 MiB). */
static void check_dups(struct builder *b, const struct frame *f)
{
	struct ynode *m = f->node;
	struct keyref *r;
	size_t i, first = 0;

	if (m->n < 2)
		return;
	r = xmalloc(m->n * sizeof(*r));
	for (i = 0; i < m->n; i++) {
		r[i].key = m->keys[i];
		r[i].index = i;
	}
	qsort(r, m->n, sizeof(*r), keyref_cmp);
	for (i = 1; i < m->n; i++) {
		if (r[i].key->kind != Y_SCALAR || r[first].key->kind != Y_SCALAR ||
		    r[i].key->len != r[first].key->len ||
		    memcmp(r[i].key->str, r[first].key->str, r[i].key->len)) {
			first = i;
			continue;
		}
		{
			char *p = child_path(f->path, r[i].key, 0);
			spec_diag_add(b->d, r[i].key->line, r[i].key->col, p,
				      "duplicate key (first given at line %d)", r[first].key->line);
			free(p);
		}
		b->failed = 1;
	}
	free(r);
}

static int push(struct builder *b, struct ynode *n, char *path)
{
	if (b->depth == MAX_DEPTH) {
		spec_diag_add(b->d, n->line, n->col, "yaml", "nested deeper than %d levels", MAX_DEPTH);
		free(path);
		return -1;
	}
	b->stack[b->depth].node = n;
	b->stack[b->depth].expect_key = n->kind == Y_MAP;
	b->stack[b->depth].path = path;
	b->depth++;
	return 0;
}

static int on_event(struct builder *b, yaml_event_t *ev, int *ndocs)
{
	struct ynode *n;
	char *path;
	int force_str, i;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*ndocs > 1) {
			spec_diag_add(b->d, (int)ev->start_mark.line + 1,
				      (int)ev->start_mark.column + 1, "yaml",
				      "a second YAML document; a spec is one document");
			return -1;
		}
		return 0;
	case YAML_SCALAR_EVENT:
		if (check_tag(b, ev->data.scalar.tag, ev->start_mark, &force_str))
			force_str = 1;
		n = node_new(b->doc, Y_SCALAR, ev->start_mark);
		n->len = ev->data.scalar.length;
		n->str = xmalloc(n->len + 1);
		memcpy(n->str, ev->data.scalar.value, n->len);
		n->str[n->len] = '\0';
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !force_str;
		add_anchor(b, ev->data.scalar.anchor, n);
		free(attach(b, n));
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		int is_map = ev->type == YAML_MAPPING_START_EVENT;
		const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
		const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor
						   : ev->data.sequence_start.anchor;

		check_tag(b, tag, ev->start_mark, &force_str);
		n = node_new(b->doc, is_map ? Y_MAP : Y_SEQ, ev->start_mark);
		add_anchor(b, anchor, n);
		path = attach(b, n);
		return push(b, n, path ? path : xstrdup("?"));
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth == 0)
			return 0;
		b->depth--;
		if (b->stack[b->depth].node->kind == Y_MAP)
			check_dups(b, &b->stack[b->depth]);
		free(b->stack[b->depth].path);
		return 0;
	case YAML_ALIAS_EVENT:
		n = find_anchor(b, (const char *)ev->data.alias.anchor);
		if (!n) {
			spec_diag_add(b->d, (int)ev->start_mark.line + 1,
				      (int)ev->start_mark.column + 1, "yaml",
				      "alias *%.60s refers to no anchor (&%.60s is not defined before it)",
				      (const char *)ev->data.alias.anchor,
				      (const char *)ev->data.alias.anchor);
			return -1;
		}
		for (i = 0; i < b->depth; i++) {
			if (b->stack[i].node == n) {
				spec_diag_add(b->d, (int)ev->start_mark.line + 1,
					      (int)ev->start_mark.column + 1, "yaml",
					      "alias *%.60s refers to a map or list that contains it",
					      (const char *)ev->data.alias.anchor);
				return -1;
			}
		}
		if (++b->naliases > MAX_ALIASES) {
			spec_diag_add(b->d, (int)ev->start_mark.line + 1,
				      (int)ev->start_mark.column + 1, "yaml",
				      "more than %d aliases", MAX_ALIASES);
			return -1;
		}
		free(attach(b, n));
		return 0;
	default:
		return 0;
	}
}

int ydoc_parse(struct ydoc *doc, const char *text, size_t len, struct spec_diags *d)
{
	struct builder b;
	yaml_parser_t p;
	yaml_event_t ev;
	const char *nul;
	int line, col, ndocs = 0, ret = -1, done = 0;
	size_t i;

	memset(doc, 0, sizeof(*doc));
	if (len > SPEC_MAX_BYTES) {
		spec_diag_add(d, 1, 1, "yaml", "the file is %zu bytes; a spec may be at most 1 MiB", len);
		return -1;
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		offset_pos(text, len, (size_t)(nul - text), &line, &col);
		spec_diag_add(d, line, col, "yaml", "binary data (a NUL byte); a spec is a UTF-8 text file");
		return -1;
	}
	memset(&b, 0, sizeof(b));
	b.doc = doc;
	b.d = d;
	if (!yaml_parser_initialize(&p)) {
		spec_diag_add(d, 1, 1, "yaml", "cannot initialise the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_error(&p, text, len, d);
			goto out;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		if (on_event(&b, &ev, &ndocs)) {
			yaml_event_delete(&ev);
			goto out;
		}
		yaml_event_delete(&ev);
	}
	ret = b.failed ? -1 : 0;
out:
	while (b.depth > 0)
		free(b.stack[--b.depth].path);
	for (i = 0; i < b.nanchors; i++)
		free(b.anchors[i].name);
	free(b.anchors);
	yaml_parser_delete(&p);
	return ret;
}
