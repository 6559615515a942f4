#!/usr/bin/env bash
# timing-free: the include and call graphs of the object files
# The structure drawn from the code's own #include lines and calls has no
# cycles, and no .c file declares a function another file defines.
#
# Two graphs, both over harness/<layer>/ and gates/:
#   - modules, from #include lines: a module is the file name up to its
#     first '_' (account_cgroup2.c and account_backend.h are module
#     `account`; every cmd_*.c is `cmd`); gates/*.c and gate.h are module
#     `gate`. An edge A -> B when a file of A includes a header of B.
#   - files, from calls: an edge from file A to file B when A's object file
#     uses a symbol B's object file defines (nm: U in A, T/D/B/R in B), so a
#     module's entry file sits on top and its shared helpers in a leaf
#     beneath, never both ways.
# A cycle in either graph fails the test, except the ones listed in KNOWN
# below (each must say why it is there and who removes it). So does a
# break of the layers (LAYERS below: harness/<layer>/ folders in order,
# each with its public headers): an include or a call from a layer to one
# above it, an include of another layer's internal header, a harness
# header included without its folder, a source outside the folders; a
# copy of the tree with an upward include shows the check failing. It also fails
# on a function prototype declared in a .c file, on a function longer
# than 120 lines or a file longer than 900 in harness/ or gates/, on sqlite
# outside the store, on a HARNESS_TEST_* variable read outside testhook.c,
# on a rate tolerance written outside rate.c (rate.h), on a branch on
# where an arm runs in runner_arm.c or runner_deps.c (armops.h), and on
# a citation (docs/<name>.md, a README, a markdown link) of a file the
# repository lacks.
. "$(dirname "$0")/../lib.sh"

