/*
 * frame: the agent protocol's framing (docs/AGENT_PROTOCOL.md) and the
 * little-endian field encoding its payloads use.
 *
 * A frame is a 4-byte big-endian length N (1..FRAME_MAX), then N bytes:
 * one type byte and the payload. Fields inside a payload are unsigned
 * LEB128 varints, IEEE doubles as 8 little-endian bytes, and byte strings
 * as a varint length then the bytes.
 *
 * Reading and writing block on a file descriptor (pipes to ssh, or
 * standard input and output in the agent); frame_read waits at most a
 * timeout. Not thread-safe per descriptor: one reader and one writer.
 */
#ifndef HARNESS_FRAME_H
#define HARNESS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define FRAME_MAX (64u << 20)

/* Frame types: coordinator -> agent in upper case, agent -> coordinator
 * in lower case (docs/AGENT_PROTOCOL.md lists their payloads). */
enum frame_type {
	FRAME_HELLO = 'h',      /* agent: protocol, version, host name */
	FRAME_TIME = 'T',       /* t1 */
	FRAME_TIME_REPLY = 't', /* t1, t2, t3 */
	FRAME_LOAD = 'L',       /* a load: config, share, start */
	FRAME_STOP = 'X',       /* stop the load at the next tick */
	FRAME_READY = 'r',      /* the load is set up and waits for its start */
	FRAME_SECOND = 's',     /* one whole second's stats */
	FRAME_DONE = 'd',       /* the load's result */
	FRAME_ERROR = 'e',      /* a message; the agent exits after it */
	/* The --sut role (an implementation run on the agent's host). */
	FRAME_SUT_START = 'S',  /* argv, env, cwd, port, health, accounting */
	FRAME_SUT_UP = 'u',     /* started and healthy (or why not), host facts */
	FRAME_ACCT_BEGIN = 'B', /* open an accounting window */
	FRAME_ACCT_OPEN = 'o',  /* ... opened (or why not) */
	FRAME_ACCT_END = 'E',   /* close it */
	FRAME_ACCT = 'a',       /* ... its figures (its samples streamed before) */
	FRAME_ACCT_SAMPLE = 'm',/* one accounting sample, as taken (unasked) */
	FRAME_STATS_POLL = 'p', /* one runtime-stats poll, as taken (unasked) */
	FRAME_SUT_STOP = 'Q',   /* stop it (tree and cgroup) */
	FRAME_SUT_STOPPED = 'q',/* ... stopped */
	FRAME_SUT_EXITED = 'x', /* it exited on its own (unasked) */
	FRAME_BUILD = 'K',      /* run a command to completion (build, version) */
	FRAME_BUILT = 'k',      /* ... its exit code and the end of its log */
	FRAME_FETCH = 'F',      /* fetch a commit there (a rerun's), keep it */
	FRAME_FETCHED = 'f',    /* ... its commit, remote URL and path there */
	FRAME_GIVE = 'G',       /* the fetched checkout to a sandbox uid, or root */
	FRAME_GIVEN = 'g',      /* ... done (or why not) */
};

/* Write one frame (type + payload). 0, or -1 (errno set; no message). */
int frame_write(int fd, int type, const void *payload, size_t len);
/*
 * Read one frame into *type and payload (reset first). Returns 0, 1 at
 * end of file before any byte, -1 on an error or a malformed frame
 * (*why says which, static), -2 when timeout_ms passed first (timeout_ms
 * < 0: wait for ever). A timeout after part of a frame is an error.
 */
int frame_read(int fd, int *type, struct sbuf *payload, int timeout_ms, const char **why);

/* Encoding into an sbuf. */
void enc_u64(struct sbuf *sb, uint64_t v);
void enc_i64(struct sbuf *sb, int64_t v);
void enc_f64(struct sbuf *sb, double v);
void enc_bytes(struct sbuf *sb, const void *p, size_t n);
void enc_str(struct sbuf *sb, const char *s);   /* NULL encodes as absent */

/* Decoding: a cursor whose `bad` sticks once set; every getter returns
 * 0 (or NULL) after that, so a caller checks `bad` once at the end. */
struct dec {
	const unsigned char *p, *end;
	int bad;
};
void dec_init(struct dec *d, const void *p, size_t n);
uint64_t dec_u64(struct dec *d);
int64_t dec_i64(struct dec *d);
double dec_f64(struct dec *d);
/* A byte string: points into the buffer (not NUL-terminated), *n its length. */
const void *dec_bytes(struct dec *d, size_t *n);
/* A string: a new NUL-terminated copy (caller frees), NULL when absent. */
char *dec_str(struct dec *d);

#endif
