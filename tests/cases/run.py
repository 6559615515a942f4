#!/usr/bin/env python3
"""Runs declarative CLI and spec cases (tests/cases/README.md has the format).

Usage: tests/cases/run.py [CASE-OR-DIRECTORY...]   (default: tests/cases)

Each case is one *.case file: files to write, one or more commands, and for
each command the exit code and the lines expected on stdout and stderr. It
prints "ok - cases: PATH: WHAT" or "not ok - cases: PATH: ..." per case
(tests/run.sh counts them) with the difference as "# " lines, and exits 1
when a case failed. $HARNESS is the binary under test, $HELPERS the helper
programs' directory (compare_fixture).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASES = os.path.join(ROOT, "tests", "cases")
SECTIONS = ("file", "command", "stdin", "exit", "stdout", "stderr", "fixture")
STEP_SECONDS = 60  # every command is bounded: a hang is a failure, not a stall
SHOWN_LINES = 40  # of a failing case's difference
# Cases assert no timing: four at a time (each mostly waits for its
# processes to start), printed in file order.
WORKERS = 4


class CaseError(Exception):
    """A case file that does not parse: a failure of that case."""


def enc(s):
    return s.encode("utf-8", "surrogateescape")


def dec(b):
    return b.decode("utf-8", "surrogateescape")


class Step:
    def __init__(self, command):
        self.command = command
        self.stdin = None
        self.exit = 0
        self.expect = {}  # "stdout"/"stderr" -> list of pattern lines


class Case:
    def __init__(self, path):
        self.path = path
        self.what = ""
        self.files = []  # (name, bytes)
        self.fixtures = []
        self.steps = []


def header(line):
    """'--- NAME ARGS' for a known NAME -> (NAME, ARGS); else None (content)."""
    m = re.match(r"^--- ([a-z]+)(?: (.*))?$", line)
    if m and m.group(1) in SECTIONS:
        return m.group(1), (m.group(2) or "").strip()
    return None


def parse(path):
    case = Case(path)
    with open(path, "rb") as f:
        lines = dec(f.read()).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    if lines and lines[0].startswith("# "):
        case.what = lines[0][2:].strip()  # the first line: what the case checks
    while i < len(lines) and not header(lines[i]):  # then notes, blank lines
        i += 1
    if not case.what:
        raise CaseError("the first line is not '# what the case checks'")
    while i < len(lines):
        name, arg = header(lines[i])
        body = []
        i += 1
        while i < len(lines) and not header(lines[i]):
            body.append(lines[i])
            i += 1
        add_section(case, name, arg, body, i)
    if not case.steps:
        raise CaseError("no '--- command' section")
    return case


def add_section(case, name, arg, body, lineno):
    step = case.steps[-1] if case.steps else None
    if name == "file":
        fm = re.match(r"^(\S+)(?: from (\S+))?$", arg)
        if not fm:
            raise CaseError("line %d: '--- file NAME [from PATH]'" % lineno)
        if fm.group(2):
            with open(os.path.join(CASES, fm.group(2)), "rb") as f:
                case.files.append((fm.group(1), f.read()))
        else:
            case.files.append((fm.group(1), enc("".join(l + "\n" for l in body))))
    elif name == "fixture":
        if arg != "compare":
            raise CaseError("line %d: the one fixture is 'compare'" % lineno)
        case.fixtures.append(arg)
    elif name == "command":
        if len(body) != 1:
            raise CaseError("line %d: a command is one line" % lineno)
        case.steps.append(Step(body[0]))
    elif step is None:
        raise CaseError("line %d: '--- %s' before any '--- command'" % (lineno, name))
    elif name == "stdin":
        step.stdin = enc("".join(l + "\n" for l in body))
    elif name == "exit":
        if not arg.isdigit():
            raise CaseError("line %d: '--- exit CODE'" % lineno)
        step.exit = int(arg)
    else:
        step.expect[name] = body


def line_matches(pattern, line):
    if pattern.startswith("~ "):
        return re.fullmatch(pattern[2:], line) is not None
    return pattern == line


def lines_match(patterns, lines):
    """Every line matched in order; '...' stands for any lines (none too)."""
    memo = {}

    def at(p, l):
        key = (p, l)
        if key not in memo:
            if p == len(patterns):
                memo[key] = l == len(lines)
            elif patterns[p] == "...":
                memo[key] = at(p + 1, l) or (l < len(lines) and at(p, l + 1))
            else:
                memo[key] = l < len(lines) and line_matches(patterns[p], lines[l]) and at(p + 1, l + 1)
        return memo[key]

    return at(0, 0)


def check_stream(name, patterns, data):
    """None when data matches the patterns, else what differs."""
    text = dec(data)
    if text and not text.endswith("\n"):
        return "%s does not end with a newline" % name
    lines = text.split("\n")[:-1] if text else []
    if lines_match(patterns, lines):
        return None
    return "%s differs:\n%s\n-- want:\n%s" % (name, "\n".join(lines) or "(empty)",
                                             "\n".join(patterns) or "(empty)")


def setup(case, d, env):
    for name, data in case.files:
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    for fx in case.fixtures:
        subprocess.run([os.path.join(env["HELPERS"], "compare_fixture"), os.path.join(d, "runs")],
                       check=True, stdout=subprocess.DEVNULL, timeout=STEP_SECONDS)


def run_step(step, d, env):
    """None when the step's command did what its case says, else what not."""
    script = 'harness() { "$HARNESS" "$@"; }\n' + step.command + "\n"
    try:
        r = subprocess.run(["bash", "-c", script], cwd=d, env=env, input=step.stdin or b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=STEP_SECONDS)
    except subprocess.TimeoutExpired:
        return "still running after %d s" % STEP_SECONDS
    diffs = []
    if r.returncode != step.exit:
        diffs.append("exit %d, want %d" % (r.returncode, step.exit))
    for name in ("stdout", "stderr"):
        if name in step.expect:
            d_ = check_stream(name, step.expect[name], r.stdout if name == "stdout" else r.stderr)
            if d_:
                diffs.append(d_)
    if diffs and "stderr" not in step.expect and r.stderr:
        diffs.append("stderr:\n" + dec(r.stderr[:600]))
    return "\n".join(diffs) or None


