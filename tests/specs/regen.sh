#!/usr/bin/env bash
# Regenerate specs/schema.json and the reference section of specs/README.md
# from the validator's tables and the gate registry (tests/e2e/spec.sh fails
# while either is stale). Usage: tests/specs/regen.sh [path/to/harness]
set -eu
cd "$(dirname "$0")/../.."
H=${1:-bin/harness}
"$H" schema > specs/schema.json
begin='<!-- BEGIN harness schema --markdown -->'
end='<!-- END harness schema --markdown -->'
"$H" schema --markdown > specs/.ref.md
awk -v b="$begin" -v e="$end" -v ref=specs/.ref.md '
	$0 == b { print; while ((getline l < ref) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }' specs/README.md > specs/.README.md
mv specs/.README.md specs/README.md
rm -f specs/.ref.md
echo "regenerated specs/schema.json and the reference in specs/README.md"