BUILD=${BUILD:-build/release}
case $BUILD in /*) OBJDIR=$BUILD ;; *) OBJDIR=$ROOT/$BUILD ;; esac
# module cycles known and owned elsewhere, one per line: "a b" (sorted).
# None today: gate <-> spec was the last (gate.h read the spec; now the
# gate input carries plain values and gate_params is the gate module's type).
KNOWN=""

# The layers (issue 26), bottom up, one folder each: harness/<layer>/. A
# file includes and calls only its own layer and the layers before it in
# this list (gates/*.c are layer gate), and includes a header as
# "<layer>/x.h". Another layer includes only the headers named after the
# colon, the layer's public headers; the rest of a folder (load_internal.h,
# runner_internal.h, report_doc.h, ...) is its own. tests/ include
# anything. A new folder goes here, in its place; a header becomes public
# here when another layer needs it (docs/DESIGN.md, "Architecture").
LAYERS="
base:    util.h testhook.h rate.h rng.h hist.h jsonptr.h csv.h opt.h jout.h depstats.h
         promtext.h frame.h hostfacts.h hosttune.h rtsched.h prov.h gitfetch.h runlock.h svgpng.h sigexpr.h
stat:    stat.h decide.h
gate:    gate.h judge.h
sandbox: sandbox.h jail.h netns.h portfwd.h cpuset.h quota.h scratch.h
account: account.h footprint.h
load:    load.h load_request.h load_pool.h load_wire.h
agent:   agent.h agent_link.h fleet.h
spec:    spec.h
store:   store.h store_run.h store_seq.h store_window.h store_saturation.h store_footprint.h store_dep.h
sut:     sut.h sut_wire.h sut_agent.h rsut.h rsut_fetch.h bind.h rtstats.h armops.h ctr.h
model:   view.h cells.h knee.h knee_run.h run_quality.h evidence.h evidence_load.h head.h
report:  report.h compare.h compare_plan.h history.h audit.h status.h
runner:  runner.h plan.h
cmd:
"

# The layer order and the public headers, from the #include lines of a
# tree (ROOT/harness/<layer>/, ROOT/gates/): python3 -c "$LAYERS_PY" ROOT "$LAYERS".
LAYERS_PY=$(cat <<'PY'
import os, re, sys
root, spec = sys.argv[1], sys.argv[2]
order, public = [], {}
for chunk in re.split(r'\n(?=\w+:)', spec.strip()):
    name, heads = chunk.split(':', 1)
    order.append(name.strip())
    public[name.strip()] = set(heads.split())
rank = {l: i for i, l in enumerate(order)}
top = os.path.join(root, 'harness')
folders = sorted(d for d in os.listdir(top) if os.path.isdir(os.path.join(top, d)))
misplaced = ['harness/%s/ (not in LAYERS)' % d for d in folders if d not in rank]
misplaced += ['harness/%s (outside a layer folder)' % f for f in sorted(os.listdir(top))
              if f.endswith(('.c', '.h'))]
srcs = [('harness/%s/%s' % (d, f), d) for d in folders
        for f in sorted(os.listdir(os.path.join(top, d))) if f.endswith(('.c', '.h'))]
srcs += [('gates/' + f, 'gate') for f in sorted(os.listdir(os.path.join(root, 'gates')))
         if f.endswith(('.c', '.h'))]
home = {f: d for s, d in srcs if s.startswith('harness/') for f in [os.path.basename(s)]}
up, internal, bare, cross = [], [], [], 0
for s, layer in srcs:
    for no, line in enumerate(open(os.path.join(root, s), errors='replace'), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc, where = m.group(1), '%s:%d' % (s, no)
        if '/' not in inc:
            if inc in home:
                bare.append('%s includes "%s" (write "%s/%s")' % (where, inc, home[inc], inc))
            continue
        to, h = inc.split('/', 1)
        if to not in rank or layer not in rank or to == layer:
            continue
        cross += 1
        if rank[to] > rank[layer]:
            up.append('%s includes %s (%s is above %s)' % (where, inc, to, layer))
        elif h not in public[to]:
            internal.append('%s includes %s' % (where, inc))
for what, bad in (('a folder or file outside the layers', misplaced),
                  ('upward include', up),
                  ('internal header of another layer (public ones are listed in LAYERS,'
                   ' tests/e2e/deps.sh)', internal),
                  ('a harness header included without its layer', bare)):
    if bad:
        print('not ok - deps: %s: %s' % (what, '; '.join(bad)))
if not (misplaced or up or internal or bare):
    print('ok - deps: layers: %d folders, each including only itself and the layers'
          ' below it, and those only through their public headers (%d includes'
          ' between folders)' % (len(folders), cross))
PY
)

# The layer check can fail: a copy of the sources with one upward include
# (base's util.c including cmd/cmd.h) and one internal header of another
# layer (cmd's main.c including load/load_internal.h) is refused, by name.
mkdir -p "$T/broken"
cp -r "$ROOT/harness" "$ROOT/gates" "$T/broken/"
printf '#include "cmd/cmd.h"\n' >> "$T/broken/harness/base/util.c"
printf '#include "load/load_internal.h"\n' >> "$T/broken/harness/cmd/main.c"
broken=$(python3 -c "$LAYERS_PY" "$T/broken" "$LAYERS")
case $broken in
*"not ok - deps: upward include: "*"harness/base/util.c:"*" includes cmd/cmd.h (cmd is above base)"*)
	ok "an upward include fails the layer check (base/util.c -> cmd/cmd.h, in a copy)" ;;
*) fail "an upward include in a copy passed the layer check: $broken" ;;
esac
case $broken in
*"internal header of another layer"*"harness/cmd/main.c:"*" includes load/load_internal.h"*)
	ok "an internal header included from another layer fails the layer check (in a copy)" ;;
*) fail "load/load_internal.h included from cmd in a copy passed the layer check: $broken" ;;
esac
python3 -c "$LAYERS_PY" "$ROOT" "$LAYERS"

out=$(python3 - "$ROOT" "$OBJDIR" "$KNOWN" "$LAYERS" <<'PY'
import collections, os, re, subprocess, sys
root, build, known = sys.argv[1], sys.argv[2], sys.argv[3]
known = {tuple(sorted(l.split())) for l in known.splitlines() if l.strip()}
order = [w[:-1] for w in sys.argv[4].split() if w.endswith(':')]

def module(path):
    d, f = os.path.split(path)
    base = os.path.splitext(f)[0]
    if os.path.basename(d) == 'gates' or base == 'gate':
        return 'gate'
    return base.split('_')[0]

# harness/<layer>/*.[ch] (included as "<layer>/x.h" under -Iharness) and gates/*.c
dirs = ['harness/' + d for d in sorted(os.listdir(os.path.join(root, 'harness')))
        if os.path.isdir(os.path.join(root, 'harness', d))] + ['gates']
srcs = [os.path.join(d, f) for d in dirs
        for f in sorted(os.listdir(os.path.join(root, d))) if f.endswith(('.c', '.h'))]
hdr = {os.path.relpath(s, 'harness'): s for s in srcs
       if s.endswith('.h') and s.startswith('harness/')}

mods = collections.defaultdict(set)
for s in srcs:
    for line in open(os.path.join(root, s)):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and m.group(1) in hdr and module(s) != module(hdr[m.group(1)]):
            mods[module(s)].add(module(hdr[m.group(1)]))

defs, uses = {}, collections.defaultdict(set)
for s in srcs:
    if not s.endswith('.c'):
        continue
    obj = os.path.join(build, s[:-2] + '.o')
    if not os.path.exists(obj):
        print('not ok - deps: %s missing (build first)' % obj)
        sys.exit(0)
    for line in subprocess.run(['nm', obj], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRG':
            defs[p[2]] = s[:-2]
        elif len(p) == 2 and p[0] == 'U':
            uses[s[:-2]].add(p[1])
files = collections.defaultdict(set)
for a, syms in uses.items():
    for y in syms:
        if y in defs and defs[y] != a:
            files[a].add(defs[y])

def cycles(g):
    index, low, stack, on, found = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop(); on.discard(w); c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                found.append(tuple(sorted(c)))
    for v in sorted(set(g) | {w for ws in g.values() for w in ws}):
        if v not in index:
            visit(v)
    return found

def report(what, g, allowed):
    n = len(set(g) | {w for ws in g.values() for w in ws})
    e = sum(len(ws) for ws in g.values())
    bad = [c for c in cycles(g) if c not in allowed]
    for c in cycles(g):
        if c in allowed:
            print('# known %s cycle: %s' % (what, ' <-> '.join(c)))
    if bad:
        for c in bad:
            print('not ok - deps: %s cycle: %s' % (what, '; '.join(
                '%s -> %s' % (a, ' '.join(sorted(b for b in g[a] if b in c))) for a in c)))
    else:
        print('ok - deps: no %s cycle (%d nodes, %d edges)' % (what, n, e))

report('module (#include)', mods, known)
report('file (calls)', files, set())

# The layer order holds in the calls too: no object file uses a symbol
# defined in a layer above its own (LAYERS; gates/ are layer gate).
def layer(f):
    return 'gate' if f.startswith('gates/') else f.split('/')[1]
rank = {l: i for i, l in enumerate(order)}
upcalls = sorted('%s -> %s (%s)' % (a, b, ' '.join(sorted(y for y in uses[a] if defs.get(y) == b)))
                 for a in files for b in files[a]
                 if rank.get(layer(b), -1) > rank.get(layer(a), len(order)))
if upcalls:
    print('not ok - deps: upward calls (a layer using a higher one): ' + '; '.join(upcalls))
else:
    print('ok - deps: layers: no call from a layer to one above it (%d files)'
          % len({s[:-2] for s in srcs if s.endswith('.c')}))

# A function declared in a .c file without `static` is a prototype that
# belongs in a header.
protos = []
for s in srcs:
    if s.endswith('.c'):
        text = open(os.path.join(root, s)).read()
        for m in re.finditer(r'^(?!static\b|extern\s+const\b|typedef\b|return\b)'
                             r'[A-Za-z_][\w \t*]*?\b\w+\s*\([^;{}()]*\)\s*'
                             r'(?:__attribute__\s*\(\([^;{}]*\)\))?\s*;', text, re.M):
            protos.append('%s:%d' % (s, text.count('\n', 0, m.start()) + 1))
if protos:
    print('not ok - deps: prototypes in .c files: ' + ' '.join(protos))
else:
    print('ok - deps: no function prototype in a .c file')

# No function longer than 120 lines (issue 16): a body opens with "{" at
# column 0 after its signature and closes with "}" at column 0 (the house
# style); its length counts both braces. A top-level initializer's "{"
# follows a line ending in "=", not a signature, and is not counted.
LIMIT = 120
longest, over, nfun = (0, ''), [], 0
for s in srcs:
    if not s.endswith('.c'):
        continue
    start, prev = None, ''
    for no, line in enumerate(open(os.path.join(root, s)), 1):
        if start is None and line.startswith('{') and prev.rstrip().endswith(')'):
            start = no
        elif start is not None and line.startswith('}'):
            n, start = no - start + 1, None
            nfun += 1
            longest = max(longest, (n, '%s:%d' % (s, no - n + 1)))
            if n > LIMIT:
                over.append('%s:%d (%d lines)' % (s, no - n + 1, n))
        if line.strip():
            prev = line
if over:
    print('not ok - deps: functions over %d lines: %s' % (LIMIT, ' '.join(over)))
else:
    print('ok - deps: no function over %d lines (%d functions; longest %d lines, %s)'
          % (LIMIT, nfun, longest[0], longest[1]))

# No file over 900 lines in harness/ or gates/: the house style says a file
# over ~800 lines is asking to be split; the margin above 800 is for the
# one being split, not for files to grow back. BIG_KNOWN: files over it
# today, each with who splits it; whoever brings one under removes it.
FILE_LIMIT = 900
BIG_KNOWN = set()
sizes = sorted(((sum(1 for _ in open(os.path.join(root, s))), s) for s in srcs), reverse=True)
big = ['%s (%d lines)' % (s, n) for n, s in sizes if n > FILE_LIMIT and s not in BIG_KNOWN]
for n, s in sizes:
    if s in BIG_KNOWN:
        print('# known file over %d lines: %s (%d lines)' % (FILE_LIMIT, s, n))
if big:
    print('not ok - deps: files over %d lines: %s' % (FILE_LIMIT, ' '.join(big)))
else:
    rest = [(n, s) for n, s in sizes if s not in BIG_KNOWN]
    print('ok - deps: no file over %d lines but the known (%d files; longest other %d'
          ' lines, %s)' % (FILE_LIMIT, len(sizes), rest[0][0], rest[0][1]))

# sqlite lives in the store (issue 16): outside harness/store/ (store*.c and
# store_sql.h) no file includes sqlite3.h or store_sql.h or names a sqlite3
# function, so every column is read by name through the column lists.
leaks = []
for s in srcs:
    if os.path.basename(s).startswith('store') and os.path.basename(s) != 'store.h':
        continue
    for no, line in enumerate(open(os.path.join(root, s)), 1):
        if re.search(r'#\s*include\s*[<"](?:store/)?(sqlite3|store_sql)\.h[>"]|\bsqlite3_\w+\s*\(', line):
            leaks.append('%s:%d' % (s, no))
if leaks:
    print('not ok - deps: sqlite outside the store: ' + ' '.join(leaks))
else:
    print('ok - deps: no sqlite3.h, store_sql.h or sqlite3_ call outside harness/store/')

# One place for test hooks, one rung (issue 26): no file but testhook.c
# reads a HARNESS_TEST_* variable (read once at start, listed in
# testhook.h), and no file but rate.c tells whether two rates are one
# rung by a tolerance of its own (fabs of a difference of rates against
# 1e-6 or finer: rate.h rate_same; a coarser bound, such as achieved vs
# offered, is a different question).
hooks, rungs = [], []
for s in srcs:
    base = os.path.basename(s)
    for no, line in enumerate(open(os.path.join(root, s)), 1):
        if base != 'testhook.c' and re.search(r'getenv\s*\(\s*"HARNESS_TEST_', line):
            hooks.append('%s:%d' % (s, no))
        if base != 'rate.c' and re.search(r'fabs\s*\([^;]*\b\w*(rate|rps)\w*\b[^;]*-[^;]*[<>]=?\s*1e-(6|7|8|9|1\d)\b', line):
            rungs.append('%s:%d' % (s, no))
# ... and each one it reads is in testhook.h's list ("the hooks:")
read = re.findall(r'getenv\s*\(\s*"(HARNESS_TEST_\w+)"',
                  open(os.path.join(root, 'harness/base/testhook.c')).read())
listed = set(re.findall(r'^ \*   (HARNESS_TEST_\w+)',
                        open(os.path.join(root, 'harness/base/testhook.h')).read(), re.M))
unlisted = sorted(set(read) - listed)
if hooks:
    print('not ok - deps: HARNESS_TEST_ read outside testhook.c: ' + ' '.join(hooks))
elif unlisted or not read:
    print('not ok - deps: test hooks read by testhook.c but not in testhook.h\'s list: '
          + (' '.join(unlisted) or 'none read'))
else:
    print('ok - deps: HARNESS_TEST_* read only by testhook.c (once, at start), the %d of'
          ' them listed in testhook.h' % len(read))
if rungs:
    print('not ok - deps: a rate compared by its own tolerance (use rate.h rate_same): '
          + ' '.join(rungs))
else:
    print('ok - deps: rates compared only through rate_same (rate.h)')

# Where an arm runs is its backend's (issue 26, sut/armops.h): the
# runner's arm and dependency files call armops_* and never branch on
# the place themselves: no code line there names a backend
# (armops_local, armops_agent), the agent side (rsut_*, sut_agent*), an
# implementation's host, or reads a backend's field (->ops->...).
place = []
for s in ('harness/runner/runner_arm.c', 'harness/runner/runner_deps.c'):
    for no, line in enumerate(open(os.path.join(root, s)), 1):
        code = re.sub(r'/\*.*?(\*/|$)|//.*', '', line)
        if line.lstrip().startswith('*') or not code.strip():
            continue
        if re.search(r'\b(rsut_\w+|sut_agent\w*|armops_(local|agent))\b|\bimpl(\.|->)host\b|->ops->', code):
            place.append('%s:%d' % (s, no))
