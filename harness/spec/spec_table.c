/*
 * spec_table: every key of the spec language, its type, range, default and
 * one line of help. The validator (spec_validate.c) and the JSON Schema
 * (spec_schema.c) both read these tables, so they cannot drift apart;
 * specs/README.md is checked against them by tests/e2e/spec.sh.
 */
#include <stddef.h>

#include "gate/gate.h"
#include "spec/spec_internal.h"
#include "base/hosttune.h"
#include "stat/decide.h"

#define O(type, member) offsetof(type, member)

static const char *const restart_names[] = { "per_window", "per_block", "never", NULL };
static const char *const stats_format_names[] = { "json", "prometheus", NULL };
static const char *const sandbox_mode_names[] = { "auto", "always", NULL };
static const char *const arrival_names[] = { "constant", "poisson", NULL };
static const char *const transport_names[] = { "auto", "native", "curl", NULL };
static const char *const backend_names[] = { "auto", "cgroup2", "cgroup1", "procfs", NULL };
static const char *const reset_every_names[] = { "window", "block", "run", NULL };
static const char *const engine_names[] = { "podman", "docker", NULL };
static const char *const lifecycle_names[] = { "run", "block", NULL };
/* decide.h enum decide_method, in its order */
static const char *const seq_method_names[] = { "mean_cs", "median_cs", NULL };
/* decide.h enum decide_margin_rule, in its order */
static const char *const seq_margin_rule_names[] = { "point", "base_bound", NULL };
static const char *const equivalence_names[] = { "off", "strict", NULL };
static const char *const at_names[] = { "knee_bracket", NULL };
/* bit i of spec_compare.metrics = 1 << i; CMP_P99 = 1, CMP_CPU_PER_REQUEST = 2 */
static const char *const http_names[] = { "1.1", "2", "h2c", NULL };
static const char *const metric_names[] = { "p99", "cpu_per_request", NULL };
static const char *const interval_names[] = { "hodges_lehmann", "t", NULL };
static const char *const correction_names[] = { "holm", "none", NULL };

/* ------------------------------------------------------- implementations */

static const struct field health_fields[] = {
	{ "url", FT_STR, F_PORT | F_URL, O(struct spec_impl, health_url), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "URL polled until it answers 2xx after start; {port} is substituted (give url or tcp)" },
	{ "tcp", FT_BOOL, F_DEF, O(struct spec_impl, health_tcp), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "true: healthy once a TCP connection to 127.0.0.1 at its port is accepted, for an implementation without a health route (give url or tcp)" },
	{ "timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_impl, health_timeout_s), 0, 0, 3600, 30, NULL, NULL, NULL, 0, 0, 0,
	  "seconds to wait for a healthy answer before the start counts as failed" },
	FIELD_END
};

static const struct field stats_fields[] = {
	{ "url", FT_STR, F_REQ | F_PORT | F_URL, O(struct spec_impl, stats_url), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "runtime-stats endpoint returning JSON or Prometheus text; {port} is substituted" },
	{ "format", FT_ENUM, F_DEF, O(struct spec_impl, stats_format), 0, 0, 0, STATS_JSON, NULL, stats_format_names, NULL, 0, 0, 0,
	  "json (signals are RFC 6901 pointers) or prometheus (text exposition format, as at /metrics; signals are metric selectors like db_pool{state=\"busy\"})" },
	{ "poll_hz", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_impl, stats_poll_hz), 0, 0, 100, 1, NULL, NULL, NULL, 0, 0, 0,
	  "polls per second during warm-up and windows" },
	{ "signals", FT_SIGNALS, 0, O(struct spec_impl, signals), O(struct spec_impl, nsignals), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "signal name -> RFC 6901 JSON pointer into the stats document (format json), or a metric selector name{label=\"value\"} (format prometheus); or a derived signal \"= EXPR\" over the others (specs/README.md, Derived signals)" },
	FIELD_END
};

static const struct field limits_fields[] = {
	{ "memory_mb", FT_MB, F_DEF | F_MIN | F_MAX, O(struct spec_impl, memory_max_bytes), 0, 0, 16777216, 0, NULL, NULL, NULL, 0, 0, 0,
	  "memory limit of the implementation's cgroup in MiB (0: none)" },
	{ "pids", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec_impl, pids_max), 0, 0, 4194304, 0, NULL, NULL, NULL, 0, 0, 0,
	  "process/thread limit of the implementation's cgroup (0: none)" },
	FIELD_END
};

#define C(member) O(struct spec_container, member)

static const struct field container_fields[] = {
	{ "image", FT_STR, 0, C(image), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "a local image to run as it is (no registry is contacted); with containerfile, the tag given to its build (default: localhost/harness-NAME:HASH of the repo path)" },
	{ "containerfile", FT_STR, 0, C(containerfile), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "Containerfile built (with --network=none, the arm's limits) before the arm starts, relative to repo; its SHA-256 is part of the spec hash; a build failure is the commit's (a rerun exits 1 \"failed to build\")" },
	{ "context", FT_STR, F_DEF, C(context), 0, 0, 0, 0, ".", NULL, NULL, 0, 0, 0,
	  "the build context directory, relative to repo" },
	{ "args", FT_ARGV, F_PORT, C(args), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "arguments after the image (its command, or its entrypoint's arguments); \"{port}\" is replaced by its port" },
	{ "env", FT_KV, F_PORT | F_ENVNAME, C(env), C(nenv), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "the container's environment (nothing of the harness's is passed); values may use {port}" },
	{ "port", FT_INT, F_MIN | F_MAX, C(port), 0, 1, 65535, 0, "chosen free", NULL, NULL, 0, 0, 0,
	  "the port it listens on inside the container, which {port} in health, stats and load then is (an implementation runs in its own network namespace that the harness enters; a dependency shares the host's network, so this port must be free)" },
	{ "engine", FT_ENUM, F_DEF, C(engine), 0, 0, 0, CTR_PODMAN, NULL, engine_names, NULL, 0, 0, 0,
	  "the container engine's CLI: podman (what the tests use) or docker (the same subset)" },
	FIELD_END
};

#undef C

