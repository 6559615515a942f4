#!/usr/bin/env bash
# same_outputs.sh: the outputs of a set of stored runs, rendered by two
# builds, byte for byte. A refactoring that must not change behaviour
# (issue 26: "every output byte-identical for the same stored run") is
# checked with it:
#
#   tests/same_outputs.sh [--runs DIR] OLD_HARNESS NEW_HARNESS
#   tests/same_outputs.sh [--runs DIR] --rev REV [NEW_HARNESS]
#   tests/same_outputs.sh --harvest DIR
#
# --rev builds REV's bin/harness from `git archive REV` in a temporary
# directory (a minute or two on this VM); NEW_HARNESS defaults to
# build/release/bin/harness. Not a CI test: CI has one build. Timing-free:
# it only renders stored runs.
#
# The stored runs (11): tests/fixtures/report_run.sql (`fixture`, ladder
# and confirm with a knee), and the databases of compare_fixture (written
# once, read by both builds): its default set (compare_base, _slow, _fast,
# _same), --pr (compare_pr, compare_pr_same), --history (nightly_1..5) and
# --noise (a 10-rate paired run). The outputs (525 files: 148 commands,
# each with its exit code and standard error, and the report files): report
# in md, html, json and csv; audit and its --json, of one window (--window,
# text and JSON) and --recheck --json; rerun RUN --plan (text and JSON:
# what compare could decide, compare_plan.c); knee RUN --json; status
# (text and --json); compare in md, json, html and junit for ten pairs, one
# not judged (and md with --chart for one); history in md, json and html;
# runs (text and JSON) of two runs directories. Each output keeps its exit
# code and standard error.
# The two builds' version strings (`harness --version`) are replaced by
# VERSION before the diff (so a build's version must not be a word the
# outputs hold otherwise, such as "unknown"). Exit 0 when every file is the same, 1 with the
# diff otherwise, 2 on usage.
#
# Real runs: --harvest DIR runs a set of end-to-end scripts (HARVEST
# below: one arm with confirm, failed and void runs, replacement windows,
# per-request promises, a dependency chain, rerun --with-baseline, a
# sequential confirm, an untrusted arm in its sandbox, refine) with
# HARNESS_KEEP_RUNS=DIR (tests/lib.sh), which keeps every run database
# they made under DIR/<script>/<runs dir>/<run>/run.db: minutes, with real
# servers. --runs DIR then renders every one of them as well: report,
# audit, rerun --plan --json, knee and status of each run; compare (md,
# json, html, junit) of each run with itself and with the next run of its
# runs directory (--judge-unpaired), and of each rerun with its parent;
# history and runs --json of each runs directory. They are written by the build that harvested them, so
# both builds must read its schema (a newer build migrates its copy), and
# their reports' "harness (run)" row differs when one build is the
# harvester (its version string becomes VERSION on one side only): harvest
# with a third build, or read those rows as the only difference. No
# harvested script makes a `rerun --until-decided` with its parent, so
# compare's sequential section (compare_seq.c) is checked only with a
# --runs directory that holds one (a parent run and its rerun).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIX=$ROOT/build/release/helpers/compare_fixture

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

T=$(mktemp -d "${TMPDIR:-/tmp}/same_outputs.XXXXXX")
# SAME_OUTPUTS_KEEP=1 keeps the outputs (the directory is printed).
if [ -n "${SAME_OUTPUTS_KEEP:-}" ]; then
	echo "same_outputs: outputs in $T" >&2
else
	trap 'rm -rf "$T"' EXIT
fi

