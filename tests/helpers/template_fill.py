#!/usr/bin/env python3
"""template_fill.py TEMPLATE OUT SERVER [--short] [--repo DIR]: a specs/templates/ spec
with each implementation's CHANGE ME lines filled for SERVER (a testsrv
binary: --port {port}, /healthz, /runtime-stats), its requests a GET and a
POST testsrv answers, and, with --short, its stages cut to seconds (two
rungs, one rep, 1 s windows, no refine, confirm or soak, warm-up gates
that need no runtime stats): the tests run every template without
editing it by hand (tests/e2e/templates.sh, tests/slow/templates.sh)."""
import sys
import yaml

src, out, server = sys.argv[1], sys.argv[2], sys.argv[3]
short = "--short" in sys.argv[4:]
# --repo DIR: built and started there (build.sh, run.sh PORT), for rerun
repo = sys.argv[sys.argv.index("--repo") + 1] if "--repo" in sys.argv else None
spec = yaml.safe_load(open(src))
for im in spec["implementations"]:
    for k in ("build", "repo", "env", "cpus", "stats"):
        im.pop(k, None)
    im["start"] = [server, "--port", "{port}"]
    if repo:
        im.update({"repo": repo, "build": ["/bin/sh", "build.sh"],
                   "start": ["/bin/sh", "run.sh", "{port}"]})
    im["health"] = {"url": "http://127.0.0.1:{port}/healthz", "timeout_s": 10}
spec["workload"]["requests"] = [
    {"name": "echo", "weight": 3, "method": "POST", "path": "/echo", "body": "hi"},
    {"name": "healthz", "weight": 1, "method": "GET", "path": "/healthz"},
]
spec["workload"].pop("vars", None)
spec["workload"].pop("cpus", None)
spec["workload"]["threads"] = 1
if short:
    st = spec["stages"]
    lad = st["ladder"]
    lad.update({"start_rps": 100, "step": 2, "max_rps": 200, "reps": 1,
                "window_s": 1, "discard_s": 0})
    for k in ("refine", "confirm", "soak"):
        st.pop(k, None)
    spec["warmup"] = {"rate": {"fixed_rps": 100}, "min_s": 0, "max_s": 1,
                      "trailing_s": 0.5, "gates": []}
    spec.pop("retries", None)
    gates = spec.setdefault("gates", {})
    for g in ("gc_steady", "pools_warm", "min_calls"):
        gates.pop(g, None)
    spec["window_gates"] = [g for g in spec.get("window_gates", [])
                            if g in ("error_rate", "sut_alive", "oom", "throttled")]
yaml.safe_dump(spec, open(out, "w"), sort_keys=False)