static const struct field impl_fields[] = {
	{ "name", FT_STR, F_REQ | F_IDENT, O(struct spec_impl, name), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "unique name of the arm (letters, digits, _ . -)" },
	{ "repo", FT_STR, F_DEF, O(struct spec_impl, repo), 0, 0, 0, 0, ".", NULL, NULL, 0, 0, 0,
	  "its git work tree, relative to the spec's directory: recorded for provenance, working directory of build and start" },
	{ "build", FT_ARGV, 0, O(struct spec_impl, build), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "build command as an argv list (never a shell string), run in repo" },
	{ "version", FT_ARGV, 0, O(struct spec_impl, version), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run in repo after the build whose output (first 4 KiB) is recorded in the run and shown in the report, e.g. [go, version]" },
	{ "start", FT_ARGV, F_REQ_NOCTR | F_PORT, O(struct spec_impl, start), 0, 0, 0, 0, "**required** unless container", NULL, NULL, 0, 1, 0,
	  "start command as an argv list, run in repo; \"{port}\" is replaced by the port it must listen on (required unless container is given)" },
	{ "container", FT_OBJ, F_PRESENT, O(struct spec_impl, ctr), O(struct spec_container, present), 0, 0, 0, NULL, NULL, container_fields, 0, 0, 0,
	  "run it as a container instead of start (docs/DESIGN.md \"Containers\"): in its own network namespace, no capabilities beyond the engine's default (a rerun's commit: none, read-only root, its own user namespace), with cpus and limits as the engine's flags, accounted in the container's cgroup" },
	{ "env", FT_KV, F_PORT | F_ENVNAME, O(struct spec_impl, env), O(struct spec_impl, nenv), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "environment variables added to a minimal environment; values may use {port}" },
	{ "port", FT_INT, F_MIN | F_MAX, O(struct spec_impl, port), 0, 1, 65535, 0, "a free loopback port, chosen at each start", NULL, NULL, 0, 0, 0,
	  "the fixed port it listens on, for an implementation that cannot take {port} ({port} is then this number); one in use on 127.0.0.1 when it starts stops the run (exit 3)" },
	{ "paths", FT_KV, 0, O(struct spec_impl, paths), O(struct spec_impl, npaths), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "request name -> the path this implementation serves that request on (starting with /, as written: no template variables), for arms serving the same work on different paths; other requests keep their path" },
	{ "artifact", FT_STR, 0, O(struct spec_impl, artifact), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "the file or directory it ships as (a binary, a publish directory), relative to repo: its size (bytes, a directory's files summed) is in the report's footprint table, read after the build" },
	{ "health", FT_OBJ, F_REQ, 0, 0, 0, 0, 0, NULL, NULL, health_fields, 0, 0, 0,
	  "health check" },
	{ "stats", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, stats_fields, 0, 0, 0,
	  "runtime-stats endpoint (optional): polled during warm-up and windows, feeds the signal gates" },
	{ "cpus", FT_SCALAR, F_CPUS, O(struct spec_impl, cpus), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "cpu list the implementation is pinned to, e.g. \"2-3\" (default: not pinned)" },
	{ "restart", FT_ENUM, F_DEF, O(struct spec_impl, restart), 0, 0, 0, RESTART_PER_WINDOW, NULL, restart_names, NULL, 0, 0, 0,
	  "when the implementation is restarted" },
	{ "sandbox", FT_ENUM, F_DEF, O(struct spec_impl, sandbox), 0, 0, 0, SANDBOX_AUTO, NULL, sandbox_mode_names, NULL, 0, 0, 0,
	  "auto: bubblewrap only for untrusted code (a rerun's fetched commits); always: this implementation too, as its own uid with its repo read-only and the sandbox limits" },
	{ "reset", FT_ARGV, F_PORT, O(struct spec_impl, reset), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run in repo (with env, {port} substituted) once the implementation is up, before a window (see reset_every); its duration and exit code are recorded per window, and a failure rejects the window (reset_failed)" },
	{ "reset_every", FT_ENUM, F_DEF, O(struct spec_impl, reset_every), 0, 0, 0, RESET_WINDOW, NULL, reset_every_names, NULL, 0, 0, 0,
	  "when reset runs: before each of its windows, before its first window of each block, or once per invocation" },
	{ "reset_timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_impl, reset_timeout_s), 0, 0, 86400, 300, NULL, NULL, NULL, 0, 0, 0,
	  "seconds a reset may run before it is killed (its process group) and the window rejected (reset_failed)" },
	{ "limits", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, limits_fields, 0, 0, 0,
	  "cgroup limits" },
	{ "host", FT_STR, 0, O(struct spec_impl, host), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "run it on another host: an ssh destination (user@host, ssh://user@host:port, a Host of ~/.ssh/config; ssh options from workload.generator_options.ssh_options) where `ssh -T HOST BINARY agent --sut` starts, accounts and stops it with that host's cgroups; its repo path is its working directory there (build, version, start and reset run there), {host} in start, env, health and stats is the address ssh reached, and the load goes to that address; its health and stats URLs are checked and polled there, each runtime-stats poll and accounting sample streamed back as taken; a rerun's commit of it is fetched, built and started there (in a checkout its agent holds and removes), and with sandbox: always or as a rerun's commit it is jailed there (bwrap and the sandbox user on that host, {host} in start, env, health and stats then 127.0.0.1, the load relayed into its namespace by the agent) (default: this host)" },
	{ "host_binary", FT_STR, 0, O(struct spec_impl, host_binary), 0, 0, 0, 0, "harness", NULL, NULL, 0, 0, 0,
	  "the harness binary on that host (the same version as this one; letters, digits and / . _ - + ~ only)" },
	FIELD_END
};

/* ----------------------------------------------------------- dependencies */

#define D(member) O(struct spec_dep, member)

static const struct field dep_stats_fields[] = {
	{ "command", FT_ARGV, F_REQ | F_PORT, D(stats_cmd), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run in repo before and after every window's load (discard and drain included), e.g. [redis-cli, -p, \"{port}\", INFO] or psql reading pg_stat_statements; each output line \"NAME<sep>NUMBER\" (sep the last ':', '|', tab or space) is a counter NAME; lines \"time:STATEMENT|MS\" and \"calls:STATEMENT|N\" attribute the database's time per statement" },
	{ "demand", FT_STR, 0, D(stats_demand), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "the counter whose increase per second over a window is the dependency's demand (e.g. total_commands_processed), judged against its measured ceiling by dependency_headroom" },
	{ "signals", FT_SIGNALS, 0, D(stats_signals), D(nstats_signals), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "signal name -> a derived signal \"= EXPR\" over its counters, one value per window from the two readings (delta, last, min, max, mean; not rate), e.g. hit_rate: \"= delta(keyspace_hits) / (delta(keyspace_hits) + delta(keyspace_misses))\"; reported as NAME.SIGNAL per implementation per rung beside the implementations' signals (specs/README.md, Derived signals)" },
	{ "timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(stats_timeout_s), 0, 0, 600, 10, NULL, NULL, NULL, 0, 0, 0,
	  "seconds the command may run before it is killed (its reading is then missing)" },
	FIELD_END
};

static const struct field dep_ladder_fields[] = {
	{ "command", FT_ARGV, F_REQ | F_PORT, D(ladder_cmd), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv of the load run against it before the first window, once per rung, e.g. pgbench -R {rate} -T {duration} -f script.sql or redis-benchmark; {rate} (ops/s) and {duration} (s) are substituted; without {rate} it runs once (closed loop) and its throughput is the ceiling" },
	{ "throughput", FT_STR, F_REQ, D(ladder_throughput), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "POSIX extended regular expression over its output whose first group is the ops/s it achieved, e.g. \"tps = ([0-9.]+)\" or \"([0-9.]+) requests per second\"" },
	{ "start_rate", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(ladder_start), 0, 0, 1e9, 100, NULL, NULL, NULL, 0, 0, 0,
	  "the first rung, ops/s" },
	{ "step", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(ladder_step), 0, 1, 100, 1.5, NULL, NULL, NULL, 0, 0, 0,
	  "each rung is the previous x step" },
	{ "max_rate", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(ladder_max), 0, 0, 1e9, 1e6, NULL, NULL, NULL, 0, 0, 0,
	  "no rung above it (the ceiling is then \">= the last rung\")" },
	{ "duration_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(ladder_duration_s), 0, 0, 3600, 5, NULL, NULL, NULL, 0, 0, 0,
	  "seconds each rung runs ({duration})" },
	{ "tolerance_pct", FT_NUM, F_DEF | F_MIN | F_MAX, D(ladder_tolerance_pct), 0, 0, 100, 5, NULL, NULL, NULL, 0, 0, 0,
	  "a rung keeps up when it achieved at least (100 - tolerance_pct)% of its rate" },
	FIELD_END
};

static const struct field dep_health_fields[] = {
	{ "url", FT_STR, F_PORT | F_URL, D(impl.health_url), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "URL polled until it answers 2xx; {port} is substituted (give one of url, tcp, command)" },
	{ "tcp", FT_STR, F_PORT, D(health_tcp), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "\"127.0.0.1:{port}\": healthy once a TCP connection is accepted" },
	{ "command", FT_ARGV, F_PORT, D(health_cmd), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run in repo until it exits 0 (each try at most 5 s)" },
	{ "timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(impl.health_timeout_s), 0, 0, 3600, 30, NULL, NULL, NULL, 0, 0, 0,
	  "seconds to wait for it to be healthy before the run stops (exit 3)" },
	FIELD_END
};

static const struct field dep_fields[] = {
	{ "name", FT_STR, F_REQ | F_IDENT, D(impl.name), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "unique name; others refer to it as {dep.NAME.port} and {dep.NAME.host}" },
	{ "repo", FT_STR, F_DEF, D(impl.repo), 0, 0, 0, 0, ".", NULL, NULL, 0, 0, 0,
	  "working directory of start, health, version and setup, relative to the spec's directory" },
	{ "start", FT_ARGV, F_REQ_NOCTR | F_PORT, D(impl.start), 0, 0, 0, 0, "**required** unless container", NULL, NULL, 0, 1, 0,
	  "start command as an argv list; \"{port}\" is its own port, {dep.OTHER.port} an earlier dependency's (required unless container is given)" },
	{ "container", FT_OBJ, F_PRESENT, D(impl.ctr), O(struct spec_container, present), 0, 0, 0, NULL, NULL, container_fields, 0, 0, 0,
	  "run it as a container instead of start, sharing the host's network (it listens on 127.0.0.1:{port}), with cpus and limits as the engine's flags, accounted in the container's cgroup" },
	{ "env", FT_KV, F_PORT | F_ENVNAME, D(impl.env), D(impl.nenv), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "environment variables added to a minimal environment; values may use {port}" },
	{ "health", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, dep_health_fields, 0, 0, 0,
	  "health check (default: healthy while the process is alive)" },
	{ "cpus", FT_SCALAR, F_CPUS, D(impl.cpus), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "cpu list it is pinned to, e.g. \"0\"; dependency_headroom judges its CPU against these cores (default: every online cpu)" },
	{ "limits", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, limits_fields, 0, 0, 0,
	  "cgroup limits" },
	{ "version", FT_ARGV, F_PORT, D(version), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv whose output (first 4 KiB) is recorded in the run and shown in the report, e.g. [postgres, --version]" },
	{ "setup", FT_ARGV, F_PORT, D(setup), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run once per run after it is first healthy (schema, seed data); failing stops the run (exit 3)" },
	{ "reset", FT_ARGV, F_PORT, D(impl.reset), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "argv run before a window or block (see reset_every), e.g. truncating tables; its duration and exit code are recorded per window, and a failure rejects the window (reset_failed)" },
	{ "reset_every", FT_ENUM, F_DEF, D(impl.reset_every), 0, 0, 0, RESET_WINDOW, NULL, reset_every_names, NULL, 0, 0, 0,
	  "when reset runs: before every window, before the first window of each block, or once per invocation" },
	{ "reset_timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, D(impl.reset_timeout_s), 0, 0, 86400, 300, NULL, NULL, NULL, 0, 0, 0,
	  "seconds a reset may run before it is killed (its process group) and the window rejected (reset_failed)" },
	{ "host", FT_STR, 0, D(impl.host), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "run it on another host, as implementations[].host does (its start, version and setup run there, accounted there); {dep.NAME.host} is then that host's address (ssh -G's hostname), where it must listen on its port (chosen free here); its reset runs there too; health.url is checked there, health.tcp from here at that address; health.command and HARNESS_DEP_DIR are not available with it (default: this host)" },
	{ "host_binary", FT_STR, 0, D(impl.host_binary), 0, 0, 0, 0, "harness", NULL, NULL, 0, 0, 0,
	  "the harness binary on that host (the same version as this one)" },
	{ "stats", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, dep_stats_fields, 0, 0, 0,
	  "its own statistics, read by a command each window (optional): its demand, and the database's time per statement per implementation" },
	{ "ladder", FT_OBJ, F_PRESENT, 0, D(ladder_present), 0, 0, 0, NULL, NULL, dep_ladder_fields, 0, 0, 0,
	  "measure its ceiling before the run with a load of its own (optional): the highest rung it kept up with, stored, and judged against each window's demand by dependency_headroom" },
	{ "lifecycle", FT_ENUM, F_DEF, D(lifecycle), 0, 0, 0, DEP_LIFE_RUN, NULL, lifecycle_names, NULL, 0, 0, 0,
	  "run: one instance for the whole run; block: stopped and started afresh (setup again) before each block, the implementations restarted with it" },
	FIELD_END
};

#undef D

/* -------------------------------------------------------------- workload */

static const struct field expect_fields[] = {
	{ "status", FT_INTLIST, F_MIN | F_MAX, O(struct load_expect, status), O(struct load_expect, nstatus), 100, 599, 0, "any 2xx or 3xx", NULL, NULL, 0, 1, 0,
	  "the statuses that count as expected, e.g. [200, 201]" },
	{ "body_contains", FT_SCALAR, 0, O(struct load_expect, body_contains), O(struct load_expect, body_contains_len), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "bytes the response body must contain (at most 256); only these requests' bodies are read" },
	{ "content_type", FT_STR, 0, O(struct load_expect, content_type), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "the media type the response must declare, e.g. application/json (case-insensitive; parameters after ; ignored)" },
	{ "json", FT_KV, 0, O(struct load_expect, json), O(struct load_expect, njson), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "RFC 6901 JSON pointer -> the value expected there, e.g. { \"/id\": 42 } (a string by its text, a number by value, true/false/null by name; bodies up to 256 KiB)" },
	{ "max_bytes", FT_U64, F_DEF | F_MIN | F_MAX, O(struct load_expect, max_bytes), 0, 0, 1e15, 0, NULL, NULL, NULL, 0, 0, 0,
	  "largest response body accepted, in bytes (0: no limit)" },
	FIELD_END
};

static const struct field request_fields[] = {
	{ "name", FT_STR, F_REQ | F_IDENT, O(struct load_request, name), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "unique name of the request (letters, digits, _ . -)" },
	{ "weight", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct load_request, weight), 0, 0, 1e9, 1, NULL, NULL, NULL, 0, 0, 0,
	  "relative share of the mix" },
	{ "method", FT_STR, F_DEF | F_TOKEN, O(struct load_request, method), 0, 0, 0, 0, "GET", NULL, NULL, 0, 0, 0,
	  "HTTP method" },
	{ "path", FT_STR, F_REQ | F_PATH, O(struct load_request, path), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "request target, starting with /" },
	{ "headers", FT_KV, F_HDRNAME, O(struct load_request, headers), O(struct load_request, nheaders), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "header name -> value" },
	{ "body", FT_SCALAR, 0, O(struct load_request, body), O(struct load_request, body_len), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "request body (exclusive with body_file)" },
	{ "body_file", FT_STR, 0, O(struct load_request, body_file), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "file holding the body, relative to the spec's directory; must exist; its bytes are hashed" },
	{ "expect", FT_OBJ, 0, O(struct load_request, expect), 0, 0, 0, 0, NULL, NULL, expect_fields, 0, 0, 0,
	  "what a response must be; one that is not is an error of kind unexpected, counted in the error rate" },
	{ "slo_ms", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct load_request, slo_ms), 0, 0, 3600000, 0, NULL, NULL, NULL, 0, 0, 0,
	  "this request's own promise: its slo.percentile latency in ms (0: none); a window where any request misses its own fails the SLO" },
	FIELD_END
};

/* Template variables: offsets inside struct load_var's kind members. */
#define V(member) O(struct load_var, member)

static const struct field zipf_fields[] = {
	{ "n", FT_U64, F_REQ | F_MIN | F_MAX, V(zipf.n) - V(zipf), 0, 1, 1e12, 0, NULL, NULL, NULL, 0, 0, 0,
	  "ranks 1..n; the value is the rank" },
	{ "s", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, V(zipf.s) - V(zipf), 0, 0, 20, 0, NULL, NULL, NULL, 0, 0, 0,
	  "exponent: P(rank k) is proportional to k^-s" },
	FIELD_END
};

static const struct field sequence_fields[] = {
	{ "start", FT_U64, F_DEF | F_MIN | F_MAX, V(sequence.start) - V(sequence), 0, 0, 1e18, 1, NULL, NULL, NULL, 0, 0, 0,
	  "the value of the pool's first request; each next request's is one more" },
	FIELD_END
};

static const struct field uuid_fields[] = {
	FIELD_END
};

static const struct field var_fields[] = {
	{ "zipf", FT_OBJ, F_PRESENT, V(zipf), V(zipf.present) - V(zipf), 0, 0, 0, NULL, NULL, zipf_fields, 0, 0, 0,
	  "Zipf-distributed ranks (rejection-inversion sampling; docs/templates.md)" },
	{ "uniform", FT_INTLIST, F_MIN | F_MAX, V(uniform), V(nuniform), -1e9, 1e9, 0, NULL, NULL, NULL, 0, 2, 0,
	  "[lo, hi]: integers drawn uniformly, both ends included" },
	{ "csv", FT_STR, 0, V(csv), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "a CSV file with a header row, relative to the spec's directory (hashed with the spec); a row is drawn uniformly" },
	{ "column", FT_SCALAR, F_DEF, V(column), 0, 0, 0, 0, "1", NULL, NULL, 0, 0, 0,
	  "csv: the column whose value is used, by header name or 1-based number" },
	{ "sequence", FT_OBJ, F_PRESENT, V(sequence), V(sequence.present) - V(sequence), 0, 0, 0, NULL, NULL, sequence_fields, 0, 0, 0,
	  "consecutive integers, one per request of the pool" },
	{ "uuid", FT_OBJ, F_PRESENT, V(uuid), V(uuid.present) - V(uuid), 0, 0, 0, NULL, NULL, uuid_fields, 0, 0, 0,
	  "random version-4 UUIDs" },
	FIELD_END
};

#undef V

static const struct field tls_fields[] = {
	{ "cacert", FT_STR, 0, O(struct spec_workload, tls.cacert) - O(struct spec_workload, tls), 0, 0, 0, 0, "the system's", NULL, NULL, 0, 0, 0,
	  "PEM file of the CA certificates the implementations' certificates are verified with, relative to the spec's directory" },
	{ "insecure", FT_BOOL, F_DEF, O(struct spec_workload, tls.insecure) - O(struct spec_workload, tls), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "do not verify the implementations' certificates" },
	FIELD_END
};

static const struct field preflight_fields[] = {
	{ "enforce", FT_BOOL, F_DEF, O(struct spec_preflight, enforce), 0, 0, 0, 1, NULL, NULL, NULL, 0, 0, 0,
	  "a failing pre-flight refuses the run (exit 3); false: recorded and shown only" },
	{ "sends", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_preflight, sends), 0, 0, 100, 1, NULL, NULL, NULL, 0, 0, 0,
	  "times each request is sent to each implementation (each send is one case; a templated request expanded afresh each time, from the pool); default 3 when workload.vars is set; 0: no pre-flight (recorded as not run)" },
	{ "equivalence", FT_ENUM, F_DEF, O(struct spec_preflight, equivalence), 0, 0, 0, EQUIV_OFF, NULL, equivalence_names, NULL, 0, 0, 0,
	  "strict: the implementations' responses to each case must agree (status, media type, JSON with keys in any order, other bodies byte for byte)" },
	{ "base", FT_ENUM, F_DEF, O(struct spec_preflight, base), 0, 0, 0, EQUIV_STRICT, NULL, equivalence_names, NULL, 0, 0, 0,
	  "strict: in a rerun with --with-baseline, each commit under test must answer every case as its @base does (compared as strict compares, ignore applied; what the base's own two answers differ on is left out); a difference is the commit's regression (exit 1). off: only each expect is checked" },
	{ "ignore", FT_ARGV, 0, O(struct spec_preflight, ignore), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "RFC 6901 JSON pointers left out of the strict comparisons (equivalence and base), e.g. [/id, /created_at]" },
	FIELD_END
};

static const struct field generator_fields[] = {
	{ "host", FT_STR, F_REQ, O(struct spec_generator, host), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "where the generator runs: an ssh destination (user@host, ssh://user@host:port, a Host of ~/.ssh/config), started as `ssh -T HOST BINARY agent`, or local" },
	{ "threads", FT_INT, F_MIN | F_MAX, O(struct spec_generator, threads), 0, 1, 256, 0, "workload.threads", NULL, NULL, 0, 0, 0,
	  "its generator threads" },
	{ "cpus", FT_SCALAR, F_CPUS, O(struct spec_generator, cpus), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "cpu list its threads are pinned to on its host (default: not pinned)" },
	{ "binary", FT_STR, 0, O(struct spec_generator, binary), 0, 0, 0, 0, "harness", NULL, NULL, 0, 0, 0,
	  "the harness binary on that host (the same version as this one; letters, digits and / . _ - + ~ only)" },
	FIELD_END
};

static const struct field generator_options_fields[] = {
	{ "ssh_options", FT_ARGV, 0, O(struct spec_workload, ssh_options), 0, 0, 0, 0, NULL, NULL, NULL, 0, 1, 0,
	  "options passed to ssh as -o OPTION each, e.g. [IdentityFile=~/.ssh/bench]" },
	{ "max_offset_ms", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_workload, max_offset_ms), 0, 0, 10000, 5, NULL, NULL, NULL, 0, 0, 0,
	  "a generator's clock offset uncertainty (half the best exchange's round trip), or the change of its offset over the window, above this voids the window (reason clock_offset, validity)" },
	{ "target_host", FT_STR, 0, O(struct spec_workload, target_host), 0, 0, 0, 0, "127.0.0.1", NULL, NULL, 0, 0, 0,
	  "the address the generators load the implementation at (it must listen there)" },
	FIELD_END
};

static const struct field workload_fields[] = {
	{ "arrival", FT_ENUM, F_DEF, O(struct spec_workload, arrival), 0, 0, 0, ARRIVAL_CONSTANT, NULL, arrival_names, NULL, 0, 0, 0,
	  "open-loop schedule: evenly spaced or Poisson (seeded)" },
	{ "connections", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_workload, connections), 0, 1, 100000, 64, NULL, NULL, NULL, 0, 0, 0,
	  "most connections open at once" },
	{ "backlog_max", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_workload, backlog_max), 0, 0, 10000000, 10000, NULL, NULL, NULL, 0, 0, 0,
	  "requests due but waiting for a free connection; beyond it they are counted as dropped" },
	{ "timeout_ms", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_workload, timeout_ms), 0, 1, 3600000, 5000, NULL, NULL, NULL, 0, 0, 0,
	  "a request unanswered after this long is an error" },
	{ "threads", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_workload, threads), 0, 1, 256, 1, NULL, NULL, NULL, 0, 0, 0,
	  "load generator threads (each owns its connections and slice of the schedule)" },
	{ "cpus", FT_SCALAR, F_CPUS, O(struct spec_workload, cpus), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "cpu list the load generator is pinned to (default: not pinned)" },
	{ "transport", FT_ENUM, F_DEF, O(struct spec_workload, transport), 0, 0, 0, TRANSPORT_AUTO, NULL, transport_names, NULL, 0, 0, 0,
	  "load engine: native (epoll + http-parser, HTTP/1.1), curl (libcurl multi), auto (native for http://)" },
	{ "requests", FT_LIST, F_REQ, O(struct spec_workload, requests), O(struct spec_workload, nrequests), 0, 0, 0, NULL, NULL, request_fields,
	  sizeof(struct load_request), 1, 0, "the weighted request mix" },
	{ "generators", FT_LIST, 0, O(struct spec_workload, generators), O(struct spec_workload, ngenerators), 0, 0, 0, NULL, NULL, generator_fields,
	  sizeof(struct spec_generator), 1, 0, "load generators on other hosts (agents over ssh, docs/AGENT_PROTOCOL.md) splitting the schedule exactly; absent: the load runs on this host" },
	{ "generator_options", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, generator_options_fields, 0, 0, 0,
	  "how the generators are reached and judged" },
	{ "preflight", FT_OBJ, 0, O(struct spec_workload, preflight), 0, 0, 0, 0, NULL, NULL, preflight_fields, 0, 0, 0,
	  "before the first window every request is sent to every implementation and checked against its expect (and, strict, against each other); a failure refuses the run (exit 3)" },
	{ "vars", FT_NAMED, 0, O(struct spec_workload, vars), O(struct spec_workload, nvars), 0, 0, 0, NULL, NULL, var_fields,
	  sizeof(struct load_var), 0, 0, "template variables: {NAME} in a request's path, header values and body takes a seeded value per request (give one of zipf, uniform, csv, sequence, uuid)" },
	{ "pool", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec_workload, pool), 0, 0, 100000000, 0, NULL, NULL, NULL, 0, 0, 0,
	  "requests pre-generated from the seed when there are vars, replayed from the start by every load (0: enough for the longest window at the top rate, at most 4000000); `check` prints its size and memory" },
	{ "http", FT_ENUM, F_DEF, O(struct spec_workload, http), 0, 0, 0, HTTPV_2, NULL, http_names, NULL, 0, 0, 0,
	  "HTTP version: 1.1; 2 (HTTP/2 by ALPN over https, 1.1 over http); h2c (HTTP/2 over plain TCP, prior knowledge); 2 and h2c use the curl transport" },
	{ "tls", FT_OBJ, F_PRESENT, O(struct spec_workload, tls), O(struct spec_workload, tls.present) - O(struct spec_workload, tls), 0, 0, 0, NULL, NULL, tls_fields, 0, 0, 0,
	  "the implementations serve https:// (health and stats URLs as written): load goes through the curl transport" },
	FIELD_END
};

