/*
 * load_expect: whether a response is what its request expects
 * (load_request.h), for both transports. The body is searched as it
 * streams in, never buffered whole: a match may straddle two reads, so
 * the last body_contains_len - 1 bytes of each read are carried over.
 * Declared in load_internal.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/jsonptr.h"
#include "load/load_internal.h"
#include "base/util.h"

void load_check_start(struct load_check *k)
{
	k->bytes = 0;
	k->found = 0;
	k->truncated = 0;
	k->proto = LPROTO_HTTP11;
	k->ncarry = 0;
	k->nhead = 0;
	k->field_is_ct = k->in_value = 0;
	k->nfield = k->nctype = 0;
	k->ctype[0] = 0;
	k->njbuf = 0;
	k->jtoo_big = 0;
}

void load_check_release(struct load_check *k)
{
	free(k->jbuf);
	k->jbuf = NULL;
	k->njbuf = k->ajbuf = 0;
}

void load_check_field(struct load_check *k, const char *p, size_t n)
{
	if (k->in_value) {          /* a new header begins */
		k->in_value = 0;
		k->nfield = 0;
	}
	if (k->nfield + n > sizeof(k->field)) {
		k->nfield = sizeof(k->field) + 1;   /* too long to be Content-Type */
		return;
	}
	memcpy(k->field + k->nfield, p, n);
	k->nfield += n;
}

void load_check_value(struct load_check *k, const char *p, size_t n)
{
	if (!k->in_value) {
		k->in_value = 1;
		k->field_is_ct = k->nfield == 12 && !strncasecmp(k->field, "content-type", 12);
		if (k->field_is_ct)
			k->nctype = 0;
	}
	if (!k->field_is_ct)
		return;
	if (n > LOAD_CTYPE_MAX - 1 - k->nctype)
		n = LOAD_CTYPE_MAX - 1 - k->nctype;
	memcpy(k->ctype + k->nctype, p, n);
	k->nctype += n;
	k->ctype[k->nctype] = 0;
}

/* The media type of value (before ';', trimmed) is want, ignoring case. */
static int ctype_matches(const char *value, const char *want)
{
	size_t n = strlen(want), m;

	while (*value == ' ' || *value == '\t')
		value++;
	m = strcspn(value, ";");
	while (m && (value[m - 1] == ' ' || value[m - 1] == '\t'))
		m--;
	return m == n && !strncasecmp(value, want, n);
}

int load_expect_needs_body(const struct load_expect *e)
{
	return e->body_contains || e->max_bytes || e->njson;
}

/* Keep the last `keep` bytes of carry + p[0..n). */
static void carry_over(struct load_check *k, const char *p, size_t n, size_t keep)
{
	size_t total, drop;

	if (n >= keep) {
		memcpy(k->carry, p + n - keep, keep);
		k->ncarry = keep;
		return;
	}
	total = k->ncarry + n;
	drop = total > keep ? total - keep : 0;
	memmove(k->carry, k->carry + drop, k->ncarry - drop);
	memcpy(k->carry + k->ncarry - drop, p, n);
	k->ncarry = total - drop;
}

void load_check_body(struct load_check *k, const struct load_expect *e, const char *p,
		     size_t n)
{
	const char *needle = e->body_contains;
	size_t m = e->body_contains_len;

	k->bytes += n;
	if (k->nhead < LOAD_SAMPLE_BODY && n) {
		size_t c = LOAD_SAMPLE_BODY - k->nhead < n ? LOAD_SAMPLE_BODY - k->nhead : n;

		memcpy(k->head + k->nhead, p, c);
		k->nhead += c;
	}
	if (e->njson && !k->jtoo_big && n) {
		if (k->njbuf + n > LOAD_JSON_MAX) {
			k->jtoo_big = 1;
		} else {
			XGROW(k->jbuf, k->ajbuf, k->njbuf + n);
			memcpy(k->jbuf + k->njbuf, p, n);
			k->njbuf += n;
		}
	}
	if (!needle || !m || k->found || !n)
		return;
	if (k->ncarry) {
		char buf[2 * LOAD_EXPECT_MAX_BODY];
		size_t take = n < m - 1 ? n : m - 1;

		memcpy(buf, k->carry, k->ncarry);
		memcpy(buf + k->ncarry, p, take);
		if (memmem(buf, k->ncarry + take, needle, m)) {
			k->found = 1;
			return;
		}
	}
	if (memmem(p, n, needle, m)) {
		k->found = 1;
		return;
	}
	carry_over(k, p, n, m - 1);
}

