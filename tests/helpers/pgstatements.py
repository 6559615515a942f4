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
import sys
import time

LIMIT_S = 900
POLL_S = 0.01
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


def main():
    out, stop, d = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
    t_end = time.time() + LIMIT_S
    psql = None
    with open(out, "w", buffering=1) as f:
        while time.time() < t_end and not os.path.exists(stop):
            if psql is None:
                port = find(d)
                if port is None:
                    time.sleep(0.2)
                    continue
                # ON_ERROR_STOP: a query that fails (before the harness's
                # setup made pg_stat_statements) ends psql: EOF, not a wait
                psql = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-F", " ",
                                         "-h", "127.0.0.1",
                                         "-p", port, "-U", "ledger", "-d", "postgres"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
            t0 = time.time()
            try:
                psql.stdin.write(QUERY + ";\n")
                psql.stdin.flush()
                v = psql.stdout.readline().split()
            except OSError:
                v = []
            t1 = time.time()
            if len(v) != 4:     # gone (stopped), or not ready yet: a new psql
                psql.kill()
                psql.wait()
                psql = None
                time.sleep(0.2)
                continue
            f.write("%.4f %.4f %s %s %s %s\n" % (t0, t1, v[0], v[1], v[2], v[3]))
            time.sleep(POLL_S)
    if psql is not None:
        psql.kill()
        psql.wait()


if __name__ == "__main__":
    main()