/* ---------------------------------------------------------------- stages */

static const struct field stop_fields[] = {
	{ "rungs_past_knee", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_ladder, rungs_past_knee), 0, 0, 100, 1, NULL, NULL, NULL, 0, 0, 0,
	  "stop the ladder for an implementation this many rungs after its knee (at slo.percentile) crossed the SLO" },
	FIELD_END
};

static const struct field ladder_fields[] = {
	{ "start_rps", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, O(struct spec_ladder, start_rps), 0, 0, 1e7, 0, NULL, NULL, NULL, 0, 0, 0,
	  "offered rate of the first rung, requests per second" },
	{ "step", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, O(struct spec_ladder, step), 0, 1, 100, 0, NULL, NULL, NULL, 0, 0, 0,
	  "factor between rungs: rung k offers start_rps * step^k" },
	{ "max_rps", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, O(struct spec_ladder, max_rps), 0, 0, 1e7, 0, NULL, NULL, NULL, 0, 0, 0,
	  "highest rate offered (inclusive), >= start_rps" },
	{ "reps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_ladder, reps), 0, 1, 1000, 3, NULL, NULL, NULL, 0, 0, 0,
	  "blocks per rung (each block runs every implementation once)" },
	{ "window_s", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, O(struct spec_ladder, window_s), 0, 0, 86400, 0, NULL, NULL, NULL, 0, 0, 0,
	  "seconds of load per window, discard_s included (measured = window_s - discard_s)" },
	{ "discard_s", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_ladder, discard_s), 0, 0, 86400, 0, NULL, NULL, NULL, 0, 0, 0,
	  "seconds at the head of each window thrown away, < window_s" },
	{ "stop", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, stop_fields, 0, 0, 0,
	  "when to stop climbing" },
	FIELD_END
};

