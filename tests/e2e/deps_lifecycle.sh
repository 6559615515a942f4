#!/bin/bash
# timing-free: setups, cycles and ports of a block-lifecycle dependency
# release-only: under make asan deps_headroom.sh, agent_dep.sh and agent_run.sh reach its code but 15 lines (runner_deps.c 12, runner_window.c 2, runner_freeze.c 1), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# dependencies[].lifecycle (issue 14): a `block` dependency is stopped and
# started afresh before each block, on the same port, its setup run again
# (event dep_cycle), and the implementation (restart: never) restarted with
# it, since its connections went to the old instance; a `run` dependency
# keeps one instance and one setup for the whole run.
. "$(dirname "$0")/../lib.sh"

cat >"$T/spec.yaml" <<EOF2
version: 1
name: deps-lifecycle
slo: { threshold_ms: 100 }
dependencies:
  - name: kept
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    setup: [sh, -c, "echo x >> $T/kept.setups"]
  - name: fresh
    lifecycle: block
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    setup: [sh, -c, "echo x >> $T/fresh.setups"]
$(front_of fresh)
stages:
  ladder: { start_rps: 50, step: 2, max_rps: 100, window_s: 2, reps: 2 }
retries: { max_per_cell: 0 }
EOF2

expect_exit "run with a block-lifecycle dependency" 0 \
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder --run-id one
q() { sqlite3 "$T/runs/one/run.db" "$1"; }
blocks=$(q "SELECT COUNT(DISTINCT stage || '/' || block) FROM windows WHERE status IS NOT NULL")
cmp_num "blocks run" "$blocks" ">=" 2
cmp_num "every window accepted: the front reached the fresh instance each time" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == \
	"$(q "SELECT COUNT(*) FROM windows WHERE status IS NOT NULL")"
cmp_num "the block dependency's setup ran once per block" "$(wc -l <"$T/fresh.setups")" == "$blocks"
cmp_num "the run dependency's setup ran once" "$(wc -l <"$T/kept.setups")" == 1
cmp_num "dep_cycle events: one per block after the first" \
	"$(q "SELECT COUNT(*) FROM events WHERE kind = 'dep_cycle' AND detail LIKE 'fresh:%'")" == $((blocks - 1))
cmp_num "the run dependency was never restarted" \
	"$(q "SELECT COUNT(*) FROM events WHERE kind = 'dep_restart' AND detail LIKE 'kept %'")" == 0
cmp_num "the fresh instances all listened on one port" \
	"$(q "SELECT COUNT(DISTINCT substr(detail, instr(detail, '127.0.0.1:'), 16)) FROM events WHERE kind IN ('dep_start', 'dep_restart') AND detail LIKE 'fresh %'")" == 1
cmp_num "the implementation (restart: never) started again with each fresh instance" \
	"$(q "SELECT COUNT(*) FROM events c JOIN events s ON s.window_id = c.window_id AND s.kind = 'sut_start' AND s.id > c.id WHERE c.kind = 'dep_cycle'")" == $((blocks - 1))
exit 0
