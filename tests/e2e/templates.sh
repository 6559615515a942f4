#!/bin/bash
# timing-free: the ids sent (chi-square over ranks), not their timing
# A working set (issue 13, item 3): template variables drawn into a seeded
# pool. nginx on 127.0.0.1 logs every request it receives; a Zipf template
# over 1,000,000 ids with s = 1.1 must give ids (those of a 5 s window at
# 2000 req/s) whose rank-frequency
# passes a chi-square test at 1% against the exact Zipf law, the same ids
# for the same seed (and with the curl transport), other ids for another
# seed. Headers and bodies are templated too (nginx logs the header and
# the Content-Length, which changes with the id's digits).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

if ! command -v nginx >/dev/null; then
	fail "nginx is needed for the templates test"
	exit 0
fi
P=$(free_port)
nginx_start '$request_method $uri $http_x_user $content_length' "\
		listen 127.0.0.1:$P;
		# a template sent unexpanded (\"{id}\") would be a 404
		location ~ ^/(items|n)/[0-9]+\$ { return 200 \"ok\\n\"; }
		location = /healthz { return 200 \"ok\\n\"; }
		location / { return 404 \"no\\n\"; }"
check "nginx listens" wait_port "$P"

printf 'id,email\n1,ann@example.com\n2,bob@example.com\n3,cy@example.com\n' >"$T/users.csv"
spec() { # spec SEED: a templated spec (implementation never started: --url)
	cat >"$T/spec.yaml" <<YAML
version: 1
name: tmpl
seed: $1
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - { name: a, start: [sleep, "100"], health: { url: "http://127.0.0.1:{port}/" } }
workload:
  connections: 128
  vars:
    id: { zipf: { n: 1000000, s: 1.1 } }
    user: { csv: users.csv, column: email }
    n: { sequence: { start: 10 } }
  requests:
    - { name: get, weight: 9, path: "/items/{id}", headers: { X-User: "{user}" } }
    - { name: put, weight: 1, method: POST, path: "/n/{n}", body: '{"id":{id}}' }
stages:
  ladder: { start_rps: 2000, step: 2, max_rps: 2000, window_s: 5 }
gates:
  stationarity: { min_points: 5 }   # the 5 s window's seconds (check refuses 10 of 5)
YAML
}
# ids SEED TRANSPORT OUT SECONDS: the GET ids nginx received from one load
# at 2000 req/s, sorted (5 s: the spec's 5 s window, its whole pool of
# 10,000 requests, about 9,000 of them GETs; 10 s and 20,000 until the
# 5 s of load were worth more than the chi-square's power against a
# uniform law, which 9,000 ids reject as surely).
ids() {
	spec "$1"
	: >"$T/ng/access.log"
	load "$3" "$T/spec.yaml" --impl a --url "http://127.0.0.1:$P" --rate 2000 --duration "$4" \
		--transport "$2"
	sleep 0.3   # nginx writes its log line after the response
	awk '$1 == "GET" { sub("/items/", "", $2); print $2 }' "$T/ng/access.log" | sort -n >"$T/$3.ids"
	cp "$T/ng/access.log" "$T/$3.log"
}
ids 7 native s7 5
cmp_num "seed 7: every request of the 5 s window completed" "$(j s7 .completed)" == 10000
cmp_num "seed 7: nginx logged every GET" "$(wc -l <"$T/s7.ids")" == "$(j s7 .by_request.get.requests)"
check "check prints the pool: a 5 s window at 2000 req/s, its memory" \
	bash -c "'$HARNESS' check '$T/spec.yaml' | grep -q '^pool: *10000 requests, [0-9.]* MiB'"
# The data files are frozen with the spec: a csv row changed, another hash
# (and another pool).
h1=$("$HARNESS" check "$T/spec.yaml" --json | jq -r '.spec_hash + " " + .pool.digest')
cp "$T/users.csv" "$T/users.csv.orig"
sed -i 's/bob@example.com/bobby@example.com/' "$T/users.csv"
h2=$("$HARNESS" check "$T/spec.yaml" --json | jq -r '.spec_hash + " " + .pool.digest')
mv "$T/users.csv.orig" "$T/users.csv"
h3=$("$HARNESS" check "$T/spec.yaml" --json | jq -r '.spec_hash + " " + .pool.digest')
check "a changed csv file changes the spec hash and the pool's digest" \
	test "${h1%% *}" != "${h2%% *}" -a "${h1##* }" != "${h2##* }" -a "$h1" = "$h3" -a -n "${h1%% *}"

# Chi-square of the rank frequencies against P(k) = k^-1.1 / H(1e6, 1.1):
# ranks 1..15 one bin each, then bins doubling in width, merged until each
# expects at least 20 ids; the 1% critical value from Wilson-Hilferty.
chi=$(python3 - "$T/s7.ids" <<'PY'
import sys, math
n, s = 1000000, 1.1
ids = [int(x) for x in open(sys.argv[1])]
N = len(ids)
w = [k ** -s for k in range(1, n + 1)]
H = math.fsum(w)
edges = list(range(1, 17))
while edges[-1] <= n:
    edges.append(edges[-1] * 2)
edges[-1] = n + 1
bins = []
for a, b in zip(edges, edges[1:]):
    bins.append([a, b, math.fsum(w[a - 1:b - 1]) / H * N, 0])
merged = []
for b in bins:
    if merged and merged[-1][2] < 20:
        merged[-1][1] = b[1]; merged[-1][2] += b[2]
    else:
        merged.append(b)
if merged[-1][2] < 20 and len(merged) > 1:
    last = merged.pop(); merged[-1][1] = last[1]; merged[-1][2] += last[2]
bad = 0
for x in ids:
    if not 1 <= x <= n: bad += 1; continue
    for b in merged:
        if b[0] <= x < b[1]: b[3] += 1; break
chi = sum((b[3] - b[2]) ** 2 / b[2] for b in merged)
df = len(merged) - 1
z = 2.3263
crit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
print("%.2f %.2f %d %d %d" % (chi, crit, df, bad, N))
PY
)
set -- $chi
echo "# chi-square $1 (1% critical $2, $3 degrees of freedom) over $5 ids"
cmp_num "every id in 1..1000000" "$4" == 0
cmp_num "the ids follow Zipf(1e6, 1.1): chi-square below the 1% critical value $2" "$1" "<" "$2"
# The same statistic against a uniform law would be huge: the test can fail.
top=$(grep -c '^1$' "$T/s7.ids")
# 1/H(1e6, 1.1) = 12.4%: 1120 of 9000 expected, sd 31.
cmp_num "rank 1 takes about 1/H(1e6,1.1) = 12.4% of the ids (not 1/n)" "$top" ">" 900

# Shorter loads (2 s: 4000 requests) replay the first 4000 of the stream.
ids 7 native s7b 2
ids 7 native s7d 2
ids 7 curl s7c 2
ids 8 native s8 2
check "the same seed: the same ids" cmp -s "$T/s7b.ids" "$T/s7d.ids"
check "the same seed with the curl transport: the same ids" cmp -s "$T/s7b.ids" "$T/s7c.ids"
check "a 2 s load sends the first ids of the 5 s load's stream" \
	bash -c "[ -z \"\$(comm -23 <(sort '$T/s7b.ids') <(sort '$T/s7.ids'))\" ]"
check "another seed: other ids" bash -c "! cmp -s '$T/s7b.ids' '$T/s8.ids'"
# Not in the agent protocol yet: refused before anything starts, one line.
expect_exit "a templated workload with --agent is a usage error" 2 "$HARNESS" load "$T/spec.yaml" \
	--impl a --url "http://127.0.0.1:$P" --rate 10 --duration 0.2 --agent local
check "one line naming the spec and why" bash -c "[ \$(wc -l <'$T/err') = 1 ] &&
	grep -q '^harness: load: .*spec.yaml: template variables (workload.vars) are not sent to load agents yet' '$T/err'"
same=$(comm -12 <(sort -u "$T/s7b.ids") <(sort -u "$T/s8.ids") | wc -l)
echo "# distinct ids shared by seeds 7 and 8: $same (the hot ranks)"

# Headers and bodies: the csv column's values, the sequence, and a body
# whose length follows the id's digits ({"id":N} is 7 + digits bytes).
check "X-User carries the csv column's values only" \
	bash -c "awk '\$1 == \"GET\" { print \$3 }' '$T/s7.log' | sort -u | tr '\n' ' ' | grep -qx 'ann@example.com bob@example.com cy@example.com '"
check "the sequence starts at 10 and counts every request of the pool" \
	bash -c "awk '\$1 == \"POST\" { sub(\"/n/\", \"\", \$2); print \$2 }' '$T/s7.log' | sort -n | awk 'NR == 1 { f = \$1 } END { exit !(f >= 10 && \$1 <= 10009) }'"
check "POST bodies' Content-Length follows the id's digits (8..14 bytes)" \
	bash -c "awk '\$1 == \"POST\" && (\$4 < 8 || \$4 > 14) { b++ } \$1 == \"POST\" { n++ } END { exit !(n > 500 && !b) }' '$T/s7.log'"
check "POST bodies vary in length" \
	bash -c "[ \$(awk '\$1 == \"POST\" { print \$4 }' '$T/s7.log' | sort -u | wc -l) -ge 3 ]"

# A run: the harness starts nginx itself (on {port}), its pre-flight sends
# each kind expanded from the pool (an unexpanded one would be a 404 and
# refuse the run), the window sends the pool's ids.
mkdir -p "$T/run/tmp"
sed -e "s|listen 127.0.0.1:$P;|listen 127.0.0.1:@PORT@;|" -e "s|$T/ng/access.log|$T/run/access.log|" \
	-e "s|pid $T/ng/nginx.pid;|pid nginx.pid;|" "$T/ng/nginx.conf" >"$T/run/nginx.tmpl"
spec 7
cp "$T/users.csv" "$T/run/users.csv"
sed -i -e "s|  - { name: a, start: .*|  - { name: ng, repo: $T/run, start: [bash, -c, 'sed \"s/@PORT@/\$1/\" nginx.tmpl >nginx.conf \&\& exec nginx -p . -c nginx.conf', x, \"{port}\"], health: { url: \"http://127.0.0.1:{port}/healthz\" }, restart: never }|" \
	-e "s|ladder: .*|ladder: { start_rps: 500, step: 2, max_rps: 500, reps: 1, window_s: 2, discard_s: 1 }\nwarmup: { rate: { fixed_rps: 200 }, min_s: 1, max_s: 2, trailing_s: 1, gates: [hot_set_touched] }\nwindow_gates: [error_rate, sut_alive]|" \
	"$T/spec.yaml"
expect_exit "check: the run's plan" 0 "$HARNESS" check "$T/spec.yaml"
check "check: a templated workload's pre-flight expands each template 3 times (the default)" \
	grep -q "^pre-flight: 2 requests x 3 sends (each a fresh expansion from the pool) x 1 implementation = 6 responses (6 cases)" "$T/out"
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --run-id t >"$T/run.out" 2>"$T/run.err"
q() { sqlite3 "$T/runs/t/run.db" "$1"; }
check "run: the pre-flight passed 6 of 6 cases (2 kinds x 3 expansions)" \
	test "$(q "SELECT preflight_cases, preflight_passed FROM runs")" = "6|6"
cmp_num "run: the window accepted (stderr: $(tail -n 1 "$T/run.err"))" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 1
cmp_num "run: nothing unexpected (every path expanded)" \
	"$(q "SELECT SUM(err_unexpected) FROM windows WHERE status IS NOT NULL")" == 0
cmp_num "run: nginx never saw an unexpanded template" "$(grep -c '{' "$T/run/access.log")" == 0
cmp_num "run: many distinct ids (a working set, not one id)" \
	"$(awk '$2 ~ /^\/items\// { print $2 }' "$T/run/access.log" | sort -u | wc -l)" ">" 100

# A path referring to no variable is refused.
sed -i 's|/items/{id}|/items/{idd}|' "$T/spec.yaml"
expect_exit "a path naming no variable is refused" 2 "$HARNESS" check "$T/spec.yaml"
check "the message names the request's path and the variable" \
	grep -q 'workload.requests\[0\].path: {idd} is no variable' "$T/err"

# ---------------------------------------- specs/templates/ (issue 29)
# The three profiles a newcomer starts from pass check as shipped, with
# the budgets their headers promise, and each runs: its implementations
# filled with testsrv, its stages cut to seconds (tests/helpers/
# template_fill.py; the real runs' wall times: tests/slow/templates.sh).
for t in quick pull-request overnight; do
	expect_exit "specs/templates/$t.yaml passes check as shipped" 0 \
		"$HARNESS" check -q "$ROOT/specs/templates/$t.yaml"
	"$HARNESS" check "$ROOT/specs/templates/$t.yaml" --json >"$T/$t.plan.json" 2>/dev/null
done
# "A fresh clone, README only" (issue 29): the commands the README tells a
# newcomer to type exist as written (harness flags in each command's
# --help, make targets, the template paths; tests/helpers/readme_commands.py).
check "README's commands are real: $(python3 "$ROOT/tests/helpers/readme_commands.py" "$ROOT" "$HARNESS" 2>&1 | head -3 | tr '\n' ' ')" \
	python3 "$ROOT/tests/helpers/readme_commands.py" "$ROOT" "$HARNESS"
cmp_num "quick: its pre-registered windows take at most 3 minutes (warm-ups at min_s, one arm)" \
	"$(jq .estimated_seconds "$T/quick.plan.json")" "<=" 180
cmp_num "pull-request: a rerun --with-baseline's windows (twice the plan's) at most 3 minutes" \
	"$(jq '.estimated_seconds * 2' "$T/pull-request.plan.json")" "<=" 180
cmp_num "pull-request: its sequential budget ends the rerun within 10 minutes" \
	"$(jq '.compare.sequential_plan.budget_minutes' "$T/pull-request.plan.json")" "<" 10
check "pull-request: that budget holds the rounds a latency decision needs" \
	test "$(jq '.compare.sequential_plan.budget_short' "$T/pull-request.plan.json")" = false
check "pull-request: check says the pooled test can decide" \
	bash -c "'$HARNESS' check '$ROOT/specs/templates/pull-request.yaml' 2>/dev/null | grep -q 'latency: .*: can decide'"
cmp_num "overnight: an overnight budget (more than 8 hours at min_s)" \
	"$(jq .estimated_seconds "$T/overnight.plan.json")" ">" 28800
for t in quick pull-request overnight; do
	python3 "$ROOT/tests/helpers/template_fill.py" "$ROOT/specs/templates/$t.yaml" \
		"$T/$t.yaml" "$HELPERS/testsrv" --short
	"$HARNESS" run "$T/$t.yaml" --allow-dirty --runs-dir "$T/truns" --run-id "$t" \
		>"$T/$t.out" 2>"$T/$t.err"
	rc=$?
	cmp_num "$t.yaml, filled and cut short, runs (stderr: $(tail -n 1 "$T/$t.err"))" "$rc" "==" 0
	cmp_num "$t.yaml: a valid window for each implementation at each rate it ran" \
		"$(sqlite3 "$T/truns/$t/run.db" "SELECT COUNT(DISTINCT impl || rate) FROM windows WHERE status IN ('accepted','failed')")" \
		">=" "$(sqlite3 "$T/truns/$t/run.db" "SELECT COUNT(DISTINCT impl || rate) FROM windows")"
done