static const struct field until_fields[] = {
	{ "half_width_pct", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_until, half_width_pct), 0, 0, 100, 5, NULL, NULL, NULL, 0, 0, 0,
	  "stop once the confidence sequence of every paired difference (each pair of implementations, metric of compare.metric, confirm rate) has a half-width under this percentage of the pair's mean" },
	{ "max_reps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_until, max_reps), 0, 2, 1000, 30, NULL, NULL, NULL, 0, 0, 0,
	  "most confirm blocks per rate, the reps included (>= confirm.reps)" },
	FIELD_END
};

static const struct field confirm_fields[] = {
	{ "reps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_confirm, reps), 0, 1, 1000, 10, NULL, NULL, NULL, 0, 0, 0,
	  "blocks at each bracketing rate" },
	{ "window_s", FT_NUM, F_MIN | F_MINX | F_MAX, O(struct spec_confirm, window_s), 0, 0, 86400, 0, "stages.ladder.window_s", NULL, NULL, 0, 0, 0,
	  "seconds per window, discard_s included" },
	{ "discard_s", FT_NUM, F_MIN | F_MAX, O(struct spec_confirm, discard_s), 0, 0, 86400, 0, "stages.ladder.discard_s", NULL, NULL, 0, 0, 0,
	  "seconds discarded at the head of each window, < window_s" },
	{ "at", FT_ENUM, F_DEF | F_NOSTORE, 0, 0, 0, 0, 0, NULL, at_names, NULL, 0, 0, 0,
	  "where: the two ladder rungs bracketing each implementation's knee" },
	{ "until", FT_OBJ, F_PRESENT, O(struct spec_confirm, until), O(struct spec_until, present), 0, 0, 0, NULL, NULL, until_fields, 0, 0, 0,
	  "sequential confirm: after the reps blocks, one more block at a time until every paired interval is narrow enough (optional; docs/STATISTICS.md)" },
	FIELD_END
};

