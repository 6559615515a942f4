/*
 * preflight_diff: the strict comparison of two answers, with a base's
 * self-check (contract in preflight_diff.h).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/jsonptr.h"
#include "runner/preflight_diff.h"
#include "base/util.h"

#define EXCERPT 24              /* bytes of each body shown at a difference */

/* The media type of a Content-Type value: before ';', trimmed. */
static void media_type(const char *v, char *out, size_t len)
{
	size_t n;

	v = v ? v : "";
	while (*v == ' ' || *v == '\t')
		v++;
	n = strcspn(v, ";");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	snprintf(out, len, "%.*s", (int)n, v);
}

/* Why a and b differ in status or media type, or NULL. */
static const char *head_diff(const struct preflight_answer *a, const struct preflight_answer *b,
			     char *buf, size_t len)
{
	char ma[128], mb[128];

	if (a->status != b->status) {
		snprintf(buf, len, "status %ld vs %ld", a->status, b->status);
		return buf;
	}
	media_type(a->ctype, ma, sizeof(ma));
	media_type(b->ctype, mb, sizeof(mb));
	if (strcasecmp(ma, mb)) {
		snprintf(buf, len, "content type \"%.60s\" vs \"%.60s\"", ma, mb);
		return buf;
	}
	return NULL;
}

/* A JSON value, short, for a message. */
static void show(json_t *v, char *out, size_t len)
{
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	snprintf(out, len, "%.40s%s", s ? s : "(absent)", s && strlen(s) > 40 ? "..." : "");
	free(s);
}

static void sbuf_cut(struct sbuf *sb, size_t len)
{
	sb->len = len;
	if (sb->buf)
		sb->buf[len] = '\0';
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void ptr_push(struct sbuf *p, const char *tok)
{
	sbuf_adds(p, "/");
	for (; *tok; tok++) {
		if (*tok == '~')
			sbuf_adds(p, "~0");
		else if (*tok == '/')
			sbuf_adds(p, "~1");
		else
			sbuf_add(p, tok, 1);
	}
}

/* The first place a and b differ: 1 with its pointer in *at and the two
 * values there in va, vb (borrowed; NULL: absent); 0 when equal. Object
 * members are visited in sorted order, so the answer is reproducible. */
static int json_first_diff(json_t *a, json_t *b, struct sbuf *at, json_t **va, json_t **vb)
{
	size_t keep = at->len, i;

	if (json_is_object(a) && json_is_object(b)) {
		const char **keys = xcalloc(json_object_size(a) + json_object_size(b) + 1,
					    sizeof(*keys));
		const char *k;
		json_t *v;
		size_t n = 0;
		int d = 0;

		json_object_foreach(a, k, v)
			keys[n++] = k;
		json_object_foreach(b, k, v)
			if (!json_object_get(a, k))
				keys[n++] = k;
		qsort(keys, n, sizeof(*keys), cmp_key);
		for (i = 0; i < n && !d; i++) {
			ptr_push(at, keys[i]);
			d = json_first_diff(json_object_get(a, keys[i]), json_object_get(b, keys[i]),
					    at, va, vb);
			if (!d)
				sbuf_cut(at, keep);
		}
		free(keys);
		return d;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		for (i = 0; i < json_array_size(a); i++) {
			char tok[32];

			snprintf(tok, sizeof(tok), "%zu", i);
			ptr_push(at, tok);
			if (json_first_diff(json_array_get(a, i), json_array_get(b, i), at, va, vb))
				return 1;
			sbuf_cut(at, keep);
		}
		return 0;
	}
	if (a && b && json_equal(a, b))
		return 0;
	*va = a;
	*vb = b;
	return 1;
}

static json_t *parse(const struct preflight_answer *a)
{
	return json_loadb(a->body ? a->body : "", a->len, JSON_DECODE_ANY, NULL);
}

/*
 * Take out of a, b and x every member at which a and b (the base's two
 * answers) differ, naming each in noise. 0, or -1 when they differ in the
 * whole document or in more than PREFLIGHT_NOISE_MAX places (noise: "the
 * body").
 */
static int drop_noise(json_t *a, json_t *b, json_t *x, struct sbuf *noise)
{
	struct sbuf at = SBUF_INIT;
	json_t *va, *vb;
	int n, ret = -1;

	for (n = 0; n <= PREFLIGHT_NOISE_MAX; n++) {
		sbuf_reset(&at);
		if (!json_first_diff(a, b, &at, &va, &vb)) {
			ret = 0;
			break;
		}
		if (!at.len || n == PREFLIGHT_NOISE_MAX)
			break;
		sbuf_addf(noise, "%s\n", at.buf);
		jsonptr_remove(a, at.buf);
		jsonptr_remove(b, at.buf);
		jsonptr_remove(x, at.buf);
	}
	if (ret)
		sbuf_adds(noise, "the body\n");
	sbuf_release(&at);
	return ret;
}

static const char *json_diff(json_t *ja, json_t *jx, char *buf, size_t len)
{
	struct sbuf at = SBUF_INIT;
	json_t *va = NULL, *vx = NULL;
	const char *why = NULL;

	if (json_first_diff(ja, jx, &at, &va, &vx)) {
		char sa[64], sx[64];

		show(va, sa, sizeof(sa));
		show(vx, sx, sizeof(sx));
		snprintf(buf, len, "JSON differs at %s: %s vs %s",
			 at.len ? at.buf : "\"\" (the whole body)", sa, sx);
		why = buf;
	}
	sbuf_release(&at);
	return why;
}

static int same_bytes(const struct preflight_answer *a, const struct preflight_answer *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->body, b->body, a->len));
}

