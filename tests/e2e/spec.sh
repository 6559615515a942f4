#!/usr/bin/env bash
# timing-free: the spec hash, the schema and the generated reference
# release-only: under make asan cli.sh, rerun.sh and run_crash.sh reach its code but 1 line (cmd_schema.c 1), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# The spec language through the real binary: the hash covers the spec
# bytes and body files; `harness schema` equals specs/schema.json, accepts
# every key the valid specs use, and the README's reference is the
# generated one. What check refuses, accepts and plans: tests/cases.
. "$(dirname "$0")/../lib.sh"

SPECS=$ROOT/tests/specs
# Refusals (every invalid spec: exit 2, its exact messages, nothing on
# stdout), valid specs passing, warnings, the plan by hand, stdin and usage:
# declarative cases in tests/cases/spec and tests/cases/check.
"$HARNESS" check --json "$SPECS/valid/minimal.yaml" > "$T/min.json"

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
sed '/^#### Gates/q' "$T/ref.md" | grep -oE '^\| `[][a-z_.0-9]+`' | tr -d '|` ' | sed 's/\[\]//g' > "$T/keys.txt"
cmp_num "keys in the reference table" "$(wc -l < "$T/keys.txt")" ">=" 80
# one jq for all keys: the keys not found, one a line
jq -r --rawfile keys "$T/keys.txt" '
  def descend($s; $keys): if ($keys | length) == 0 then true
    else ($s.properties[$keys[0]] // null) as $n
      | if $n == null then false
        else descend(if $n.type == "array" and ($n.items.properties? // null) != null then $n.items else $n end; $keys[1:]) end
    end;
  . as $schema | $keys | split("\n")[] | select(length > 0) | select(descend($schema; split(".")) | not)' \
	"$T/schema.json" > "$T/missing.txt"
sed 's/^/# not in schema: /' "$T/missing.txt"
missing=$(grep -c . "$T/missing.txt")
cmp_num "keys of the validator's tables missing from the schema" "$missing" "==" 0

# --- README embeds the generated reference ------------------------------------
sed -n '/^<!-- BEGIN harness schema --markdown -->$/,/^<!-- END harness schema --markdown -->$/p' \
	"$ROOT/specs/README.md" | sed '1d;$d' > "$T/readme-ref.md"
if [ -s "$T/readme-ref.md" ] && cmp -s "$T/readme-ref.md" "$T/ref.md"; then
	ok "specs/README.md reference = harness schema --markdown"; else
	fail "specs/README.md reference is stale: regenerate it from 'harness schema --markdown'"; fi
