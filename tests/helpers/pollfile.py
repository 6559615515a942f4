"""pollfile.py: the polling loop of the test's own readings of a server
(pgstatements.py, redisinfo.py), one copy.

run(connect, read, parse, close, retry_s, fail_s) reads sys.argv as
"OUT STOPFILE DIR" and, until STOPFILE exists or LIMIT_S (900 s) have
passed whatever happens, keeps one connection to the server that
connect(DIR) finds (None: not there yet, again in retry_s), and every
POLL_S (10 ms) writes one line to OUT: "T0 T1 FIELDS", T0 and T1 the unix
times before read(conn) and after its answer, FIELDS what parse(answer)
made of it. A parse that returns None (the server gone, stopped, or not
ready yet) closes the connection; the next one is made after fail_s.
"""
import os
import sys
import time

LIMIT_S = 900
POLL_S = 0.01


def run(connect, read, parse, close, retry_s, fail_s):
    out, stop, d = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
    t_end = time.time() + LIMIT_S
    conn = None
    with open(out, "w", buffering=1) as f:
        while time.time() < t_end and not os.path.exists(stop):
            if conn is None:
                conn = connect(d)
                if conn is None:
                    time.sleep(retry_s)
                    continue
            t0 = time.time()
            answer = read(conn)
            t1 = time.time()
            fields = parse(answer)
            if fields is None:
                close(conn)
                conn = None
                time.sleep(fail_s)
                continue
            f.write("%.4f %.4f %s\n" % (t0, t1, fields))
            time.sleep(POLL_S)
    if conn is not None:
        close(conn)
