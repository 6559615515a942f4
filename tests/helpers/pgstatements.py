#!/usr/bin/env python3
"""pgstatements.py OUT STOPFILE DIR: an independent reading of
PostgreSQL's pg_stat_statements, for tests/e2e/ledger.sh.

It finds the postmaster whose data directory (-D) is under DIR (its port
from its -p) and, every 10 ms, sends a query to one psql it keeps open
against it (psql answers each at once), writing one line to
OUT: "T0 T1 INSERT_CALLS INSERT_MS HARNESS_READS STATEMENTS": T0 and T1
the unix times before the query and after its answer, the calls and total execution time
(ms) of the statements starting "INSERT INTO invoices" (the ledger's
create), the calls of the harness's stats query (examples/ledger/pgstats.sql's
xact_commit line, one a reading): a step between two lines is a reading
of the harness's between them; and every statement's calls but those
reading pg_stat_* (pgstats.sql's demand counter, "statements"). Its own query is not counted by either
(its constants are normalised away). It exits when STOPFILE exists, or
after 900 s whatever happens.
"""
import os
import subprocess

import pollfile

QUERY = ("SELECT coalesce(sum(calls) FILTER (WHERE query LIKE 'INSERT INTO invoices%'), 0),"
         " coalesce(sum(total_exec_time) FILTER (WHERE query LIKE 'INSERT INTO invoices%'), 0),"
         " coalesce(sum(calls) FILTER (WHERE query LIKE '%xact_commit FROM pg_stat_database%'), 0),"
         " coalesce(sum(calls) FILTER (WHERE query NOT LIKE '%pg_stat%'), 0)"
         " FROM pg_stat_statements")


def find(d):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if not argv or not argv[0].endswith("/postgres") or "-D" not in argv or "-p" not in argv:
            continue
        data = argv[argv.index("-D") + 1]
        if os.path.realpath(data).startswith(d + "/"):
            return argv[argv.index("-p") + 1]
    return None


def connect(d):
    port = find(d)
    if port is None:
        return None
    # ON_ERROR_STOP: a query that fails (before the harness's setup made
    # pg_stat_statements) ends psql: EOF, not a wait
    return subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-F", " ",
                             "-h", "127.0.0.1",
                             "-p", port, "-U", "ledger", "-d", "postgres"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)


def read(psql):
    try:
        psql.stdin.write(QUERY + ";\n")
        psql.stdin.flush()
        return psql.stdout.readline().split()
    except OSError:
        return []


def parse(v):
    # not 4 values: gone (stopped), or not ready yet: a new psql
    return " ".join(v) if len(v) == 4 else None


def close(psql):
    psql.kill()
    psql.wait()


def main():
    pollfile.run(connect, read, parse, close, 0.2, 0.2)


if __name__ == "__main__":
    main()
