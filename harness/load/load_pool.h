/*
 * load_pool: the pre-generated request stream of a templated workload
 * (workload.vars). Entry k of the pool is the k-th request of the
 * schedule (modulo the pool's size): its kind, drawn by weight, and the
 * value of each variable its kind refers to, drawn from the variable's
 * distribution. Everything comes from the seed, so the same spec gives
 * the same stream, whatever the rate, the threads or the transport; a
 * pool of n entries is the first n of the stream of a larger one.
 *
 * Streams: the kinds come from rng stream LOAD_POOL_STREAM_MIX, variable
 * v (in declared order) from LOAD_POOL_STREAM_VAR + v, one draw per entry
 * whether or not the entry's kind uses it, so one variable's values do
 * not depend on the mix or on the other variables.
 *
 * The engine (load.c) expands an entry into request bytes as it sends it
 * (load_tmpl.c): a copy of a few hundred bytes, no drawing and no
 * formatting on the hot path.
 *
 * Ownership: a pool owns its arrays; load_pool_release() frees them. A
 * built pool is read-only and may be shared by any number of threads and
 * loads (the runner builds one per run).
 */
#ifndef HARNESS_LOAD_POOL_H
#define HARNESS_LOAD_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "load/load_request.h"

#define LOAD_POOL_STREAM_MIX 0x706f6f6c6d6978ull  /* "poolmix" */
#define LOAD_POOL_STREAM_VAR 0x706f6f6c766172ull  /* "poolvar" + v */
#define LOAD_VAR_VALUE_MAX 4096                   /* longest value, bytes */

struct load_pool {
	uint64_t n;                  /* entries */
	size_t nreq, nvars;
	uint32_t *req;               /* [n]: the entry's request kind */
	uint64_t *off;               /* [n]: where its values start in vals */
	/* Per entry, for each variable its kind uses (declared order): a
	 * 2-byte length (host order) and the value's bytes. */
	char *vals;
	size_t nvals, avals;
	unsigned char *uses;         /* [nreq * nvars]: kind r refers to var v */
	char digest[65];             /* SHA-256 over every entry's kind and values */
};

/*
 * Build the first n entries of the stream of (reqs, vars, seed). 0, or -1
 * after an error() (a value longer than LOAD_VAR_VALUE_MAX, a csv
 * variable without values). reqs and vars are read during the call only.
 */
int load_pool_build(struct load_pool *p, const struct load_request *reqs, size_t nreq,
		    const struct load_var *vars, size_t nvars, uint64_t seed, uint64_t n);
void load_pool_release(struct load_pool *p);
/* Memory the pool holds, bytes. */
uint64_t load_pool_bytes(const struct load_pool *p);
/* Entry k's values: val[v], len[v] for each variable its kind uses
 * (others are left as they are). */
void load_pool_values(const struct load_pool *p, uint64_t k, const char **val, size_t *len);

/*
 * Request r as the pool's entry k sends it (for the pre-flight, which
 * sends each kind a few times as the run would): out is a copy of r
 * whose path, header values, body and expect.json values have every
 * {NAME} of a variable replaced by entry k's value; out owns its strings (release with
 * load_request_expanded_release). Entry k should be of kind r (its values
 * are those of the variables its kind uses; another's are left as
 * written).
 */
void load_pool_expand(const struct load_pool *p, uint64_t k, const struct load_request *r,
		      const struct load_var *vars, struct load_request *out);
void load_request_expanded_release(struct load_request *out);
/* Expectation e of entry k's kind with every {NAME} of a variable in its
 * json values replaced by entry k's value (a templated expect: `/id`
 * must be the id the request asked for); out owns its json array
 * (release with load_expect_expanded_release), the rest is e's. */
void load_pool_expand_expect(const struct load_pool *p, uint64_t k, const struct load_expect *e,
			     const struct load_var *vars, struct load_expect *out);
void load_expect_expanded_release(struct load_expect *out);
/* The j-th entry (0-based) of kind r in p, or -1 when p has fewer. */
int64_t load_pool_nth(const struct load_pool *p, uint32_t r, size_t j);

/*
 * Template references: the next "{NAME}" (NAME = [A-Za-z_][A-Za-z0-9_]*)
 * in s[0..len) at or after *pos: 1 with *at (offset of '{'), the name
 * (name, namelen pointing into s) and *pos moved past the '}'; 0 when
 * there is none. A NAME that is no declared variable is not a reference
 * (load_var_find): the text stays as written (in a path, the spec's
 * checks refuse it).
 */
int load_tmpl_next(const char *s, size_t len, size_t *pos, size_t *at, const char **name,
		   size_t *namelen);
/* The index of variable name[0..len), or -1. */
int load_var_find(const struct load_var *vars, size_t nvars, const char *name, size_t len);
/* 1 when request r refers to a variable (path, header values or body). */
int load_request_uses_vars(const struct load_request *r, const struct load_var *vars,
			   size_t nvars);

#endif
