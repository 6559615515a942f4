/*
 * util: the small things every module needs.
 *
 * Allocation: x*alloc() abort the process on out-of-memory, so callers never
 * check for NULL (redis' zmalloc discipline).
 *
 * Errors: library code reports with error(), which prints one line
 * "harness: <message>" to stderr and returns -1, so a caller can write
 * `return error("...")`. Only cmd_* functions and main() exit, with one of
 * the exit codes below (docs/DESIGN.md, "Exit codes").
 */
#ifndef HARNESS_UTIL_H
#define HARNESS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum exit_code {
	EXIT_OK = 0,       /* success; compare: no regression */
	EXIT_NEGATIVE = 1, /* the measured answer is negative */
	EXIT_USAGE = 2,    /* usage or input error (bad spec, unknown run) */
	EXIT_ENV = 3,      /* environment error (cgroups, port, build) */
};

/* A string -> string pair (env, headers). */
struct kv {
	char *key;
	char *value;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Free a NULL-terminated vector of malloc'd strings and the vector (NULL: nothing). */
void strv_free(char **v);
/* Grow *p (holding *alloc elements of size sz) to hold at least want. */
void xgrow(void **p, size_t *alloc, size_t want, size_t sz);
#define XGROW(p, alloc, want) xgrow((void **)&(p), &(alloc), (want), sizeof(*(p)))

/* Print "harness: <fmt>" to stderr; return -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "harness: warning: <fmt>" to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);
/* Wall clock, seconds since the epoch, with sub-second precision. */
double now_wall(void);
/* Sleep until the monotonic time t (ns); returns early on a signal. */
void sleep_until_ns(uint64_t t);

/*
 * sbuf: a growable NUL-terminated byte buffer (git's strbuf, reduced).
 * buf is never NULL after sbuf_init(); sbuf_release() frees and re-inits.
 */
struct sbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
extern char sbuf_empty_[1];
#define SBUF_INIT { sbuf_empty_, 0, 0 }
void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const void *data, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap);
/* Hand the buffer to the caller (who frees it); sb is re-initialised. */
char *sbuf_detach(struct sbuf *sb, size_t *len);

/*
 * Read a whole file into sb (appending). Fails with an error() naming the
 * path when it cannot be read or is larger than max bytes (0: no limit).
 */
int read_file(const char *path, struct sbuf *sb, size_t max);
/*
 * Append what fd holds to sb, to its end: 0; 1 once the bytes read pass
 * max (0: no limit; the chunk that passed it is in sb); -1 on a read error
 * (errno says which). Retries EINTR; the caller words the error.
 */
int read_fd(int fd, struct sbuf *sb, size_t max);
/* Write data to path atomically (temp file + rename). */
int write_file(const char *path, const void *data, size_t n);
/* mkdir -p; 0 on success or when it exists. */
int mkdir_p(const char *path, unsigned mode);

/* Parse a whole string as a number; 0 on success, -1 when not a number. */
int parse_double(const char *s, double *out);
int parse_long(const char *s, long *out);

/* Lower-case hex SHA-256 of data: out must hold 65 bytes. */
void sha256_hex(const void *data, size_t n, char out[65]);

/* Incremental SHA-256. */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t nbuf;
};
void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_final_hex(struct sha256 *c, char out[65]);

/* JSON string escaping into sb (with the surrounding quotes). */
void sbuf_add_json_str(struct sbuf *sb, const char *s);
/* HTML / XML text or attribute escaping into sb (& < > " ' as entities;
 * control characters XML cannot carry, other than \n and \t, dropped).
 * s NULL: nothing. */
void sbuf_add_xml(struct sbuf *sb, const char *s);
/* unix_s (seconds since the epoch) as UTC in strftime's fmt into sb, or
 * "-" when it is not a finite time or does not format (64 bytes at most). */
void sbuf_add_utc(struct sbuf *sb, double unix_s, const char *fmt);

/* True when stderr is a terminal (progress lines are drawn only then). */
int stderr_is_tty(void);

/*
 * For a process forked to outlive a ^C, a hangup or a closed pipe of its
 * parent's group (sut_spawn's relay and watchdog, scratch's janitor):
 * ignore SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE.
 */
void ignore_stop_signals(void);
/*
 * The life of such a forked watcher (sut_spawn's watchdog, scratch's
 * janitor) until its owner writes or ends: stop signals ignored, a
 * session of its own, stdout and stderr to /dev/null, rd as stdin and
 * every other descriptor closed, then one blocking read. Returns the byte
 * the owner wrote, or -1 at end of file or error (the owner is gone,
 * whatever way). _exit(1) when rd cannot become stdin. Only system calls
 * after the fork: safe in the child of a threaded process.
 */
int watch_owner(int rd);

/* The version string baked in at build time from `git describe`. */
extern const char harness_version[];

#endif
