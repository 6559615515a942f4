/* jsonptr: RFC 6901 evaluation (see jsonptr.h). */
#include <stdlib.h>
#include <string.h>

#include "base/jsonptr.h"
#include "base/util.h"

int jsonptr_valid(const char *ptr)
{
	const char *p;

	if (!ptr)
		return -1;
	if (*ptr && *ptr != '/')
		return -1;
	for (p = ptr; *p; p++)
		if (*p == '~' && p[1] != '0' && p[1] != '1')
			return -1;
	return 0;
}

/* Decode one reference token [s, e) into out (its length + 1 bytes). */
static void unescape(const char *s, const char *e, char *out)
{
	while (s < e) {
		if (*s == '~' && s + 1 < e) {
			*out++ = s[1] == '1' ? '/' : '~';
			s += 2;
		} else
			*out++ = *s++;
	}
	*out = '\0';
}

static int array_index(const char *tok, size_t *idx)
{
	char *end;
	unsigned long long v;

	if (!*tok || (tok[0] == '0' && tok[1]) || tok[0] < '0' || tok[0] > '9')
		return -1;
	v = strtoull(tok, &end, 10);
	if (*end)
		return -1;
	*idx = (size_t)v;
	return 0;
}

json_t *jsonptr_get(json_t *doc, const char *ptr)
{
	const char *p, *e;
	char *tok;
	json_t *cur = doc;
	size_t idx;

	if (jsonptr_valid(ptr))
		return NULL;
	tok = xmalloc(strlen(ptr) + 1);
	for (p = ptr; cur && *p == '/'; p = e) {
		p++;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		unescape(p, e, tok);
		if (json_is_object(cur))
			cur = json_object_get(cur, tok);
		else if (json_is_array(cur))
			cur = array_index(tok, &idx) ? NULL : json_array_get(cur, idx);
		else
			cur = NULL;
	}
	free(tok);
	return cur;
}

int jsonptr_remove(json_t *doc, const char *ptr)
{
	const char *last;
	char *parent_ptr, *tok;
	json_t *parent;
	size_t idx;
	int ret = -1;

	if (jsonptr_valid(ptr) || !*ptr)
		return -1;
	last = strrchr(ptr, '/');
	parent_ptr = xstrndup(ptr, (size_t)(last - ptr));
	tok = xmalloc(strlen(last) + 1);
	unescape(last + 1, last + strlen(last), tok);
	parent = jsonptr_get(doc, parent_ptr);
	if (json_is_object(parent))
		ret = json_object_del(parent, tok) ? -1 : 0;
	else if (json_is_array(parent) && !array_index(tok, &idx))
		ret = json_array_remove(parent, idx) ? -1 : 0;
	free(tok);
	free(parent_ptr);
	return ret;
}
