#!/usr/bin/env python3
"""procmem.py OUT STOPFILE NAME=SUBSTRING...: an independent reading of
memory from /proc, for tests/e2e/ledger.sh.

Every 50 ms it writes one line per matching process to OUT: "UNIX_TIME NAME
PID VMRSS_KB RSSANON_KB" (/proc/PID/status), a process matching NAME when
its command line holds SUBSTRING. New processes are looked for every 0.1 s (a Go server is healthy
within tens of ms of its start: the footprint reading is matched within
0.2 s).
It exits when STOPFILE exists, or after 900 s whatever happens (a test
never waits on it).
"""
import os
import sys
import time

LIMIT_S = 900
POLL_S = 0.05
SCAN_S = 0.1


def cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def status(pid):
    rss = anon = None
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("RssAnon:"):
                    anon = int(line.split()[1])
    except (OSError, ValueError):
        return None
    return (rss, anon) if rss is not None and anon is not None else None


def main():
    out, stop = sys.argv[1], sys.argv[2]
    names = [a.split("=", 1) for a in sys.argv[3:]]
    me = str(os.getpid())
    known = {}  # pid -> name
    t_end = time.time() + LIMIT_S
    t_scan = 0.0
    with open(out, "w", buffering=1) as f:
        while time.time() < t_end and not os.path.exists(stop):
            now = time.time()
            if now >= t_scan:
                t_scan = now + SCAN_S
                for pid in os.listdir("/proc"):
                    if not pid.isdigit() or pid in known or pid == me:
                        continue
                    c = cmdline(pid)
                    for name, sub in names:
                        if sub in c and "procmem.py" not in c:
                            known[pid] = name
            for pid, name in list(known.items()):
                s = status(pid)
                if s is None:
                    del known[pid]
                    continue
                f.write("%.3f %s %s %d %d\n" % (now, name, pid, s[0], s[1]))
            time.sleep(POLL_S)


if __name__ == "__main__":
    main()
