#!/usr/bin/env python3
"""Which e2e scripts `make asan` must run: per-script line coverage.

Usage: tests/coverage_map.py [--results FILE] [--budget SECONDS] [--skip-run]
  (make coverage-map)

Builds harness with --coverage into build/cov, runs every unit program, the
cases and every e2e script (three at a time: coverage, not timing) each
with its own GCOV_PREFIX under build/cov/map/, reads the lines of
harness/ and gates/ each one reached (gcov -j), and picks the sanitized
set as tests/run.sh states it: the unit programs and the cases, then
rerun.sh and run_crash.sh, then greedily the script that reaches the most
lines no picked test reaches per second (seconds from FILE, a make test's
results file, "passed failed seconds name ..."; 30 s for a script it lacks)
until BUDGET seconds of scripts (default 370). It prints the set, and for
every other script a "# release-only:" WHY: the picked scripts that reach
most of its code and the lines only it reaches. Scripts marked check-all
are left out. Minutes: it runs the whole suite.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COV = os.path.join(ROOT, "build", "cov")
OUT = os.path.join(COV, "map")
FIRST = ["rerun.sh", "run_crash.sh"]


def marks(path):
    with open(path) as f:
        head = [next(f, "") for _ in range(12)]
    return {m for m in ("check-all", "release-only", "timing-free") if any(h.startswith("# %s: " % m) for h in head)}


def build(units):
    targets = [os.path.join("build/cov/bin/harness"), "build/cov/helpers/compare_fixture"] + units
    targets += ["build/cov/helpers/" + n[:-2] for n in os.listdir(os.path.join(ROOT, "tests/helpers")) if n.endswith(".c")]
    subprocess.run(["make", "-s", "BUILD=build/cov", "OPT=-O0", "EXTRA_CFLAGS=--coverage"] + targets, cwd=ROOT, check=True)


def run_one(name, argv):
    env = dict(os.environ, HARNESS=os.path.join(COV, "bin/harness"), HELPERS=os.path.join(COV, "helpers"),
               BUILD=COV, GCOV_PREFIX=os.path.join(OUT, name))
    with open(os.path.join(OUT, name + ".out"), "wb") as log:
        subprocess.run(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    print("# ran", name, file=sys.stderr, flush=True)


def lines_of(name):
    """(file, line) pairs of harness/ and gates/ that NAME reached."""
    covered = set()
    for dirpath, _, names in os.walk(os.path.join(OUT, name)):
        gcdas = [n for n in names if n.endswith(".gcda")]
        src = "/" + os.path.relpath(dirpath, os.path.join(OUT, name))  # the object directory
        if not gcdas or not src.startswith(COV):
            continue
        for g in gcdas:
            gcno = os.path.join(src, g[:-5] + ".gcno")
            if os.path.exists(gcno):
                subprocess.run(["cp", gcno, dirpath], check=True)
        r = subprocess.run(["gcov", "-j", "-t"] + gcdas, cwd=dirpath, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for doc in r.stdout.decode().splitlines():
            if doc.startswith("{"):
                for f in json.loads(doc)["files"]:
                    if f["file"].startswith(("harness/", "gates/")):
                        covered |= {(f["file"], l["line_number"]) for l in f["lines"] if l["count"] > 0}
    return covered


def seconds(results):
    t = {}
    if results:
        for l in open(results):
            w = l.split()
            if len(w) >= 4:
                t[w[3]] = int(w[2])
    return t


def main():
    args = sys.argv[1:]
    results = args[args.index("--results") + 1] if "--results" in args else None
    budget = int(args[args.index("--budget") + 1]) if "--budget" in args else 370
    units = ["build/cov/tests/" + n[:-2] for n in sorted(os.listdir(os.path.join(ROOT, "tests/unit"))) if n.startswith("test_") and n.endswith(".c")]
    e2e = os.path.join(ROOT, "tests/e2e")
    scripts = sorted(n for n in os.listdir(e2e) if n.endswith(".sh") and "check-all" not in marks(os.path.join(e2e, n)))
    jobs = [("unit-" + os.path.basename(u), [u]) for u in units] + [("cases", ["python3", "tests/cases/run.py"])]
    jobs += [(s, ["bash", "tests/e2e/" + s]) for s in scripts]
    if "--skip-run" not in args:
        build(units)
        subprocess.run(["rm", "-rf", OUT], check=True)
        os.makedirs(OUT)
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda j: run_one(*j), jobs))
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        cov = dict(zip([j[0] for j in jobs], pool.map(lines_of, [j[0] for j in jobs])))
    base = set().union(*(c for n, c in cov.items() if not n.endswith(".sh")))
    t = seconds(results)
    picked, reached, spent = [], set(base), 0
    for s in FIRST + ["deps.sh"]:
        if s in cov:
            picked.append(s); reached |= cov[s]; spent += t.get(s, 30)
    while True:
        gain = [(len(cov[s] - reached) / max(t.get(s, 30), 1), s) for s in scripts if s not in picked and cov[s] - reached]
        if not gain:
            break
        s = max(gain)[1]
        if spent + t.get(s, 30) > budget:
            break
        picked.append(s); reached |= cov[s]; spent += t.get(s, 30)
    print("unit programs and cases: %d lines; every test: %d lines" % (len(base), len(set().union(*cov.values()))))
    print("make asan runs (%d s of scripts): %s" % (spent, " ".join(sorted(picked))))
    for s in scripts:
        if s in picked:
            continue
        mine = cov[s] - base
        who = sorted(picked, key=lambda p: -len(mine & cov[p]))[:3]
        lost, files = cov[s] - reached, {}
        for f, _ in lost:
            files[f.split("/")[-1]] = files.get(f.split("/")[-1], 0) + 1
        top = ", ".join("%s %d" % kv for kv in sorted(files.items(), key=lambda kv: -kv[1])[:3])
        print("%s: # release-only: under make asan %s reach its code%s" % (
            s, ", ".join(who[:-1]) + " and " + who[-1] if len(who) > 1 else "".join(who),
            " but %d line%s (%s)" % (len(lost), "" if len(lost) == 1 else "s", top) if lost else ""))


if __name__ == "__main__":
    main()
