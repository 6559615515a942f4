#!/usr/bin/env bash
# timing-free: check's messages and exit codes for valid and invalid specs
# The spec language through the real binary: every invalid spec under
# tests/specs/invalid gives exactly its .expected stderr and exit 2; every
# valid spec passes; `harness check` prints hand-computed rungs, windows and
# estimates; the hash covers the spec bytes and body files; `harness schema`
# equals specs/schema.json, accepts every key the valid specs use, and the
# README's reference is the generated one.
. "$(dirname "$0")/../lib.sh"

SPECS=$ROOT/tests/specs

# --- every invalid spec: exit 2, exact stderr, nothing on stdout ----------
n=0
for y in "$SPECS"/invalid/*.yaml; do
	b=$(basename "$y" .yaml)
	(cd "$SPECS/invalid" && "$HARNESS" check "$b.yaml" >"$T/out" 2>"$T/err"); rc=$?
	if [ "$rc" -eq 2 ] && cmp -s "$T/err" "$SPECS/invalid/$b.expected" && [ ! -s "$T/out" ]; then
		ok "invalid $b"
	else
		fail "invalid $b: exit $rc; got: $(head -c 400 "$T/err"); want: $(head -c 400 "$SPECS/invalid/$b.expected")"
	fi
	n=$((n + 1))
done
cmp_num "invalid specs checked" "$n" ">=" 40

# --- a 10 MB file (generated, not committed) ------------------------------
head -c 10485760 /dev/zero | tr '\0' '#' > "$T/big.yaml"
(cd "$T" && "$HARNESS" check big.yaml >/dev/null 2>"$T/err"); rc=$?
want="big.yaml:1:1: yaml: the file is 10485760 bytes; a spec may be at most 1 MiB"
if [ "$rc" -eq 2 ] && [ "$(cat "$T/err")" = "$want" ]; then ok "10 MB spec refused"; else
	fail "10 MB spec: exit $rc, got '$(head -c 300 "$T/err")'"; fi

# --- random binary junk: one message, exit 2, no crash ---------------------
# seeded, so a failure reproduces; once with NUL bytes, once without
for nul in 1 0; do
	python3 -c "import random, sys; r = random.Random(42); lo = 0 if $nul else 1
sys.stdout.buffer.write(bytes(r.randint(lo, 255) for _ in range(4096)))" > "$T/junk.yaml"
	expect_exit "4 KiB of random bytes (NULs: $nul)" 2 "$HARNESS" check "$T/junk.yaml"
	cmp_num "random bytes (NULs: $nul) give one error line" "$(wc -l < "$T/err")" "==" 1
done

# --- every valid spec passes -----------------------------------------------
for y in "$SPECS"/valid/*.yaml; do
	expect_exit "valid $(basename "$y")" 0 "$HARNESS" check "$y"
done

# --- what cannot pass is refused by run too; warnings do not refuse --------
expect_exit "run refuses a spec whose window gates can never pass" 2 \
	"$HARNESS" run "$SPECS/invalid/71-window-below-min-points.yaml" --allow-dirty --runs-dir "$T/runs"
check "run says why, located as check does" grep -q "^$SPECS/invalid/71-window-below-min-points.yaml:14:65: stages.ladder.window_s: gate stationarity needs 10 seconds" "$T/err"
check "and starts no run" test ! -e "$T/runs"
# design-sketch: 64 connections x 1 native thread, top rung 19169 req/s:
# above 64 / 20 ms = 3200 and above the 16000 per thread of bench/README.md
expect_exit "a max_rps the generator may not hold: a warning, exit 0" 0 "$HARNESS" check -q "$SPECS/valid/design-sketch.yaml"
cmp_num "two warnings, located" "$(grep -c "design-sketch.yaml:43:50: warning: stages.ladder.max_rps: the top rung, 19169 req/s" "$T/err")" "==" 2
check "the connections bound" grep -q "above 3200 req/s, what 64 connections carry" "$T/err"
check "the per-thread bound" grep -q "above 16000 req/s, what 1 native generator thread" "$T/err"

# --- the plan, by hand -------------------------------------------------------
# minimal: start 500, step 1.2, max 2000 -> 500*1.2^k for k = 0..7
# (500*1.2^8 = 2149.9 > 2000); 3 reps (default) x 2 implementations.
"$HARNESS" check --json "$SPECS/valid/minimal.yaml" > "$T/min.json"
rungs=$(jq -c '.rungs_rps' "$T/min.json")
if [ "$rungs" = "[500,600,720,864,1037,1244,1493,1792]" ]; then ok "rungs 500..1792"; else
	fail "rungs: got $rungs"; fi
cmp_num "ladder windows = 8 rungs x 3 reps x 2 impls" "$(jq .windows.ladder "$T/min.json")" "==" 48
cmp_num "no confirm stage -> 0 windows" "$(jq .windows.confirm "$T/min.json")" "==" 0
# 48 windows x (warm-up min_s 20 + window_s 60) = 3840; the worst case
# adds retries.max_per_cell (3) replacements per cell (8 rungs x 2 impls):
# 48 + 48 = 96 windows x (max_s 180 + 60) = 23040, and the extra
# replacement time, retries.extra_time_pct (25%) of 48 x (180 + 60): 25920
cmp_num "estimated_seconds = 48 x (20 + 60)" "$(jq .estimated_seconds "$T/min.json")" "==" 3840
cmp_num "worst case: 48 replacements at most" "$(jq .windows.replacements_max "$T/min.json")" "==" 48
cmp_num "estimated_seconds_max = (48 + 48) x (180 + 60) x 1.25" "$(jq .estimated_seconds_max "$T/min.json")" "==" 25920
if [ "$(jq -c .implementations "$T/min.json")" = '["a","b"]' ]; then ok "implementations listed"; else
	fail "implementations: $(jq -c .implementations "$T/min.json")"; fi

# the docs/DESIGN.md sketch: 500..20000 step 1.2 -> 21 rungs (500*1.2^20 = 19169);
# ladder 21 x 3 x 2 = 126; confirm <= 2x2 bracketing rates x 10 reps x 2 = 80;
# soak 2; seconds 126x(20+120) + 80x(20+120) + 2x(20+600) = 30080.
"$HARNESS" check --json "$SPECS/valid/design-sketch.yaml" > "$T/sk.json"
cmp_num "sketch rungs" "$(jq '.rungs_rps | length' "$T/sk.json")" "==" 21
cmp_num "sketch last rung 19169" "$(jq '.rungs_rps[-1]' "$T/sk.json")" "==" 19169
cmp_num "sketch ladder windows" "$(jq .windows.ladder "$T/sk.json")" "==" 126
cmp_num "sketch confirm windows" "$(jq .windows.confirm "$T/sk.json")" "==" 80
cmp_num "sketch soak windows" "$(jq .windows.soak "$T/sk.json")" "==" 2
cmp_num "sketch estimated_seconds" "$(jq .estimated_seconds "$T/sk.json")" "==" 30080
# anchors: 1000 * 2^3 = 8000 = max_rps exactly: the last rung is included
if [ "$(cd "$SPECS/valid" && "$HARNESS" check --json anchors.yaml | jq -c .rungs_rps)" = "[1000,2000,4000,8000]" ]; then
	ok "max_rps reached exactly is a rung"; else fail "anchors rungs"; fi
# the text plan carries the same numbers
"$HARNESS" check "$SPECS/valid/minimal.yaml" > "$T/min.txt"
if grep -q "rungs_rps  500 600 720 864 1037 1244 1493 1792$" "$T/min.txt" &&
   grep -q "^  ladder       48 " "$T/min.txt" && grep -q "(3840 s)" "$T/min.txt"; then
	ok "text plan: rungs, windows, estimate"; else fail "text plan: $(cat "$T/min.txt")"; fi

# --- the hash: spec bytes, then body files in request order -----------------
h=$(jq -r .spec_hash "$T/min.json")
if [ "$h" = "$(sha256sum < "$SPECS/valid/minimal.yaml" | cut -d' ' -f1)" ]; then
	ok "hash = sha256 of the spec bytes"; else fail "hash $h"; fi
h=$("$HARNESS" check --json "$SPECS/valid/full.yaml" | jq -r .spec_hash)
if [ "$h" = "$(cat "$SPECS/valid/full.yaml" "$SPECS/valid/bodies/invoice.json" | sha256sum | cut -d' ' -f1)" ]; then
	ok "hash covers body_file bytes"; else fail "hash with body_file $h"; fi
mkdir -p "$T/h/bodies"
cp "$SPECS/valid/full.yaml" "$T/h/"
cp "$SPECS/valid/bodies/invoice.json" "$T/h/bodies/"
h1=$("$HARNESS" check --json "$T/h/full.yaml" | jq -r .spec_hash)
echo "# a comment" >> "$T/h/full.yaml"
h2=$("$HARNESS" check --json "$T/h/full.yaml" | jq -r .spec_hash)
echo " " >> "$T/h/bodies/invoice.json"
h3=$("$HARNESS" check --json "$T/h/full.yaml" | jq -r .spec_hash)
if [ "$h1" = "$h" ] && [ "$h1" != "$h2" ] && [ "$h2" != "$h3" ] && [ ${#h3} -eq 64 ]; then
	ok "a comment or a body_file byte changes the hash"; else fail "hash changes: $h1 $h2 $h3"; fi

# --- schema -------------------------------------------------------------------
"$HARNESS" schema > "$T/schema.json"
if cmp -s "$T/schema.json" "$ROOT/specs/schema.json"; then ok "harness schema = specs/schema.json"; else
	fail "specs/schema.json is stale: run 'harness schema > specs/schema.json'"; fi
check "schema is JSON" jq -e '."$schema" == "https://json-schema.org/draft/2020-12/schema"' "$T/schema.json"
if python3 -c 'import yaml' 2>/dev/null; then
	# every key used by a valid spec is a property in the schema at that place
	if python3 - "$T/schema.json" "$SPECS"/valid/*.yaml > "$T/keys" 2>&1 <<'EOF'
import json, sys, yaml
schema = json.load(open(sys.argv[1]))
bad = []
def walk(node, sch, path):
    if isinstance(node, dict):
        props = sch.get("properties")
        for k, v in node.items():
            if props is not None and k in props:
                walk(v, props[k], path + "." + str(k))
            elif props is None and isinstance(sch.get("additionalProperties"), dict):
                walk(v, sch["additionalProperties"], path + "." + str(k))
            elif props is None and "additionalProperties" not in sch:
                pass
            else:
                bad.append(path + "." + str(k))
    elif isinstance(node, list) and isinstance(sch.get("items"), dict):
        for i, v in enumerate(node):
            walk(v, sch["items"], "%s[%d]" % (path, i))
n = 0
for f in sys.argv[2:]:
    walk(yaml.safe_load(open(f)), schema, f.rsplit("/", 1)[-1] + ":")
    n += 1
print("\n".join(bad) if bad else "%d specs, every key in the schema" % n)
sys.exit(1 if bad else 0)
EOF
	then ok "every key of the valid specs is in the schema ($(cat "$T/keys"))"; else
		fail "keys missing from the schema: $(cat "$T/keys")"; fi
	if python3 -c 'import jsonschema' 2>/dev/null; then
		if python3 - "$T/schema.json" "$SPECS"/valid/*.yaml > "$T/js" 2>&1 <<'EOF'
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
for f in sys.argv[2:]:
    jsonschema.validate(yaml.safe_load(open(f)), schema, cls=jsonschema.Draft202012Validator)
EOF
		then ok "valid specs validate against the schema (jsonschema)"; else
			fail "jsonschema: $(tail -c 400 "$T/js")"; fi
	else
		echo "# skip: python3-jsonschema not installed"
	fi
else
	echo "# skip: python3-yaml not installed (apt-get install python3-yaml)"
fi
# the key tables -> schema: every key of the reference appears in the schema
"$HARNESS" schema --markdown > "$T/ref.md"
missing=0
sed '/^#### Gates/q' "$T/ref.md" | grep -oE '^\| `[][a-z_.0-9]+`' | tr -d '|` ' | sed 's/\[\]//g' > "$T/keys.txt"
cmp_num "keys in the reference table" "$(wc -l < "$T/keys.txt")" ">=" 80
for k in $(cat "$T/keys.txt"); do
	jq -e --arg p "$k" '
	  def descend($s; $keys): if ($keys | length) == 0 then true
	    else ($s.properties[$keys[0]] // null) as $n
	      | if $n == null then false
	        else descend(if $n.type == "array" and ($n.items.properties? // null) != null then $n.items else $n end; $keys[1:]) end
	    end;
	  descend(.; ($p | split(".")))' "$T/schema.json" >/dev/null || { missing=$((missing + 1)); echo "# not in schema: $k"; }
done
cmp_num "keys of the validator's tables missing from the schema" "$missing" "==" 0

# --- README embeds the generated reference ------------------------------------
sed -n '/^<!-- BEGIN harness schema --markdown -->$/,/^<!-- END harness schema --markdown -->$/p' \
	"$ROOT/specs/README.md" | sed '1d;$d' > "$T/readme-ref.md"
if [ -s "$T/readme-ref.md" ] && cmp -s "$T/readme-ref.md" "$T/ref.md"; then
	ok "specs/README.md reference = harness schema --markdown"; else
	fail "specs/README.md reference is stale: regenerate it from 'harness schema --markdown'"; fi

# --- usage ----------------------------------------------------------------------
expect_exit "check --help" 0 "$HARNESS" check --help
if grep -q "^usage: harness check" "$T/out"; then ok "check --help prints usage"; else fail "check --help"; fi
expect_exit "schema --help" 0 "$HARNESS" schema --help
if grep -q "^usage: harness schema" "$T/out"; then ok "schema --help prints usage"; else fail "schema --help"; fi
expect_exit "check without a spec" 2 "$HARNESS" check
expect_exit "check with an unknown option" 2 "$HARNESS" check --jsno "$SPECS/valid/minimal.yaml"
expect_exit "check of a missing file" 2 "$HARNESS" check "$T/nope.yaml"
if grep -q "nope.yaml: cannot read: No such file" "$T/err"; then ok "missing file named"; else
	fail "missing file message: $(cat "$T/err")"; fi
expect_exit "check --quiet on a valid spec" 0 "$HARNESS" check -q "$SPECS/valid/minimal.yaml"
if [ ! -s "$T/out" ]; then ok "--quiet prints nothing"; else fail "--quiet printed"; fi
# standard input: the same plan; messages name <stdin>
if [ "$("$HARNESS" check --json - < "$SPECS/valid/minimal.yaml" | jq -c .rungs_rps)" = "[500,600,720,864,1037,1244,1493,1792]" ]; then
	ok "check - reads standard input"; else fail "check - (stdin)"; fi
printf 'version: 2\n' > "$T/v2.yaml"
"$HARNESS" check - < "$T/v2.yaml" 2> "$T/err" >/dev/null; rc=$?
if [ "$rc" -eq 2 ] && grep -qx '<stdin>:1:10: version: must be 1, got 2' "$T/err"; then ok "stdin errors name <stdin>"; else
	fail "stdin errors: exit $rc $(cat "$T/err")"; fi
