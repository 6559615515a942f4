/*
 * preflight_diff: is one answer the same as another? The strict
 * comparison of the pre-flight (harness/runner/preflight.h; docs/DESIGN.md,
 * "Pre-flight"): the status, the media type (parameters and case
 * ignored; no other header: Date, Server and the like differ between any
 * two servers) and the body: JSON compared as JSON (object keys in any
 * order, members at the ignore pointers removed from both first), any
 * other body byte for byte. A difference is described in one line that
 * shows it: the JSON pointer and both values, or the byte offset and an
 * excerpt of both bodies from just before it.
 *
 * Against a rerun's base, the base is asked twice: what its own two
 * answers disagree on (a JSON member: its pointer; a whole non-JSON body;
 * the status or type) is noise the commit under test cannot be judged
 * by, and is left out of the comparison, named in *noise.
 *
 * Pure functions of their inputs; no I/O. Threads: any.
 */
#ifndef HARNESS_PREFLIGHT_DIFF_H
#define HARNESS_PREFLIGHT_DIFF_H

#include <stddef.h>

#include "base/util.h"

/* One answer, borrowed. */
struct preflight_answer {
	long status;
	const char *ctype;      /* Content-Type's value, or NULL */
	const char *body;       /* NULL when empty */
	size_t len;
	int too_big;            /* the body was longer than its caller kept */
};

/* The JSON pointers at which a base's two answers differed, at most this
 * many per case; past it the body is not compared. */
#define PREFLIGHT_NOISE_MAX 16

/*
 * Why x differs from ref, or NULL when they agree; the line is written
 * to buf (len bytes). ignore: NULL-terminated JSON pointers, or NULL.
 * ref2: ref's second answer to the same case, or NULL (no self-check);
 * with it, whatever ref and ref2 disagree on is left out and named in
 * noise, one line each ("/id\n"; "the body\n" or "the status or media
 * type\n" when that is all of it), appended.
 */
const char *preflight_diff(const struct preflight_answer *ref, const struct preflight_answer *x,
			   char *const *ignore, const struct preflight_answer *ref2,
			   struct sbuf *noise, char *buf, size_t len);

#endif