static const struct field refine_fields[] = {
	{ "reps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_refine, reps), 0, 1, 1000, 3, NULL, NULL, NULL, 0, 0, 0,
	  "blocks per refine step (each runs every refining implementation once, at its own midpoint)" },
	{ "resolution_pct", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_refine, resolution_pct), 0, 0, 100, 5, NULL, NULL, NULL, 0, 0, 0,
	  "stop refining a knee once its bracket (lo, hi] has hi <= lo * (1 + resolution_pct / 100)" },
	{ "max_steps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_refine, max_steps), 0, 1, 20, 4, NULL, NULL, NULL, 0, 0, 0,
	  "most midpoints run per implementation" },
	{ "window_s", FT_NUM, F_MIN | F_MINX | F_MAX, O(struct spec_refine, window_s), 0, 0, 86400, 0, "stages.ladder.window_s", NULL, NULL, 0, 0, 0,
	  "seconds per window, discard_s included" },
	{ "discard_s", FT_NUM, F_MIN | F_MAX, O(struct spec_refine, discard_s), 0, 0, 86400, 0, "stages.ladder.discard_s", NULL, NULL, 0, 0, 0,
	  "seconds discarded at the head of each window, < window_s" },
	FIELD_END
};

static const struct field soak_fields[] = {
	{ "window_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_soak, window_s), 0, 0, 604800, 600, NULL, NULL, NULL, 0, 0, 0,
	  "seconds of the single soak window per implementation, discard_s included" },
	{ "discard_s", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_soak, discard_s), 0, 0, 604800, 0, NULL, NULL, NULL, 0, 0, 0,
	  "seconds discarded at its head, < window_s" },
	{ "at_knee_fraction", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_soak, at_knee_fraction), 0, 0, 1, 0.8, NULL, NULL, NULL, 0, 0, 0,
	  "offered rate as a fraction of each implementation's own knee" },
	FIELD_END
};

