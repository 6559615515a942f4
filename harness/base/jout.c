/* jout: JSON output through jansson (see jout.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/jout.h"
#include "base/util.h"

json_t *jout_str(const char *s)
{
	json_t *v;
	char *copy, *p;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	/* json_string refuses invalid UTF-8: non-ASCII bytes become '?'. */
	copy = xstrdup(s);
	for (p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v ? v : json_null();
}

json_t *jout_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *jout_tri(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

json_t *jout_set(json_t *o, const char *key, ...)
{
	va_list ap;

	va_start(ap, key);
	for (; key; key = va_arg(ap, const char *))
		json_object_set_new(o, key, va_arg(ap, json_t *));
	va_end(ap);
	return o;
}

static char *dumps(json_t *v, size_t flags)
{
	char *s = json_dumps(v, flags | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	size_t n;
	char *out;

	json_decref(v);
	if (!s)
		return xstrdup("null\n");
	n = strlen(s);
	out = xmalloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(s);
	return out;
}

char *jout_dumps(json_t *v)
{
	return dumps(v, JSON_INDENT(2));
}

char *jout_dumps_line(json_t *v)
{
	return dumps(v, JSON_COMPACT);
}

int jout_print(json_t *v, FILE *f)
{
	char *s = jout_dumps(v);
	int ret = fputs(s, f) < 0 ? error("cannot write JSON output") : 0;

	free(s);
	return ret;
}
