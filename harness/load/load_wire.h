/*
 * load_wire: the load engine's config and results as agent-protocol
 * payloads (docs/AGENT_PROTOCOL.md): what the coordinator sends an agent
 * (a load_config with its requests) and what comes back (one second's or
 * the whole run's load_stats, histograms bucket by bucket, so merging on
 * the coordinator is lossless).
 *
 * Ownership: the encoders only read. load_wire_dec_config fills a struct
 * load_wire_config that owns every string and request it points to;
 * release it with load_wire_config_release. load_wire_dec_stats fills an
 * initialised load_stats (its nreq must match what was sent).
 */
#ifndef HARNESS_LOAD_WIRE_H
#define HARNESS_LOAD_WIRE_H

#include "base/frame.h"
#include "load/load.h"

struct load_wire_config {
	struct load_config cfg;     /* requests point into reqs */
	struct load_request *reqs;
	size_t nreqs;
	char *url, *cpus;
	char *ca_path;              /* the CA sent, written to a file of this
				       host's (unlinked by the release), or NULL */
};

/* The largest CA file sent to the agents. */
#define LOAD_WIRE_CA_MAX (4u << 20)

/* Everything of cfg the engine needs on another host, except the
 * callbacks, stop flag and send-times path; the CA file goes as its
 * bytes (the agent writes them to a file of its own). Template variables
 * are not sent (the caller refuses them). 0, or -1 after an error() when
 * the CA file cannot be read. */
int load_wire_enc_config(struct sbuf *sb, const struct load_config *cfg);
/* 0, or -1 when the payload is malformed (nothing to release then). */
int load_wire_dec_config(struct dec *d, struct load_wire_config *out);
void load_wire_config_release(struct load_wire_config *w);

void load_wire_enc_stats(struct sbuf *sb, const struct load_stats *s);
/* s initialised with the same nreq; reset first. 0, or -1 when malformed. */
int load_wire_dec_stats(struct dec *d, struct load_stats *s);

#endif
