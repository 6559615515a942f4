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

#include "base/util.h"

enum arrival { ARRIVAL_CONSTANT, ARRIVAL_POISSON };
enum transport { TRANSPORT_AUTO, TRANSPORT_NATIVE, TRANSPORT_CURL };
/* The HTTP version asked for (the spec's workload.http): 1.1; 2 (over
 * TLS by ALPN, HTTP/1.1 for plain http://); h2c (HTTP/2 over plain TCP by
 * prior knowledge). 2 and h2c need the curl transport. */
enum http_version { HTTPV_11, HTTPV_2, HTTPV_H2C };

/*
 * A template variable (the spec's workload.vars; see specs/README.md):
 * `{name}` in a request's path, header values or body is replaced by a
 * value drawn for each request of the pre-generated pool (load_pool.c).
 * Exactly one kind's member is given; the spec's checks set `kind`.
 */
/* The pool generator's version, hashed with a templated spec: a change
 * to how pools are drawn must change it. */
#define LOAD_POOL_VERSION "harness-pool-1"
#define LOAD_MAX_VARS 64
enum load_var_kind { LVAR_ZIPF, LVAR_UNIFORM, LVAR_CSV, LVAR_SEQUENCE, LVAR_UUID };
struct load_var {
	char *name;                      /* [A-Za-z_][A-Za-z0-9_]* */
	enum load_var_kind kind;
	struct { uint64_t n; double s; int present; } zipf;  /* ranks 1..n, P(k) ~ k^-s */
	int *uniform;                    /* [lo, hi]: integers, both inclusive */
	size_t nuniform;
	char *csv;                       /* the file (absolute after the checks) */
	char *column;                    /* a header name, or a 1-based number */
	struct { uint64_t start; int present; } sequence; /* start, start+1, ... */
	struct { int present; } uuid;    /* random (version 4) UUIDs */
	/* csv: the file's bytes (hashed with the spec) and the column's
	 * values, one per row (uniformly drawn). */
	char *data;
	size_t data_len;
	char **values;       /* point into vbuf */
	size_t nvalues;
	char *vbuf;
};

/* What a response must be to count as the expected answer (the spec's
 * workload.requests[].expect; see specs/README.md). A response that is
 * not is counted as `unexpected` (load.h). */
#define LOAD_EXPECT_MAX_BODY 256   /* longest body_contains, bytes */
#define LOAD_CTYPE_MAX 128         /* a content type kept or expected, bytes with its NUL */
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
	double slo_ms;       /* this request's own p(slo.percentile) promise, ms; 0: none */
};

#endif