static const struct field saturation_fields[] = {
	{ "connections", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_saturation, connections), 0, 1, 100000, 64, NULL, NULL, NULL, 0, 0, 0,
	  "connections, each sending its next request as soon as its answer came (closed loop: wrk -c, ab -c)" },
	{ "duration_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_saturation, duration_s), 0, 0, 86400, 10, NULL, NULL, NULL, 0, 0, 0,
	  "seconds of closed-loop load per implementation per rep (with requests: the most it may take)" },
	{ "requests", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec_saturation, requests), 0, 0, 1e12, 0, NULL, NULL, NULL, 0, 0, 0,
	  "stop after this many requests instead (ab -n; 0: for duration_s)" },
	{ "reps", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_saturation, reps), 0, 1, 1000, 3, NULL, NULL, NULL, 0, 0, 0,
	  "runs per implementation, interleaved (rep r runs the implementations rotated by r)" },
	{ "warmup_s", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_saturation, warmup_s), 0, 0, 86400, 2, NULL, NULL, NULL, 0, 0, 0,
	  "seconds of the same closed loop before each measured run, not recorded (0: none)" },
	FIELD_END
};

static const struct field stages_fields[] = {
	{ "ladder", FT_OBJ, F_REQ, O(struct spec, ladder), 0, 0, 0, 0, NULL, NULL, ladder_fields, 0, 0, 0,
	  "the rate ladder (required)" },
	{ "refine", FT_OBJ, F_PRESENT, O(struct spec, refine), O(struct spec_refine, present), 0, 0, 0, NULL, NULL, refine_fields, 0, 0, 0,
	  "after the ladder, the geometric midpoint of each crossed knee's bracket, step by step, until it is narrow enough (optional)" },
	{ "confirm", FT_OBJ, F_PRESENT, O(struct spec, confirm), O(struct spec_confirm, present), 0, 0, 0, NULL, NULL, confirm_fields, 0, 0, 0,
	  "extra blocks at the rates bracketing each knee (the refined bracket when refine ran), and at the rates confirm's own windows move it to (optional)" },
	{ "soak", FT_OBJ, F_PRESENT, O(struct spec, soak), O(struct spec_soak, present), 0, 0, 0, NULL, NULL, soak_fields, 0, 0, 0,
	  "one long window per implementation below its knee (optional)" },
	{ "saturation", FT_OBJ, F_PRESENT, O(struct spec, saturation), O(struct spec_saturation, present), 0, 0, 0, NULL, NULL, saturation_fields, 0, 0, 0,
	  "closed-loop maximum throughput per implementation, before the ladder (wrk/ab style; reported in its own table, never a knee or a window; optional)" },
	FIELD_END
};

/* ---------------------------------------------------------------- warm-up */

static const struct field rate_fields[] = {
	{ "knee_fraction", FT_NUM, F_MIN | F_MINX | F_MAX, O(struct spec_warmup, knee_fraction), 0, 0, 1, 0.5, "0.5 unless fixed_rps is given", NULL, NULL, 0, 0, 0,
	  "warm up at this fraction of the window's offered rate" },
	{ "min_rps", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_warmup, min_rps), 0, 0, 1e7, 100, NULL, NULL, NULL, 0, 0, 0,
	  "floor of the knee_fraction rate" },
	{ "fixed_rps", FT_NUM, F_MIN | F_MINX | F_MAX, O(struct spec_warmup, fixed_rps), 0, 0, 1e7, 0, NULL, NULL, NULL, 0, 0, 0,
	  "warm up at this fixed rate instead (exclusive with knee_fraction and min_rps)" },
	FIELD_END
};

static const struct field warmup_fields[] = {
	{ "rate", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, rate_fields, 0, 0, 0,
	  "warm-up rate" },
	{ "min_s", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_warmup, min_s), 0, 0, 86400, 20, NULL, NULL, NULL, 0, 0, 0,
	  "warm up at least this long (without gates: exactly this long; 0: no warm-up)" },
	{ "max_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_warmup, max_s), 0, 0, 86400, 180, NULL, NULL, NULL, 0, 0, 0,
	  "hard cap: past it the window runs and is marked under-warmed; >= min_s" },
	{ "trailing_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_warmup, trailing_s), 0, 0, 86400, 30, NULL, NULL, NULL, 0, 0, 0,
	  "the gates judge the trailing seconds of the warm-up; <= max_s" },
	{ "gates", FT_GATELIST, 0, O(struct spec_warmup, gates), O(struct spec_warmup, ngates), 0, 0, 0,
	  "every warm-up gate with no required parameter", NULL, NULL, 0, 0, GATE_PHASE_WARMUP,
	  "gates that must all pass, polled each second, before a window starts" },
	{ "head_gates", FT_GATELIST, 0, O(struct spec_warmup, head_gates), O(struct spec_warmup, nhead_gates), 0, 0, 0,
	  "p99_flat, p999_flat", NULL, NULL, 0, 0, GATE_PHASE_WARMUP,
	  "flatness gates (p99_flat, p999_flat) judging each window's discard_s head at the window's rate: the jump from the warm-up rate settled; [] for none" },
	{ "head_enforce", FT_BOOL, F_DEF, O(struct spec_warmup, head_enforce), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "a head gate that fails (or cannot be evaluated: discard_s too short) rejects the window (validity, reason head:NAME); false records only" },
	FIELD_END
};

