/*
 * load_request: what a workload is made of, as the load engine takes it:
 * the arrival process, the transport, and one kind of request of the mix.
 * A leaf header, so the spec (which reads these from YAML) can include it
 * without the engine's API; the engine's API is load.h.
 */
#ifndef HARNESS_LOAD_REQUEST_H
#define HARNESS_LOAD_REQUEST_H

#include <stddef.h>

#include "util.h"

enum arrival { ARRIVAL_CONSTANT, ARRIVAL_POISSON };
enum transport { TRANSPORT_AUTO, TRANSPORT_NATIVE, TRANSPORT_CURL };

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
};

#endif
