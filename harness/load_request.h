/*
 * load_request: what a workload is made of, as the load engine takes it:
 * the arrival process, the transport, and one kind of request of the mix.
 * A leaf header, so the spec (which reads these from YAML) can include it
 * without the engine's API; the engine's API is load.h.
 */
#ifndef HARNESS_LOAD_REQUEST_H
#define HARNESS_LOAD_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum arrival { ARRIVAL_CONSTANT, ARRIVAL_POISSON };
enum transport { TRANSPORT_AUTO, TRANSPORT_NATIVE, TRANSPORT_CURL };

/* What a response must be to count as the expected answer (the spec's
 * workload.requests[].expect; see specs/README.md). A response that is
 * not is counted as `unexpected` (load.h). */
#define LOAD_EXPECT_MAX_BODY 256   /* longest body_contains, bytes */
struct load_expect {
	int *status;         /* expected statuses; none (0): any 2xx or 3xx */
	size_t nstatus;
	char *body_contains; /* bytes the body must contain, or NULL */
	size_t body_contains_len;
	uint64_t max_bytes;  /* largest body accepted, bytes; 0: no limit */
	char *content_type;  /* the media type expected (case-insensitive, parameters
				after ';' ignored), or NULL */
	struct kv *json;     /* RFC 6901 pointer -> the scalar expected there, as
				written: a JSON string by its text, a number by
				value, true/false/null by name */
	size_t njson;
};

/* One kind of request of a workload (the spec's workload.requests; owned
 * by whoever built it, read-only here). */
struct load_request {
	char *name;
	double weight;       /* > 0 */
	char *method;        /* default GET */
	char *path;          /* starts with '/' */
	struct kv *headers;
	size_t nheaders;
	char *body;          /* bytes (body, or body_file's contents), or NULL */
	size_t body_len;
	char *body_file;     /* absolute path when the body came from a file */
	struct load_expect expect;
};

#endif
