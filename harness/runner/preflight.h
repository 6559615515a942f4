/*
 * preflight: before the first window of a run, every request of the
 * workload is sent to every implementation, one at a time, in the spec's
 * order, `workload.preflight.sends` times (one case per request per
 * send). Each response must be what its request expects (the same
 * load_expect_check() the engine applies, harness/load/load.h). With
 * `equivalence: strict` the implementations must also agree with each
 * other on every case: status, media type (parameters and case ignored)
 * and body: JSON compared as JSON (object keys in any order, members at
 * the `ignore` pointers removed first), any other body byte for byte. Each
 * implementation is compared with the reference: the first target that
 * is not `candidate` (a rerun's commit under test), else the first.
 *
 * Against the base (`workload.preflight.base: strict`, the default): a
 * target with a base (a rerun's commit under test and its @base control)
 * must answer every case as its base does, compared the same way
 * (preflight_diff.h), whatever `equivalence` says. The base is asked each
 * such case twice: what its own two answers differ on is left out (a
 * timestamp, an id) and named in `noise`. A base whose answer missed its
 * expect is no reference: that case is not compared with it.
 *
 * A case passes when every implementation's response passed. Failing
 * cases are described one line each ("request get (GET /nope) send 1: a:
 * status 404, expected 2xx or 3xx"; "request echo send 1: a and b differ
 * at /name: \"x\" vs \"y\""); the implementation at fault is marked
 * (blamed[i]): the one whose response missed its expect, or the one that
 * differs from the reference.
 *
 * A templated workload's send i of a request is the i-th entry of that
 * request in the run's pool (load_pool.h), expanded as the run expands
 * it; when the pool holds fewer entries of it than sends, they are sent
 * again in turn (the run repeats its pool too); a request in no entry of
 * the pool is not sent and counted in `unsent`.
 *
 * Synchronous (libcurl easy, one request at a time); watches *stop.
 * Threads: the caller's only.
 */
#ifndef HARNESS_PREFLIGHT_H
#define HARNESS_PREFLIGHT_H

#include <signal.h>
#include <stddef.h>

#include "spec/spec.h"
#include "base/util.h"

struct preflight_target {
	const char *name;       /* the arm's name */
	const char *url;        /* its base URL, e.g. "http://127.0.0.1:PORT" */
	int candidate;          /* never the reference when another exists */
	int netns_fd;           /* > 0: its network namespace (netns.h), else ours */
	const struct spec_impl *impl; /* its implementations[].paths, or NULL */
	int base;               /* the index of the target whose answers this
				   one's must equal (a rerun's @base), or -1 */
};

struct preflight_result {
	unsigned cases;         /* requests x sends */
	unsigned passed;
	struct sbuf failures;   /* one line per failing case ("\n"-terminated) */
	int *blamed;            /* [ntargets]: 1 when at fault in a case */
	char **first;           /* [ntargets]: the first failing line blaming
				   it (without the newline), or NULL */
	size_t ntargets;
	unsigned based;         /* answers compared with their base's */
	struct sbuf noise;      /* "BASE POINTER\n" (or "BASE the body\n"...):
				   what a base's own two answers differed on,
				   left out of the comparison, each once */
	int interrupted;        /* *stop was set: cases and passed are partial */
	/* Requests of a templated workload the run never sends (their kind
	 * is in no entry of its pool): not sent, no case. */
	unsigned unsent;
};

void preflight_result_init(struct preflight_result *r);
void preflight_result_release(struct preflight_result *r);

/* Run the pre-flight of spec's workload against targets[0..n) into out
 * (initialised by the caller). A transport error is a failing case ("a:
 * no response: ..."), not a failure of the call; -1 after one error()
 * only when libcurl cannot be set up or the run's pool cannot be built. */
int preflight_run(const struct spec *spec, const struct preflight_target *targets, size_t n,
		  volatile sig_atomic_t *stop, struct preflight_result *out);

/* The one-line summary, e.g. "19 of 19 cases passed (2 implementations,
 * strict; ignoring /id)", into sb. */
void preflight_summary(const struct spec *spec, size_t ntargets,
		       const struct preflight_result *r, struct sbuf *sb);

#endif