/* ------------------------------------------------------------- the rest */

static const struct field slo_fields[] = {
	{ "percentile", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX | F_MAXX, O(struct spec_slo, percentile), 0, 0, 100, 99, NULL, NULL, NULL, 0, 0, 0,
	  "the latency percentile the promise is about, in (0, 100)" },
	{ "threshold_ms", FT_NUM, F_REQ | F_MIN | F_MINX | F_MAX, O(struct spec_slo, threshold_ms), 0, 0, 3600000, 0, NULL, NULL, NULL, 0, 0, 0,
	  "the promise: that percentile at or under this many milliseconds" },
	{ "error_rate_max", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_slo, error_rate_max), 0, 0, 1, 0.001, NULL, NULL, NULL, 0, 0, 0,
	  "fraction of failed requests the promise tolerates" },
	FIELD_END
};

static const struct field accounting_fields[] = {
	{ "backend", FT_ENUM, F_DEF, O(struct spec_accounting, backend), 0, 0, 0, ACCT_AUTO, NULL, backend_names, NULL, 0, 0, 0,
	  "where CPU and memory are read from (auto: cgroup2, then cgroup1, then procfs); procfs enforces no limit, so it is refused for sandboxed code (sandbox: always: spec error; a rerun's commits: exit 2; auto finding no cgroup for them: exit 3)" },
	{ "sample_ms", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_accounting, sample_ms), 0, 10, 10000, 50, NULL, NULL, NULL, 0, 0, 0,
	  "accounting sample period" },
	FIELD_END
};

static const struct field sequential_fields[] = {
	{ "max_minutes", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_sequential, max_minutes), 0, 0, 10080, 30, NULL, NULL, NULL, 0, 0, 0,
	  "harness rerun --until-decided: wall minutes of the whole rerun after which no more sequential blocks start (then inconclusive); --max-minutes overrides" },
	{ "max_blocks", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_sequential, max_blocks), 0, 1, 100000, 200, NULL, NULL, NULL, 0, 0, 0,
	  "harness rerun --until-decided: most sequential blocks (one rate, each arm once) added after the pre-registered ones" },
	{ "method", FT_ENUM, F_DEF, O(struct spec_sequential, method), 0, 0, 0, DECIDE_MEDIAN_CS, NULL, seq_method_names, NULL, 0, 0, 0,
	  "harness rerun --until-decided: how latency is judged: median_cs (the median of the pairs' log ratios, every judged rate's pair one observation: a sign-count confidence sequence, exact, and a window a busy host held back counts once; no decision before 8-9 pairs; 'no change' also needs the merged-histogram SLO percentile within the margin) or mean_cs (the mean log ratio, normal-mixture confidence sequence: can decide from 3 rounds, but one stalled round widens it for every round after); CPU per request always mean_cs (docs/STATISTICS.md)" },
	{ "margin_rule", FT_ENUM, F_DEF, O(struct spec_sequential, margin_rule), 0, 0, 0, DECIDE_MARGIN_POINT, NULL, seq_margin_rule_names, NULL, 0, 0, 0,
	  "harness rerun --until-decided: what \"no change\" is judged against: point (the margin from base's running medians: \"no change\" soonest; a call the wrong way stays within alpha, a \"no change\" at a true shift of exactly the margin is measured, not guaranteed: up to 3.5 % against alpha / metrics = 2.5 % in 60 rounds, on the improvement side, both exit 0) or base_bound (the margin from a time-uniform upper bound on base's median: that error within alpha by construction, but latency's \"no change\" not before ~10 rounds at two rates, and for unchanged code in a median 323 s instead of 195 s) (docs/STATISTICS.md \"Which margin rule\")" },
	FIELD_END
};

static const struct field compare_fields[] = {
	{ "margin_pct", FT_NUM, F_DEF | F_MIN | F_MAX | F_MAXX, O(struct spec_compare, margin_pct), 0, 0, 100, 5, NULL, NULL, NULL, 0, 0, 0,
	  "a change smaller than this percentage of the base value is not a regression (nor an improvement); the margin in a metric's units is the larger of this and the metric's absolute floor (margin_ms, margin_cpu_us)" },
	{ "margin_ms", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_compare, margin_ms), 0, 0, 60000, 0.75, NULL, NULL, NULL, 0, 0, 0,
	  "absolute floor of the latency margin (ms): a latency shift is beyond the margin only when beyond both margin_pct of the base and this; 0.75 ms lets a pull-request check on a shared runner resolve both \"no change\" and a 1 ms change of a ~3 ms p99 within 10 minutes" },
	{ "margin_cpu_us", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_compare, margin_cpu_us), 0, 0, 1000000, 2, NULL, NULL, NULL, 0, 0, 0,
	  "absolute floor of the CPU-per-request margin (us): a CPU shift is beyond the margin only when beyond both margin_pct of the base and this; 2 us is about one extra system call round trip per request" },
	{ "metric", FT_ENUMSET, F_DEF, O(struct spec_compare, metrics), 0, 0, 0, CMP_P99 | CMP_CPU_PER_REQUEST, NULL, metric_names, NULL, 0, 1, 0,
	  "metrics harness compare judges" },
	{ "alpha", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_compare, alpha), 0, 0, 0.5, 0.05, NULL, NULL, NULL, 0, 0, 0,
	  "error rate of each one-sided decision of harness compare (its intervals are at 1 - 2 alpha: 90% for 0.05)" },
	{ "min_pairs", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_compare, min_pairs), 0, 2, 1000, 3, NULL, NULL, NULL, 0, 0, 0,
	  "valid window pairs (both sides accepted or failed) needed at one rate or more before compare answers; fewer is inconclusive (exit 3)" },
	{ "interval", FT_ENUM, F_DEF, O(struct spec_compare, interval), 0, 0, 0, CMP_INTERVAL_HL, NULL, interval_names, NULL, 0, 0, 0,
	  "the shift and its interval: Hodges-Lehmann with Wilcoxon signed-rank / Mann-Whitney (robust), or the mean with a paired t / Welch interval; a run with confirm.until judges its paired cells by its confidence sequence" },
	{ "correction", FT_ENUM, F_DEF, O(struct spec_compare, correction), 0, 0, 0, CMP_CORRECT_HOLM, NULL, correction_names, NULL, 0, 0, 0,
	  "multiplicity across the rate x metric cells of one implementation's comparison: holm (a cell regresses only when its Holm-adjusted p is <= alpha) or none" },
	{ "sequential", FT_OBJ, F_PRESENT, O(struct spec_compare, sequential), O(struct spec_sequential, present), 0, 0, 0, NULL, NULL, sequential_fields, 0, 0, 0,
	  "the budget of harness rerun --until-decided: paired blocks at the judged rates until an anytime-valid confidence sequence decides every metric (docs/STATISTICS.md \"Sequential rerun\")" },
	FIELD_END
};