/* Up to EXCERPT bytes of body from off, quoted, escaped, into out. */
static void excerpt(const char *body, size_t len, size_t off, char *out, size_t outlen)
{
	struct sbuf sb = SBUF_INIT;
	size_t i, end = off + EXCERPT < len ? off + EXCERPT : len;

	sbuf_adds(&sb, off ? "\"..." : "\"");
	for (i = off; i < end; i++) {
		unsigned char ch = (unsigned char)body[i];

		if (ch == '"' || ch == '\\')
			sbuf_addf(&sb, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			sbuf_addf(&sb, "\\x%02x", ch);
		else
			sbuf_add(&sb, &body[i], 1);
	}
	sbuf_adds(&sb, end < len ? "...\"" : "\"");
	snprintf(out, outlen, "%s", sb.buf);
	sbuf_release(&sb);
}

/* Why the bodies of a and x differ byte for byte, or NULL: the offset
 * of the first difference and both bodies from a little before it. */
static const char *bytes_diff(const struct preflight_answer *a, const struct preflight_answer *x,
			      char *buf, size_t len)
{
	char ea[EXCERPT * 4 + 16], ex[EXCERPT * 4 + 16];
	size_t k = 0, n = a->len < x->len ? a->len : x->len, from;

	if (same_bytes(a, x))
		return NULL;
	while (k < n && a->body[k] == x->body[k])
		k++;
	from = k > EXCERPT / 3 ? k - EXCERPT / 3 : 0;
	excerpt(a->body, a->len, from, ea, sizeof(ea));
	excerpt(x->body, x->len, from, ex, sizeof(ex));
	snprintf(buf, len, "bodies differ at byte %zu (%zu vs %zu bytes): %s vs %s", k, a->len,
		 x->len, ea, ex);
	return buf;
}

/* The body comparison, the base's noise left out (ref2 non-NULL). */
static const char *body_diff(const struct preflight_answer *ref, const struct preflight_answer *x,
			     char *const *ignore, const struct preflight_answer *ref2,
			     struct sbuf *noise, char *buf, size_t len)
{
	json_t *ja = parse(ref), *jx = parse(x), *j2 = ref2 ? parse(ref2) : NULL;
	const char *why = NULL;
	size_t i;

	if (ja && jx) {
		for (i = 0; ignore && ignore[i]; i++) {
			jsonptr_remove(ja, ignore[i]);
			jsonptr_remove(jx, ignore[i]);
			if (j2)
				jsonptr_remove(j2, ignore[i]);
		}
		/* the base cannot say what its answer is: nothing to judge */
		if (ref2 && !j2)
			sbuf_adds(noise, "the body\n");
		if (ref2 && (!j2 || drop_noise(ja, j2, jx, noise)))
			goto out;
		why = json_diff(ja, jx, buf, len);
	} else if (ref2 && (!!j2 != !!ja || (!ja && !same_bytes(ref, ref2)))) {
		sbuf_adds(noise, "the body\n");
	} else if (!!ja != !!jx) {
		snprintf(buf, len, "body is %s vs %s", ja ? "JSON" : "not JSON",
			 jx ? "JSON" : "not JSON");
		why = buf;
	} else {
		why = bytes_diff(ref, x, buf, len);
	}
out:
	if (ja)
		json_decref(ja);
	if (jx)
		json_decref(jx);
	if (j2)
		json_decref(j2);
	return why;
}

const char *preflight_diff(const struct preflight_answer *ref, const struct preflight_answer *x,
			   char *const *ignore, const struct preflight_answer *ref2,
			   struct sbuf *noise, char *buf, size_t len)
{
	if (ref2 && head_diff(ref, ref2, buf, len)) {
		sbuf_adds(noise, "the status or media type\n");
		return NULL;
	}
	if (head_diff(ref, x, buf, len))
		return buf;
	if (ref->too_big || x->too_big || (ref2 && ref2->too_big)) {
		snprintf(buf, len, "a body too large to compare");
		return buf;
	}
	return body_diff(ref, x, ignore, ref2, noise, buf, len);
}
