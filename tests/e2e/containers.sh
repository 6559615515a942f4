#!/usr/bin/env bash
# timing-free: states, provenance, exit codes and leftovers of container arms (no CPU or latency figure)
# implementations[].container and dependencies[].container (issue 27)
# through podman: a FROM scratch image of the static test server, built
# from its Containerfile with no network, runs beside the same server
# native; a dependency runs as a container on the host's network and the
# container implementation reaches it through its own namespace (the
# dependency's port relayed in: testsrv --forward-port answers 502 when
# it cannot). check names the engine, its version and what runs; the
# run records the image id and the engine version; nothing is left. A
# missing image: check exit 2, run exit 3; a Containerfile that does not
# build: the user's own run exits 3, a rerun of such a commit exits 1
# (stored "boxed failed to build"). No engine in PATH: check exits 3. The CPU of a container against the
# same binary native, the OOM of a leaking one, kill -9 and resume, and a
# rerun of a branch whose Containerfile changed: tests/slow/containers.sh.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
mkdir -p "$T/repo/srv"
cc -O1 -static -D_GNU_SOURCE -pthread -o "$T/repo/srv/testsrv" "$ROOT/tests/helpers/testsrv.c" 2>"$T/cc.err" ||
	{ fail "static test server: $(tail -1 "$T/cc.err")"; exit 0; }
printf 'FROM scratch\nCOPY testsrv /testsrv\nENTRYPOINT ["/testsrv"]\n' >"$T/repo/srv/Containerfile"
cp "$HELPERS/testsrv" "$T/native-srv"