static const struct field retries_fields[] = {
	{ "max_per_cell", FT_INT, F_DEF | F_MIN | F_MAX, O(struct spec_retries, max_per_cell), 0, 0, 50, 3, NULL, NULL, NULL, 0, 0, 0,
	  "replacement windows every cell (stage x rate x implementation) may take for windows rejected by a validity reason; failed windows are valid and never replaced; 0: no replacement" },
	{ "extra_time_pct", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_retries, extra_time_pct), 0, 0, 1000, 25, NULL, NULL, NULL, 0, 0, 0,
	  "beyond max_per_cell, a cell still short takes more replacements (50 a cell at most) while the run's extra replacements took less than this percentage of the time its pre-registered windows took (warm-up and measured part, as stored); 0: the count alone" },
	FIELD_END
};

static const struct field sandbox_fields[] = {
	{ "user", FT_STR, F_DEF | F_IDENT, O(struct spec_sandbox, user), 0, 0, 0, 0, "harness-sut", NULL, NULL, 0, 0, 0,
	  "unprivileged user (created when missing) whose group untrusted code runs in (harness rerun); each untrusted arm of a run gets its own uid, inside bubblewrap" },
	{ "build_timeout_s", FT_NUM, F_DEF | F_MIN | F_MINX | F_MAX, O(struct spec_sandbox, build_timeout_s), 0, 0, 86400, 600, NULL, NULL, NULL, 0, 0, 0,
	  "a build running longer is killed" },
	{ "memory_mb", FT_MB, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, memory_max_bytes), 0, 0, 16777216, 4096, NULL, NULL, NULL, 0, 0, 0,
	  "memory limit of untrusted builds and runs in MiB (0: none); an OOM kill fails the arm (failure_kind limit)" },
	{ "pids", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, pids_max), 0, 0, 4194304, 4096, NULL, NULL, NULL, 0, 0, 0,
	  "process (task) limit of untrusted builds and runs (0: none); a refused fork fails the arm (failure_kind limit)" },
	{ "cpu_max", FT_NUM, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, cpu_max), 0, 0, 1024, 0, NULL, NULL, NULL, 0, 0, 0,
	  "CPU bandwidth of untrusted builds and runs in cores (cgroup CFS quota over 100 ms; 0: none); throttling is recorded per window, never a failure" },
	{ "relay_connections", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, relay_connections), 0, 1, 65536, 128, NULL, NULL, NULL, 0, 0, 0,
	  "connections from a sandboxed implementation to the run's dependencies relayed at once (each costs the harness two descriptors); one more is closed at once, counted, and fails the arm (failure_kind limit)" },
	{ "disk_mb", FT_MB, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, disk_max_bytes), 0, 16, 16777216, 1024, NULL, NULL, NULL, 0, 0, 0,
	  "disk quota of a rerun's fetched commit in MiB: its checkout, and what its build and its server write there, on an ext4 image of that size allocated in the run's directory when it is fetched (a runs filesystem without that room: exit 3), loop-mounted, removed when the run ends; filling it fails the arm (failure_kind limit)" },
	{ "log_mb", FT_MB, F_DEF | F_MIN | F_MAX, O(struct spec_sandbox, log_max_bytes), 0, 1, 1048576, 64, NULL, NULL, NULL, 0, 0, 0,
	  "size cap of each log file (stdout, stderr, build) of sandboxed code in MiB: past it a marker line, the rest is read and discarded (never a failure); the relay that writes it runs in the arm's cgroup (its CPU is the arm's)" },
	FIELD_END
};

static const struct field host_fields[] = {
	{ "require", FT_ENUMSET, 0, O(struct spec, host_require), 0, 0, 0, 0, "[]", hosttune_names, NULL, 0, 0, 0,
	  "host tuning a run needs: a host where one is not so, or where it cannot be read (no cpufreq in a VM), refuses the run (exit 3, one line); harness check warns about each one not so, required or not" },
	FIELD_END
};

const struct field spec_root_fields[] = {
	{ "version", FT_INT, F_REQ | F_MIN | F_MAX, O(struct spec, version), 0, 1, 1, 0, NULL, NULL, NULL, 0, 0, 0,
	  "spec language version; must be 1" },
	{ "name", FT_STR, F_REQ, O(struct spec, name), 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "name of the benchmark" },
	{ "seed", FT_U64, F_DEF | F_MIN | F_MAX, O(struct spec, seed), 0, 0, 18446744073709551615.0, 1, NULL, NULL, NULL, 0, 0, 0,
	  "seeds block orders, Poisson arrivals and the bootstrap" },
	{ "slo", FT_OBJ, F_REQ, O(struct spec, slo), 0, 0, 0, 0, NULL, NULL, slo_fields, 0, 0, 0,
	  "the latency promise that defines the knee" },
	{ "implementations", FT_LIST, F_REQ, O(struct spec, impls), O(struct spec, nimpls), 0, 0, 0, NULL, NULL, impl_fields,
	  sizeof(struct spec_impl), 1, 0, "the arms measured (one or more), interleaved in every block" },
	{ "dependencies", FT_LIST, 0, O(struct spec, deps), O(struct spec, ndeps), 0, 0, 0, NULL, NULL, dep_fields,
	  sizeof(struct spec_dep), 0, 0, "services the implementations use (database, cache, backend): started first, in order, shared, accounted per window" },
	{ "workload", FT_OBJ, F_REQ, O(struct spec, workload), 0, 0, 0, 0, NULL, NULL, workload_fields, 0, 0, 0,
	  "the open-loop load" },
	{ "stages", FT_OBJ, F_REQ, 0, 0, 0, 0, 0, NULL, NULL, stages_fields, 0, 0, 0,
	  "saturation, ladder, refine, confirm, soak" },
	{ "warmup", FT_OBJ, 0, O(struct spec, warmup), 0, 0, 0, 0, NULL, NULL, warmup_fields, 0, 0, 0,
	  "warm-up before every window" },
	{ "gates", FT_GATES, 0, O(struct spec, gates), O(struct spec, ngates), 0, 0, 0, NULL, NULL, NULL, 0, 0, 0,
	  "gate name -> parameters (every gate has enforce: true|false, default true)" },
	{ "window_gates", FT_GATELIST, 0, O(struct spec, window_gates), O(struct spec, nwindow_gates), 0, 0, 0,
	  "every window gate with no required parameter", NULL, NULL, 0, 0, GATE_PHASE_WINDOW,
	  "gates judged on every measured window; a failing enforced gate rejects it; idle_arms_quiet is added when left out" },
	{ "accounting", FT_OBJ, 0, O(struct spec, accounting), 0, 0, 0, 0, NULL, NULL, accounting_fields, 0, 0, 0,
	  "kernel CPU and memory accounting" },
	{ "retries", FT_OBJ, 0, O(struct spec, retries), 0, 0, 0, 0, NULL, NULL, retries_fields, 0, 0, 0,
	  "how many rejected windows are replaced so each cell reaches its pre-registered valid n" },
	{ "compare", FT_OBJ, F_PRESENT, O(struct spec, compare), O(struct spec_compare, present), 0, 0, 0, NULL, NULL, compare_fields, 0, 0, 0,
	  "what harness compare calls a regression" },
	{ "sandbox", FT_OBJ, 0, O(struct spec, sandbox), 0, 0, 0, 0, NULL, NULL, sandbox_fields, 0, 0, 0,
	  "limits for untrusted code (harness rerun)" },
	{ "host", FT_OBJ, 0, 0, 0, 0, 0, 0, NULL, NULL, host_fields, 0, 0, 0,
	  "what the host the run starts on must be (its facts are recorded whatever this says)" },
	FIELD_END
};
