/*
 * jout: JSON output through jansson, for every command that prints JSON
 * (no JSON written by hand: escaping, NaN and key order are jansson's).
 *
 * jansson refuses a non-finite real (json_real(NAN) is NULL, and setting
 * NULL into an object silently drops the key); jout_num() turns it into
 * null instead, so a missing number is always present as null.
 */
#ifndef HARNESS_JOUT_H
#define HARNESS_JOUT_H

#include <jansson.h>
#include <stdio.h>

/* s, or null when s is NULL. New reference. */
json_t *jout_str(const char *s);
/* v, or null when v is not finite. New reference. */
json_t *jout_num(double v);
/* true/false, or null when v < 0 (a tri-state int). */
json_t *jout_tri(int v);
/* Sets the key/value pairs that follow into o, in order, up to a NULL
 * key: jout_set(o, "rate", jout_num(r), "name", jout_str(s), NULL). Each
 * value's reference is taken (json_object_set_new: a NULL value drops its
 * key). The one way an object's fields are written, a table a call.
 * Returns o. */
json_t *jout_set(json_t *o, const char *key, ...) __attribute__((sentinel));
/* Print v (2-space indent, insertion order) and a newline to f; takes v's
 * reference. 0, or -1 after error() when writing failed. */
int jout_print(json_t *v, FILE *f);
/* The same into a malloc'd string with a trailing newline. */
char *jout_dumps(json_t *v);
/* One line (no indentation), with a trailing newline; takes v. */
char *jout_dumps_line(json_t *v);

#endif
