#!/usr/bin/env bash
# Runs every unit-test program ($UNITS) and every end-to-end script in
# tests/e2e/*.sh (or those named in $E2E; "none" for none), counts the
# "ok - " / "not ok - " lines they print, and ends with "N passed, N failed".
#
# RELEASE_ONLY=skip (set by `make asan`): an e2e script whose first lines
# hold "# release-only: WHY" is skipped and named. Such a script's subject
# is a statistical figure (a knee bracket, a verdict over repeated
# comparisons) measured through code that other scripts also drive under
# the sanitizers; it takes minutes and its figure is the release build's.
set -u
cd "$(dirname "$0")/.."
export HARNESS HELPERS BUILD
export HARNESS_TEST_TMP="${HARNESS_TEST_TMP:-$(mktemp -d /tmp/harness-test.XXXXXX)}"
log="$HARNESS_TEST_TMP/test.log"
: > "$log"
passed=0; failed=0; failures=(); times=(); skipped=()

run_one() { # name, command...
	local name=$1; shift
	local out rc t0=$SECONDS
	echo "== $name" >>"$log"
	out=$("$@" 2>>"$log"); rc=$?
	times+=("$((SECONDS - t0)) s  $name")
	echo "== $name: $((SECONDS - t0)) s, exit $rc" >>"$log"
	printf '%s\n' "$out"
	local p f
	p=$(printf '%s\n' "$out" | grep -c '^ok - ' || true)
	f=$(printf '%s\n' "$out" | grep -c '^not ok - ' || true)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc"
		f=1
	fi
	passed=$((passed + p)); failed=$((failed + f))
	[ "$f" -gt 0 ] && failures+=("$name")
}

for u in ${UNITS:-}; do
	run_one "$(basename "$u")" "$u"
done
if [ "${E2E:-}" != none ]; then
	for s in ${E2E:-tests/e2e/*.sh}; do
		[ -f "$s" ] || continue
		why=$(head -n 12 "$s" | sed -n 's/^# release-only: //p')
		if [ "${RELEASE_ONLY:-}" = skip ] && [ -n "$why" ]; then
			skipped+=("$(basename "$s") ($why)")
			continue
		fi
		run_one "$(basename "$s")" bash "$s"
	done
fi
echo "# time per program (slowest first):"
printf '%s\n' "${times[@]}" | sort -rn | head -8 | sed 's/^/#   /'
for k in "${skipped[@]}"; do
	echo "# skipped, release-only: $k"
done
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failing: ${failures[*]} (stderr in $log)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
