/*
 * rtstats: the implementation's own runtime statistics (GC counts, heap,
 * pools, per-endpoint calls), polled from its stats URL.
 *
 * A thread polls the URL at poll_hz with libcurl (keep-alive, timeout
 * 0.8/hz s clamped to [0.1, 5] s unless set), parses the body with jansson
 * and extracts each declared signal by its RFC 6901 pointer; or, with
 * stats.format prometheus, reads the body as Prometheus text (promtext.h)
 * and each signal by its metric selector: one matching sample is a
 * number, several are counters named by their free labels, NaN is
 * not_numeric. Every poll is
 * kept with its monotonic timestamp and its outcome: ok, http_error (any
 * non-2xx), timeout, connect, malformed (not JSON) or error. A signal is a
 * number, an object of counters (every member a number: per-request-name
 * calls), or recorded as missing / not_numeric, so a gate that needs it
 * reports not_evaluable. Nothing a stats endpoint does stops the run.
 *
 * Threads: rtstats_start spawns the poller; every other call is made by
 * the owner (the copy-out functions lock against the poller).
 * Ownership: copies returned by rtstats_since() belong to the caller
 * (rtstats_polls_free); the struct owns its URL and signal copies.
 */
#ifndef HARNESS_RTSTATS_H
#define HARNESS_RTSTATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

enum rts_status { RTS_OK, RTS_HTTP_ERROR, RTS_TIMEOUT, RTS_CONNECT, RTS_MALFORMED, RTS_ERROR };
enum rts_kind { RTV_MISSING, RTV_NOT_NUMERIC, RTV_NUMBER, RTV_COUNTERS };
const char *rtstats_status_name(enum rts_status s); /* "ok", "http_error", ... */
const char *rtstats_kind_name(enum rts_kind k);     /* "missing", "not_numeric", "number", "counters" */

struct rtstats_counter {
	char *name;
	double value;
};

struct rtstats_value {
	enum rts_kind kind;
	double num;                         /* RTV_NUMBER */
	struct rtstats_counter *counters;   /* RTV_COUNTERS, in document order */
	size_t ncounters;
};

struct rtstats_poll {
	uint64_t t_ns;                  /* monotonic (now_ns) when the poll was sent */
	double wall;                    /* the same instant, wall clock */
	double latency_ms;
	enum rts_status status;
	long http_status;               /* 0: no response */
	char *error;                    /* detail for a failed poll, else NULL */
	struct rtstats_value *values;   /* [nvalues] = one per signal; all missing unless ok */
	size_t nvalues;
};

struct rtstats;

/* Start polling (first poll at once). timeout_ms <= 0: the default above.
 * NULL after an error() (bad pointer syntax, hz <= 0). */
struct rtstats *rtstats_start(const char *url, double hz, const struct spec_signal *signals,
			      size_t n);
struct rtstats *rtstats_start_timeout(const char *url, double hz,
				      const struct spec_signal *signals, size_t n, int timeout_ms);
/* The same for a stats format (spec.h stats_format); an https:// URL is
 * verified against ca_file (a PEM path; NULL: the system's CAs), or not at
 * all when insecure: the spec's workload.tls, as for health and load. */
struct rtstats *rtstats_start_fmt(const char *url, double hz, const struct spec_signal *signals,
				  size_t n, enum stats_format format, int timeout_ms,
				  const char *ca_file, int insecure);
/* rtstats_start_fmt polling from inside the network namespace netns_fd
 * (netns.h; the caller's, open until rtstats_free), default timeout. */
struct rtstats *rtstats_start_in(int netns_fd, const char *url, double hz,
				 const struct spec_signal *signals, size_t n,
				 enum stats_format format, const char *ca_file, int insecure);

/*
 * A poller whose polls are taken elsewhere and handed in (an
 * implementation on another host: its agent polls there and streams them,
 * rsut.h): no thread, no URL; rtstats_feed appends a poll (taken over:
 * *p is zeroed), its t_ns clamped to be no earlier than the last one's so
 * the polls stay in order. The copy-out functions work as for a started
 * poller.
 */
struct rtstats *rtstats_fed(const struct spec_signal *signals, size_t n);
void rtstats_feed(struct rtstats *r, struct rtstats_poll *p);

/* Deep copies of the polls sent at or after since_ns (0: all), oldest
 * first; returns the count, *out malloc'd (NULL when none). */
size_t rtstats_since(struct rtstats *r, uint64_t since_ns, struct rtstats_poll **out);
void rtstats_polls_free(struct rtstats_poll *p, size_t n);
/* Free what one poll holds (not the struct) and zero it. */
void rtstats_poll_release(struct rtstats_poll *p);
/* Drop the polls sent before t_ns (bounds memory in long runs). */
void rtstats_forget_before(struct rtstats *r, uint64_t t_ns);
size_t rtstats_count(struct rtstats *r);

/* Stop the poller (waits for a poll in flight, at most its timeout). */
void rtstats_stop(struct rtstats *r);
void rtstats_free(struct rtstats *r);   /* stops first */

/*
 * Parse a document and extract the signals into out[n] (exposed for tests
 * and tools). 0, or -1 with *err (malloc'd) when the body is not JSON.
 */
int rtstats_parse(const char *body, size_t len, const struct spec_signal *signals, size_t n,
		  struct rtstats_value *out, char **err);
/* The same for Prometheus text (signals are metric selectors); -1 with
 * *err when the body is not exposition text ("not Prometheus text: line N:
 * ..."). */
int rtstats_parse_prom(const char *body, size_t len, const struct spec_signal *signals,
		       size_t n, struct rtstats_value *out, char **err);
void rtstats_extract(json_t *doc, const struct spec_signal *signals, size_t n,
		     struct rtstats_value *out);
void rtstats_values_release(struct rtstats_value *v, size_t n);

#endif
