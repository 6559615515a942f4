/*
 * usock: the pathname unix sockets bound on this host, as the kernel
 * lists them (/proc/PID/net/unix, one list per network namespace: each
 * namespace is read once, through the first process found in it), for
 * the jail to mask those under a directory it binds (jail.h): a
 * read-only bind does not stop connect(), and bwrap's fresh root still
 * binds the system directories (/usr, /etc, /opt, ...) and the arm's own
 * tree, where a host process may listen.
 *
 * A socket is listed while its socket is bound (a listener, or a bound
 * datagram socket): a socket file nothing holds any more refuses every
 * connect() by itself. Only absolute paths: a socket bound by a relative
 * path is listed relative to its binder's working directory, which the
 * list does not give; abstract sockets are per network namespace, and a
 * jail has a namespace of its own.
 *
 * Ownership: the returned vector and its strings are the caller's
 * (strv_free). One thread; no state kept between calls.
 */
#ifndef HARNESS_USOCK_H
#define HARNESS_USOCK_H

/*
 * The absolute paths of every bound pathname unix socket, each once, as
 * a NULL-terminated vector (empty: none); NULL after one error() line
 * when this process's own list (/proc/self/net/unix) cannot be read
 * (another namespace's that cannot be read, its process gone, is skipped).
 */
char **usock_bound(void);

#endif