# The image's tag: localhost/harness-IMPL:<12 hex of SHA-256 of its repo
# path> (specs/README.md); the dependency runs the image boxed's build made.
tag=localhost/harness-boxed:$(printf '%s' "$T/repo" | sha256sum | cut -c1-12)
DEP="dependencies:
  - name: up
    container: { image: \"$tag\", args: [--port, \"{port}\"] }
    health: { tcp: \"127.0.0.1:{port}\" }"
write() { # FILE CONTAINER-OF-boxed [DEPENDENCIES FORWARD-ARGS]
	cat >"$1" <<YAML
version: 1
name: e2e-containers
seed: 7
slo: { percentile: 99, threshold_ms: 200 }
${3:-}
implementations:
  - name: native
    start: [$T/native-srv, --port, "{port}" ${4:-}]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
  - name: boxed
    repo: $T/repo
    container: $2
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
    limits: { memory_mb: 64, pids: 64 }
workload:
  connections: 4
  requests: [ { name: fwd, path: /x } ]
stages:
  ladder: { start_rps: 50, step: 2, max_rps: 50, reps: 1, window_s: 1, discard_s: 0 }
retries: { max_per_cell: 0 }
warmup: { rate: { fixed_rps: 20 }, min_s: 0, max_s: 0.5, trailing_s: 0.5, gates: [] }
window_gates: [error_rate, sut_alive, oom]
YAML
}
write "$T/spec.yaml" '{ containerfile: srv/Containerfile, context: srv, args: [--port, "{port}", --forward-port, "{dep.up.port}"] }' \
	"$DEP" ', --forward-port, "{dep.up.port}"'

"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id ctr$$ >/dev/null 2>"$T/run.err"
rc=$?
[ $rc = 0 ] || echo "# run: $(tail -3 "$T/run.err")"
cmp_num "a container implementation and dependency beside a native one: exit 0" "$rc" == 0
cmp_num "both windows accepted" "$(q ctr$$ "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 2
cmp_num "no 502: the container reached the dependency through its namespace" \
	"$(q ctr$$ "SELECT s5xx FROM windows WHERE impl = 'boxed'")" == 0
check "the container's window is accounted by the native arm's backend" \
	test "$(q ctr$$ "SELECT COUNT(DISTINCT acct_backend) FROM windows")" = 1
check "... with CPU in its cgroup" test "$(q ctr$$ "SELECT cpu_s > 0 FROM windows WHERE impl = 'boxed'")" = 1
prov=$(q ctr$$ "SELECT detail FROM events WHERE kind = 'impl_image' AND detail LIKE 'boxed:%'")
check "provenance: image id, digest, engine version, Containerfile hash ($prov)" \
	grep -Eq "^boxed: image $tag sha256:[0-9a-f]{64} \(digest ${tag%%:*}@sha256:[0-9a-f]{64}\), podman [0-9.]+.*srv/Containerfile sha256 $(sha256sum <"$T/repo/srv/Containerfile" | cut -c1-64)$" <<<"$prov"
id12=$(podman image inspect --format '{{.Id}}' "$tag" | sed 's/^sha256://' | cut -c1-12)
check "its version: the image's tag and short id, the engine's version" \
	test "$(q ctr$$ "SELECT detail FROM events WHERE kind = 'impl_version' AND detail LIKE 'boxed:%'")" = \
	"boxed: container $tag $id12, podman $(podman version --format '{{.Client.Version}}')"
check "started through the container backend (armops_ctr.c): its name and image in sut_start" \
	grep -Eq "^boxed started on http://127\.0\.0\.1:[0-9]+ \(start 1\) as container harness-h[0-9]+_[0-9]+-harness\.ctr$$\.boxed-[0-9]+ \(image $tag\)" \
	<<<"$(q ctr$$ "SELECT detail FROM events WHERE kind = 'sut_start'")"
check "... and the dependency's in dep_start" \
	grep -q "^up started on 127\.0\.0\.1:[0-9]* as container harness-" <<<"$(q ctr$$ "SELECT detail FROM events WHERE kind = 'dep_start'")"
check "the dependency's too" test "$(q ctr$$ "SELECT COUNT(*) FROM events WHERE kind = 'dep_version' AND detail LIKE 'up: container %'") $(q ctr$$ "SELECT COUNT(*) FROM events WHERE kind = 'dep_image' AND detail LIKE 'up: image %'")" = "1 1"
"$HARNESS" report ctr$$ --runs-dir "$RUNS" >/dev/null 2>&1
check "the report's versions show the image, short" \
	grep -q "^| implementation boxed | container $tag $id12, podman " "$RUNS/ctr$$/report/report.md"
check "... and in full in the provenance" \
	grep -Eq "^\| implementation boxed \(image\) \| image $tag sha256:[0-9a-f]{64} " "$RUNS/ctr$$/report/report.md"
check "no container of the run left" bash -c "! podman ps -a --format '{{.Names}}' | grep -q 'harness.ctr$$'"
check "no leftover marker" bash -c "! ls /run/harness-containers 2>/dev/null | grep -q 'harness.ctr$$'"

# rerun of a commit whose Containerfile does not build: the commit's
# failure, exit 1, stored as "boxed failed to build" (no window runs)
chmod 755 "$T"   # the rerun's sandbox user reaches its checkout under it
g() { git -C "$T/repo" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
git init -q -b main "$T/repo" && g add -A && g commit -qm main && g checkout -q -b broken &&
	printf 'FROM scratch\nCOPY no-such-file /x\n' >"$T/repo/srv/Containerfile" &&
	g commit -qam broken && g checkout -q main
"$HARNESS" rerun ctr$$ --runs-dir "$RUNS" --run-id nob$$ --impl "boxed=file://$T/repo#broken" \
	>/dev/null 2>"$T/nob.err"
rc=$?
[ $rc = 1 ] || echo "# rerun: $(tail -3 "$T/nob.err")"
cmp_num "rerun of a Containerfile that does not build: exit 1" "$rc" == 1
check "... stored: boxed failed to build (kind build)" \
	test "$(q nob$$ "SELECT failure || ' (' || failure_kind || ')' FROM runs")" = "boxed failed to build (build)"
podman rmi --force "localhost/harness-boxed:$(printf '%s' "$RUNS/nob$$/src/boxed" | sha256sum | cut -c1-12)" >/dev/null 2>&1

# check after the run: the dependency's image is boxed's build
"$HARNESS" check "$T/spec.yaml" >"$T/check.out" 2>"$T/check.err"
cmp_num "check exits 0" "$?" == 0
check "check names the engine and its version" grep -Eq "^  boxed +podman [0-9]+\.[0-9]+" "$T/check.out"
check "... the build without network" grep -Eq "^  boxed +build: .* build --network=none --pull=never " "$T/check.out"
check "... the explicit ulimits" grep -Eq -- "--ulimit=nofile=[0-9]+:[0-9]+ --ulimit=nproc=[0-9]+:[0-9]+" "$T/check.out"

# No engine in PATH: the host's (3), one line naming it and its package.
PATH=/nonexistent "$HARNESS" check "$T/spec.yaml" >/dev/null 2>"$T/noeng.err"
cmp_num "check without the engine: exit 3" "$?" == 3
check "... one line naming podman and its Debian package (the spec's warnings aside)" \
	test "$(grep -v ': warning: ' "$T/noeng.err")" = "harness: container engine podman not found in PATH (Debian package podman)"

# An image that is not there: the spec's error for check (2), the run
# cannot start it (3).
write "$T/missing.yaml" '{ image: "localhost/harness-e2e-missing:none", args: [--port, "{port}"] }'
"$HARNESS" check "$T/missing.yaml" >"$T/missing.out" 2>"$T/missing.err"
cmp_num "check of a missing image: exit 2" "$?" == 2
check "... and no plan or container listing on stdout" test ! -s "$T/missing.out"
check "... one line naming it" grep -q "implementations\[1\].container.image: localhost/harness-e2e-missing:none is not in podman's local images" "$T/missing.err"
"$HARNESS" run "$T/missing.yaml" --allow-dirty --runs-dir "$RUNS" --run-id miss$$ >/dev/null 2>"$T/miss-run.err"
cmp_num "run of a missing image: exit 3" "$?" == 3

# A Containerfile that does not build, in the user's own tree: exit 3.
printf 'FROM scratch\nCOPY no-such-file /x\n' >"$T/repo/srv/Broken"
write "$T/broken.yaml" '{ containerfile: srv/Broken, context: srv, args: [--port, "{port}"] }'
"$HARNESS" run "$T/broken.yaml" --allow-dirty --runs-dir "$RUNS" --run-id brk$$ >/dev/null 2>"$T/broken.err"
cmp_num "a Containerfile that does not build: exit 3" "$?" == 3
check "... its build failure named" grep -q "impl boxed: build (/usr/bin/podman) failed" "$T/broken.err"
# the image this test built goes with it (the harness keeps what it builds)
podman rmi --force "$tag" >/dev/null 2>&1
exit 0