HARVEST="one_impl run_fail replace requests deps_chain rerun rerun_fail sequential sandbox refine"
if [ "${1:-}" = --harvest ]; then
	[ $# -eq 2 ] || usage
	mkdir -p "$2" || exit 2
	for s in $HARVEST; do
		HARNESS_KEEP_RUNS=$(realpath "$2") bash "$ROOT/tests/e2e/$s.sh" >"$T/$s.log" 2>&1
		echo "same_outputs: $s: $(grep -c '^ok' "$T/$s.log") ok," \
			"$(grep -c '^not ok' "$T/$s.log") not ok" >&2
	done
	echo "same_outputs: $(find "$2" -name run.db | wc -l) run databases under $2"
	exit 0
fi
RUNS=
if [ "${1:-}" = --runs ]; then
	[ -n "${2:-}" ] && [ -d "$2" ] || usage
	RUNS=$(realpath "$2")
	shift 2
fi
if [ "${1:-}" = --rev ]; then
	[ -n "${2:-}" ] || usage
	mkdir -p "$T/src"
	git -C "$ROOT" archive "$2" | tar -x -C "$T/src" || exit 2
	SRC=$T/src
	# a version string of its own (no .git there: "unknown", a word the
	# outputs hold), replaced by VERSION below
	make -C "$T/src" -s VERSION="same-outputs-$2" bin/harness \
		build/release/helpers/compare_fixture >"$T/build.log" 2>&1 || {
		tail -20 "$T/build.log" >&2
		echo "same_outputs: cannot build $2" >&2
		exit 2
	}
	OLD=$T/src/build/release/bin/harness
	# REV's own fixture writer: its schema, which both builds read (the
	# newer one migrates its copy)
	FIX=$T/src/build/release/helpers/compare_fixture
	NEW=${3:-$ROOT/build/release/bin/harness}
else
	[ $# -eq 2 ] || usage
	OLD=$1 NEW=$2
fi
OLD=$(realpath "$OLD") NEW=$(realpath "$NEW")
for b in "$OLD" "$NEW" "$FIX"; do
	[ -x "$b" ] || { echo "same_outputs: $b: not an executable (make first)" >&2; exit 2; }
done

# The stored runs, written once (into $T/stored); each build reads a fresh
# copy of them at the same path ($T/runs), since opening one may migrate it.
R=$T/runs
S=$T/stored
mkdir -p "$S/rep/fixture"
if [ -n "${SRC:-}" ] && [ -f "$SRC/tests/fixtures/report_run.sql" ]; then
	sql=$SRC/tests/fixtures/report_run.sql
else
	sql=$ROOT/tests/fixtures/report_run.sql
fi
sqlite3 "$S/rep/fixture/run.db" <"$sql" || exit 2
"$FIX" "$S/cmp" >/dev/null &&
"$FIX" --pr "$S/pr" >/dev/null &&
"$FIX" --history "$S/hist" >/dev/null &&
"$FIX" --noise "$S/noise" noise 7 20 6 >/dev/null || { echo "same_outputs: compare_fixture failed" >&2; exit 2; }
# the harvested runs, each runs directory as real/<script>/<path>
if [ -n "$RUNS" ]; then
	find "$RUNS" -name run.db | sort | while read -r db; do
		rel=${db#"$RUNS"/}
		mkdir -p "$S/real/$(dirname "$rel")" && cp "$db" "$S/real/$rel" || exit 2
	done || exit 2
fi

# one NAME CMD...: CMD's standard output, standard error and exit code
# into NAME (in the current directory, the build's output directory).
one() {
	local name=$1
	shift
	"$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}

# audits NAME HARNESS RUN DIR: audit of RUN, text and JSON; of one window
# (--window: its series, drain and unexpected samples; the window with
# the most unexpected samples, then seconds, then the lowest id); and
# --recheck.
audits() {
	local name=$1 h=$2 run=$3 dir=$4 w
	one "audit-$name" "$h" audit "$run" --runs-dir "$dir"
	one "auditj-$name" "$h" audit "$run" --runs-dir "$dir" --json
	w=$(sqlite3 "$dir/$run/run.db" "SELECT id FROM windows ORDER BY
		(SELECT count(*) FROM unexpected_samples u WHERE u.window_id = windows.id) DESC,
		(SELECT count(*) FROM seconds s WHERE s.window_id = windows.id) DESC, id LIMIT 1" \
		2>/dev/null)
	if [ -n "$w" ]; then
		one "auditw-$name" "$h" audit "$run" --runs-dir "$dir" --window "$w"
		one "auditwj-$name" "$h" audit "$run" --runs-dir "$dir" --window "$w" --json
	fi
	one "auditr-$name" "$h" audit "$run" --runs-dir "$dir" --recheck --json
}

render() {
	local h=$1 out=$2 run dir pair tag f
	rm -rf "$R" && cp -a "$S" "$R" || exit 2
	mkdir -p "$out" && cd "$out" || exit 2
	for run in rep/fixture cmp/compare_base cmp/compare_slow cmp/compare_fast cmp/compare_same \
		   pr/compare_pr pr/compare_pr_same hist/nightly_1 hist/nightly_5 noise/noise; do
		dir=${run%/*} run=${run#*/}
		mkdir -p "rep-$run"
		one "report-$run" "$h" report "$run" --runs-dir "$R/$dir" --format md,html,json,csv -o "rep-$run"
		audits "$run" "$h" "$run" "$R/$dir"
		one "plan-$run" "$h" rerun "$run" --runs-dir "$R/$dir" --plan
		one "planj-$run" "$h" rerun "$run" --runs-dir "$R/$dir" --plan --json
		one "knee-$run" "$h" knee "$run" --runs-dir "$R/$dir" --json
		one "status-$run" "$h" status "$run" --runs-dir "$R/$dir" --json
		one "statust-$run" "$h" status "$run" --runs-dir "$R/$dir"
	done
	# DIR BASE NEW [OPTIONS]: unpaired pairs judged (--judge-unpaired),
	# one by means (--interval t), one not judged (JUnit's error case)
	for pair in "cmp compare_base compare_slow --judge-unpaired" \
		    "cmp compare_base compare_slow" \
		    "cmp compare_base compare_fast --judge-unpaired" \
		    "cmp compare_base compare_same --judge-unpaired" \
		    "cmp compare_slow compare_base --judge-unpaired" \
		    "cmp compare_base compare_slow --impl=a --interval=t" \
		    "pr compare_pr compare_pr" "pr compare_pr_same compare_pr_same" \
		    "hist nightly_1 nightly_5 --judge-unpaired" "noise noise noise"; do
		set -- $pair
		tag=$(echo "$2-$3${4:-}${5:-}" | tr -d '=')
		for f in md json html; do
			one "compare-$tag-$f" "$h" compare "$2" "$3" --runs-dir "$R/$1" \
				--format "$f" --junit "compare-$tag-$f.xml" "${@:4}"
		done
	done
	# compare --chart: the md with the chart's image under its headline
	one "compare-chart-md" "$h" compare compare_base compare_slow --runs-dir "$R/cmp" \
		--judge-unpaired --chart compare-chart.svg
	for f in md json html; do
		one "history-$f" "$h" history --runs-dir "$R/hist" --format "$f"
	done
	for dir in cmp hist; do
		one "runs-$dir" "$h" runs --runs-dir "$R/$dir"
		one "runsj-$dir" "$h" runs --runs-dir "$R/$dir" --json
	done
	[ -d "$R/real" ] && render_real "$h"
	cd "$T" || exit 2
}

# The harvested runs (--runs): every run alone, each with itself and the
# next run of its runs directory, each rerun with its parent, and each runs
# directory's history.
render_real() {
	local h=$1 dir runs run prev tag parent f
	find "$R/real" -name run.db -printf '%h\n' | sed 's|/[^/]*$||' | sort -u >"$out/.dirs"
	while read -r dir; do
		tag=$(echo "${dir#"$R"/real/}" | tr '/' '_')
		runs=$(find "$dir" -mindepth 2 -maxdepth 2 -name run.db -printf '%h\n' | sed 's|.*/||' | sort)
		prev=
		for run in $runs; do
			mkdir -p "rep-$tag-$run"
			one "report-$tag-$run" "$h" report "$run" --runs-dir "$dir" \
				--format md,html,json,csv -o "rep-$tag-$run"
			audits "$tag-$run" "$h" "$run" "$dir"
			one "planj-$tag-$run" "$h" rerun "$run" --runs-dir "$dir" --plan --json
			one "knee-$tag-$run" "$h" knee "$run" --runs-dir "$dir" --json
			one "status-$tag-$run" "$h" status "$run" --runs-dir "$dir" --json
			one "statust-$tag-$run" "$h" status "$run" --runs-dir "$dir"
			parent=$(sqlite3 "$dir/$run/run.db" "SELECT parent_run FROM runs" 2>/dev/null)
			for p in "$run $run" ${prev:+"$prev $run"} \
				 ${parent:+"$parent $run"}; do
				set -- $p
				[ -f "$dir/$1/run.db" ] || continue
				for f in md json html; do
					one "compare-$tag-$1-$2-$f" "$h" compare "$1" "$2" --runs-dir "$dir" \
						--judge-unpaired --format "$f" --junit "compare-$tag-$1-$2-$f.xml"
				done
			done
			prev=$run
		done
		for f in md json html; do
			one "history-$tag-$f" "$h" history --runs-dir "$dir" --format "$f"
		done
		one "runsj-$tag" "$h" runs --runs-dir "$dir" --json
	done <"$out/.dirs"
	rm -f "$out/.dirs"
}

render "$OLD" "$T/old"
render "$NEW" "$T/new"
# Fail closed: a build that cannot read the stored runs proves nothing.
for b in old new; do
	for f in "$T/$b"/report-*.rc; do
		[ "$(cat "$f")" = 0 ] && continue
		echo "same_outputs: the $b build's $(basename "$f" .rc) exited $(cat "$f"):" \
			"$(head -c 300 "${f%.rc}.err")" >&2
		exit 2
	done
done
for b in old new; do
	v=$([ $b = old ] && "$OLD" --version || "$NEW" --version)
	v=${v#harness }
	grep -rlF -- "$v" "$T/$b" | while read -r f; do
		sed -i "s|$v|VERSION|g" "$f"
	done
done
n=$(find "$T/new" -type f | wc -l)
if diff -r "$T/old" "$T/new" >"$T/diff"; then
	echo "same_outputs: $n files, every one the same ($OLD vs $NEW)"
	exit 0
fi
cat "$T/diff"
echo "same_outputs: $(grep -c '^diff ' "$T/diff") of $n files differ" >&2
exit 1