def run_case(path, tmp):
    rel = os.path.relpath(path, CASES)
    try:
        case = parse(path)
    except (CaseError, OSError) as e:
        return False, rel, str(e)
    d = tempfile.mkdtemp(prefix="case.", dir=tmp)
    # a tuned host whatever this one is: check's host-tuning warnings
    # (harness/hosttune.h) are this host's, not the case's
    env = dict(os.environ, CASE=d, ROOT=ROOT, RUNS=os.path.join(d, "runs"),
               HARNESS_TEST_HOST_FACTS="governor=performance,boost=off,smt=off")
    try:
        setup(case, d, env)
        for n, step in enumerate(case.steps, 1):
            why = run_step(step, d, env)
            if why:
                return False, rel, "%s: command %d (%s): %s" % (case.what, n, step.command, why)
        return True, rel, case.what
    except (OSError, subprocess.SubprocessError) as e:
        return False, rel, "%s: set-up: %s" % (case.what, e)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def collect(args):
    paths = []
    for a in args or [CASES]:
        if os.path.isdir(a):
            for dirpath, _, names in os.walk(a):
                paths += [os.path.join(dirpath, n) for n in names if n.endswith(".case")]
        else:
            paths.append(a)
    return sorted(os.path.abspath(p) for p in paths)


def main():
    for var in ("HARNESS", "HELPERS"):
        if not os.environ.get(var):
            os.environ[var] = os.path.join(ROOT, "bin/harness" if var == "HARNESS" else "build/release/helpers")
    tmp = tempfile.mkdtemp(prefix="harness-cases.")
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(lambda p: run_case(p, tmp), collect(sys.argv[1:])))
        for good, rel, what in results:
            if good:
                print("ok - cases: %s: %s" % (rel, what))
            else:
                failed += 1
                first, _, rest = what.partition("\n")
                print("not ok - cases: %s: %s" % (rel, first))
                rest = rest.split("\n") if rest else []
                for l in rest[:SHOWN_LINES]:
                    print("#   " + l)
                if len(rest) > SHOWN_LINES:
                    print("#   (%d lines more)" % (len(rest) - SHOWN_LINES))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
