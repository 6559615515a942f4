/*
 * jsonptr: RFC 6901 JSON Pointer over jansson values.
 *
 * "" is the whole document; "/a/b/0" walks object members and array
 * indexes; "~1" stands for '/', "~0" for '~' in a reference token. An
 * array index is "0" or digits without a leading zero; "-" (the element
 * after the last) never exists for reading.
 */
#ifndef HARNESS_JSONPTR_H
#define HARNESS_JSONPTR_H

#include <jansson.h>

/* 0 when ptr is a syntactically valid pointer, -1 otherwise. */
int jsonptr_valid(const char *ptr);
/* The value at ptr (borrowed from doc), or NULL when absent or invalid. */
json_t *jsonptr_get(json_t *doc, const char *ptr);
/* Remove the value at ptr (an object member or an array element; later
 * elements move down). 0 removed, -1 absent, invalid, or "" (the whole
 * document cannot be removed). */
int jsonptr_remove(json_t *doc, const char *ptr);

#endif
