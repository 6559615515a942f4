#!/usr/bin/env python3
"""redisinfo.py OUT STOPFILE DIR: an independent reading of Redis's own
statistics (its INFO command), for tests/e2e/ledger.sh.

It finds the redis-server working in DIR (its /proc cwd; its port from its
process title, "redis-server 127.0.0.1:PORT"), connects once and sends
INFO all every 10 ms (RESP over its own connection, as redis-cli does,
without a process a reading), writing one line to OUT: "T0 T1
KEYSPACE_HITS KEYSPACE_MISSES INFO_CALLS", T0 and T1 the unix times before
the request and after the answer, INFO_CALLS Redis's count of INFO
commands (commandstats cmdstat_info). Each of its own readings adds one to
that count: a step of two or more between consecutive lines is another
client's INFO in between (the harness's stats command, redis-cli INFO). It
exits when STOPFILE exists, or after 900 s whatever happens.
"""
import os
import re
import socket

import pollfile

REQ = b"*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n"


def find(d):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/cwd" % pid) != d:
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                title = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        m = re.match(r"(\S*/)?redis-server \S*:(\d+)", title)
        if m:
            return int(m.group(2))
    return None


def info(s, buf):
    """One INFO all: its text, or None when the connection is gone."""
    s.sendall(REQ)
    while b"\r\n" not in buf[0]:
        d = s.recv(65536)
        if not d:
            return None
        buf[0] += d
    head, rest = buf[0].split(b"\r\n", 1)
    if not head.startswith(b"$"):
        return None
    n = int(head[1:])
    while len(rest) < n + 2:
        d = s.recv(65536)
        if not d:
            return None
        rest += d
    buf[0] = rest[n + 2:]
    return rest[:n].decode("utf-8", "replace")


def connect(d):
    port = find(d)
    if port is None:
        return None
    try:
        return (socket.create_connection(("127.0.0.1", port), timeout=5), [b""])
    except OSError:
        return None


def read(conn):
    try:
        return info(*conn)
    except (OSError, ValueError):
        return None


def parse(text):
    h = text and re.search(r"^keyspace_hits:(\d+)", text, re.M)
    m = text and re.search(r"^keyspace_misses:(\d+)", text, re.M)
    if not (h and m):
        return None    # gone (stopped, or another instance next)
    # no cmdstat_info line before Redis's first INFO has completed
    c = re.search(r"^cmdstat_info:calls=(\d+)", text, re.M)
    return "%s %s %s" % (h.group(1), m.group(1), c.group(1) if c else "0")


def close(conn):
    conn[0].close()


def main():
    pollfile.run(connect, read, parse, close, 0.1, 0)


if __name__ == "__main__":
    main()