/* The first bytes of s, printable, for a message. */
static void quote(char *out, size_t len, const char *s, size_t n)
{
	size_t i, o = 0, max = n < 24 ? n : 24;

	for (i = 0; i < max && o + 2 < len; i++)
		out[o++] = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' ? s[i] : '.';
	if (max < n && o + 4 < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

/* The JSON value v is the scalar written as want. */
static int json_equals(json_t *v, const char *want)
{
	double d;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return !strcmp(json_string_value(v), want);
	case JSON_INTEGER:
	case JSON_REAL:
		return !parse_double(want, &d) && d == json_number_value(v);
	case JSON_TRUE:
		return !strcmp(want, "true");
	case JSON_FALSE:
		return !strcmp(want, "false");
	case JSON_NULL:
		return !strcmp(want, "null");
	default:
		return 0;
	}
}

/* The body's JSON against e->json; NULL when every pointer holds its value. */
static const char *json_why(const struct load_expect *e, const struct load_check *k,
			    char *buf, size_t len)
{
	json_error_t err;
	json_t *doc, *v;
	size_t i;

	if (k->jtoo_big) {
		snprintf(buf, len, "body over %d KiB: too large to check its JSON",
			 LOAD_JSON_MAX / 1024);
		return buf;
	}
	doc = json_loadb(k->jbuf ? k->jbuf : "", k->njbuf, JSON_DECODE_ANY, &err);
	if (!doc) {
		snprintf(buf, len, "body (%zu bytes) is not JSON: %.50s", k->njbuf, err.text);
		return buf;
	}
	for (i = 0; i < e->njson; i++) {
		v = jsonptr_get(doc, e->json[i].key);
		if (!v) {
			snprintf(buf, len, "no %.40s in the body's JSON", e->json[i].key);
			break;
		}
		if (!json_equals(v, e->json[i].value)) {
			char *got = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			snprintf(buf, len, "%.30s is %.24s, expected %.24s", e->json[i].key,
				 got ? got : "?", e->json[i].value);
			free(got);
			break;
		}
	}
	json_decref(doc);
	return i < e->njson ? buf : NULL;
}

const char *load_expect_why(const struct load_expect *e, int status,
			    const struct load_check *k, char *buf, size_t len)
{
	size_t i;

	if (k && k->truncated) {
		snprintf(buf, len, "truncated: the connection closed after %llu body bytes",
			 (unsigned long long)k->bytes);
		return buf;
	}
	if (!e->nstatus) {
		if (status < 200 || status > 399) {
			snprintf(buf, len, "status %d, expected 2xx or 3xx", status);
			return buf;
		}
	} else {
		for (i = 0; i < e->nstatus && e->status[i] != status; i++)
			;
		if (i == e->nstatus) {
			snprintf(buf, len, "status %d, expected %d%s", status, e->status[0],
				 e->nstatus > 1 ? " or another listed one" : "");
			return buf;
		}
	}
	if (!k)
		return NULL;
	if (e->content_type && !ctype_matches(k->ctype, e->content_type)) {
		snprintf(buf, len, "content type \"%.40s\", expected %.40s",
			 k->ctype, e->content_type);
		return buf;
	}
	if (e->max_bytes && k->bytes > e->max_bytes) {
		snprintf(buf, len, "body of %llu bytes, more than max_bytes %llu",
			 (unsigned long long)k->bytes, (unsigned long long)e->max_bytes);
		return buf;
	}
	if (e->body_contains && !k->found) {
		char q[32];

		quote(q, sizeof(q), e->body_contains, e->body_contains_len);
		snprintf(buf, len, "body (%llu bytes) does not contain \"%s\"",
			 (unsigned long long)k->bytes, q);
		return buf;
	}
	if (e->njson)
		return json_why(e, k, buf, len);
	return NULL;
}

const char *load_expect_check(const struct load_expect *e, int status, const char *content_type,
			      const char *body, size_t len, char *buf, size_t buflen)
{
	struct load_check k;
	const char *why;

	memset(&k, 0, sizeof(k));
	load_check_start(&k);
	if (content_type) {
		snprintf(k.ctype, sizeof(k.ctype), "%s", content_type);
		k.nctype = strlen(k.ctype);
	}
	if (len)
		load_check_body(&k, e, body, len);
	why = load_expect_why(e, status, &k, buf, buflen);
	load_check_release(&k);
	return why;
}