if place:
    print('not ok - deps: the runner branches on where an arm runs (move it into'
          ' a backend, sut/armops.h): ' + ' '.join(place))
else:
    print('ok - deps: runner_arm.c and runner_deps.c leave where an arm runs to its'
          ' backend (armops.h)')

# The notes the code cites live in the repository (issue 16): every
# docs/<name>.md, <dir>/README.md, relative markdown link and source path
# (harness/<layer>/x.h) named in the sources, the tests and the
# documentation exists.
cited, missing = set(), []
docs = [os.path.join(d, f) for d in ('docs',) for f in os.listdir(os.path.join(root, d))
        if f.endswith('.md')]
texts = srcs + docs + ['README.md', 'Makefile'] + [
    os.path.join(d, 'README.md') for d in ('specs', 'runs', 'gates', 'bench', 'tests/slow')
    if os.path.exists(os.path.join(root, d, 'README.md'))]
for d in ('tests/e2e', 'tests/unit', 'tests/slow', 'tests/helpers', 'tests/fixtures'):
    texts += [os.path.join(d, f) for f in os.listdir(os.path.join(root, d))
              if f.endswith(('.c', '.h', '.sh', '.inc'))]
for t in texts:
    body = open(os.path.join(root, t), errors='replace').read()
    for m in re.finditer(r'(?<![\w./-])((?:docs|specs|runs|gates|bench|examples/\w+)/[\w.-]+\.md)\b', body):
        cited.add(m.group(1))
        if not os.path.exists(os.path.join(root, m.group(1))):
            missing.append('%s cites %s' % (t, m.group(1)))
    # a source cited by its path (harness/<layer>/<file>, gates/<file>) is there:
    # a path from before the layer folders (harness/<file>) is not
    for m in re.finditer(r'(?<![\w./-])((?:harness/[\w/]+|gates/\w+)\.[ch])\b', body):
        cited.add(m.group(1))
        if not os.path.exists(os.path.join(root, m.group(1))):
            missing.append('%s cites %s' % (t, m.group(1)))
    # a bare upper-case note (DESIGN.md) is the root's or docs/'s
    for m in re.finditer(r'(?<![\w./-])([A-Z][A-Z_]+\.md)\b', body):
        cited.add(m.group(1))
        if not any(os.path.exists(os.path.join(root, d, m.group(1)))
                   for d in ('', 'docs', os.path.dirname(t))):
            missing.append('%s cites %s' % (t, m.group(1)))
    if t.endswith('.md'):
        for m in re.finditer(r'\]\(([^)#:\s]+)', body):
            cited.add(m.group(1))
            if not os.path.exists(os.path.join(root, os.path.dirname(t), m.group(1))):
                missing.append('%s links %s' % (t, m.group(1)))
if missing:
    print('not ok - deps: cited files missing: ' + '; '.join(sorted(set(missing))))
else:
    print('ok - deps: every cited note and source exists (%d distinct citations in %d files)'
          % (len(cited), len(texts)))
PY
)
echo "$out"
