/*
 * test_runner: the runner's decisions, driven in-process by fake arms
 * (an armops backend, tests/unit/fake_arm.h) on a fake clock, through
 * runner_run's seams (runner.h): no process, no socket, no sleep. Each
 * fake arm has a latency model, a step at its knee: p99 FAST_MS at or
 * below knee_rps, SLOW_MS above; the SLO threshold sits between, so
 * every window's crossing is known in advance and the ladder, refine,
 * confirm and replacement decisions can be checked exactly.
 *
 * What is pinned (docs/DESIGN.md "Ladder", "Refine", "Confirm",
 * "Replacement windows", specs/README.md stages):
 *  - when to stop: the ladder stops rungs_past_knee rungs after every arm
 *    crossed, not at max_rps;
 *  - where to refine: each crossed arm's geometric bracket midpoints,
 *    step after step, at its own rate;
 *  - what to confirm: blocks at the rates bracketing each knee;
 *  - when to stop a rerun --until-decided: decided, or before the next
 *    block would end past its budget on the runner's (fake) clock, or
 *    when an arm fails its windows at a judged rate in the sequential
 *    blocks (the outcome rule; a rate that cannot be judged);
 *  - what to replace: a window rejected (its arm exited during it) is
 *    replaced once, in its cell, and the arm restarted;
 *  - what does not run: the arms not measured, and the dependencies only
 *    they use, frozen over each window;
 *  - what starts: a first start that never comes up healthy fails the
 *    run as that arm's ("start"), exit 3; a health wait is timed on the
 *    runner's clock (the fake's), not the host's.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_arm.h"
#include "report/compare.h"
#include "report/compare_seq.h"
#include "runner/runner.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "t.h"
#include "base/util.h"

#define SLO_MS 20

static char tmp[256];
/* YAML lines added to b's entry (each "    key: value\n"), "" by default */
static const char *b_lines = "";
/* the spec's warm-up: a whole second, no gate, unless a test says */
#define WARM_1S "warmup:\n  rate: { fixed_rps: 50 }\n  min_s: 1\n  max_s: 1\n" \
		"  trailing_s: 1\n  gates: []\n"
static const char *warm_lines = WARM_1S;

/* A spec of two implementations a (knee 300 req/s) and b (knee 700); the
 * stages as given (YAML lines under stages:). */
static const char *write_spec(const char *name, const char *stages, const char *extra)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.yaml", tmp, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f,
		"version: 1\n"
		"name: %s\n"
		"seed: 3\n"
		"slo: { percentile: 99, threshold_ms: %d, error_rate_max: 0.01 }\n"
		"implementations:\n"
		"  - name: a\n"
		"    start: [a-server, --port, \"{port}\"]\n"
		"    health: { url: \"http://127.0.0.1:{port}/\" }\n"
		"    restart: never\n"
		"  - name: b\n"
		"    start: [b-server, --port, \"{port}\"]\n"
		"    health: { url: \"http://127.0.0.1:{port}/\" }\n"
		"    env: { SIDE: \"%s\" }\n"
		"    reset: [reset-b]\n"
		"    reset_every: window\n"
		"    restart: never\n"
		"%s"
		"%s"
		"workload:\n"
		"  connections: 10000\n"
		"  preflight: { sends: 0 }\n"
		"  requests:\n"
		"    - { name: root, path: /, method: GET }\n"
		"stages:\n%s"
		"%s"
		"window_gates: [error_rate, sut_alive]\n",
		name, SLO_MS, extra && strstr(extra, "name: side") ? "127.0.0.1:{dep.side.port}" : "",
		b_lines, extra ? extra : "", stages, warm_lines);
	fclose(f);
	return path;
}

/* Run spec in the fake world with extra arms; the run id into id. */
static int run_arms(struct fake_world *w, const char *spec, char **id,
		    const struct run_arm *arms, size_t narms, int until)
{
	struct run_opts o;
	struct runner_seams seams;
	struct sbuf runs = SBUF_INIT;
	int code;

	fake_seams(w, &seams);
	memset(&o, 0, sizeof(o));
	sbuf_addf(&runs, "%s/runs", tmp);
	o.runs_dir = runs.buf;
	o.spec_path = spec;
	o.allow_dirty = 1;
	o.seams = &seams;
	o.arms = arms;
	o.narms = narms;
	o.until_decided = until;
	*id = runner_new_run_id(runs.buf, "unit");
	o.run_id = *id;
	code = runner_run(&o);
	sbuf_release(&runs);
	return code;
}

/* Run spec in the fake world; the run id into id (owned by the caller). */
static int run(struct fake_world *w, const char *spec, char **id)
{
	return run_arms(w, spec, id, NULL, 0, 0);
}

static int open_run(struct store *st, const char *id)
{
	struct sbuf runs = SBUF_INIT, dir = SBUF_INIT, rid = SBUF_INIT;
	int ret;

	sbuf_addf(&runs, "%s/runs", tmp);
	ret = store_open_run(st, runs.buf, id, &dir, &rid);
	sbuf_release(&runs);
	sbuf_release(&dir);
	sbuf_release(&rid);
	return ret;
}

/* The rates of impl's windows of stage (pre-registered: replaces none),
 * in id order, into v (at most n); how many. */
static size_t rates_of(struct store *st, const char *id, const char *stage, const char *impl,
		       double *v, size_t n)
{
	struct window_query q = { .stage = stage, .impl = impl };
	struct window_rows w;
	size_t i, m = 0;

	if (store_windows_load(st, id, &q, &w))
		return 0;
	for (i = 0; i < w.n && m < n; i++)
		if (!w.v[i].has_replaces)
			v[m++] = w.v[i].rate;
	window_rows_release(&w);
	return m;
}

static int has_rate(const double *v, size_t n, double r)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fabs(v[i] - r) < 1e-9)
			return 1;
	return 0;
}

static size_t count_events(struct store *st, const char *id, const char *kind)
{
	struct event_rows ev;
	size_t i, n = 0;

	if (store_events_load(st, id, -1, &ev))
		return 0;
	for (i = 0; i < ev.n; i++)
		n += !strcmp(ev.v[i].kind, kind);
	event_rows_release(&ev);
	return n;
}

/* The ladder 100, 200, 400, 800, 1600, 3200 (step 2): a crosses at 400,
 * b at 800; with rungs_past_knee 1 the ladder runs 1600 and stops there:
 * 3200 is never run, though max_rps allows it. */
TEST(ladder_stops_past_the_knee)
{
	struct fake_world w;
	struct store st;
	double v[16];
	size_t n;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	code = run(&w, write_spec("ladder",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 3200, reps: 1,"
				  " window_s: 2, discard_s: 0, stop: { rungs_past_knee: 1 } }\n",
				  NULL), &id);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	n = rates_of(&st, id, "ladder", "a", v, 16);
	CHECK(n == 5);
	CHECK(n == 5 && v[0] == 100 && v[1] == 200 && v[2] == 400 && v[3] == 800 && v[4] == 1600);
	CHECK(rates_of(&st, id, "ladder", "b", v, 16) == 5);
	CHECK(!has_rate(v, 5, 3200));
	/* every arm started once (restart: never), built never (no build) */
	CHECK(w.arms[0].starts == 1 && w.arms[1].starts == 1);
	CHECK(w.live == 0);          /* every instance stopped at the end */
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* Refine halves each crossed bracket geometrically, each arm at its own
 * rate: a's (200, 400] gives 283, then (283, 400] 336; b's (400, 800]
 * gives 566, then (566, 800] 673 (round(sqrt(lo * hi)), specs/README.md
 * stages.refine). Confirm then runs the refined brackets' rates. */
TEST(refine_and_confirm_where_the_knees_are)
{
	struct fake_world w;
	struct store st;
	double v[32];
	size_t n;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	code = run(&w, write_spec("refine",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 1600, reps: 1,"
				  " window_s: 2, discard_s: 0, stop: { rungs_past_knee: 1 } }\n"
				  "  refine: { reps: 1, max_steps: 2, resolution_pct: 5 }\n"
				  "  confirm: { reps: 1, window_s: 2, discard_s: 0, at: knee_bracket }\n",
				  NULL), &id);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	n = rates_of(&st, id, "refine", "a", v, 32);
	CHECK(n == 2 && v[0] == 283 && v[1] == 336);
	n = rates_of(&st, id, "refine", "b", v, 32);
	CHECK(n == 2 && v[0] == 566 && v[1] == 673);
	/* a's bracket is (283, 336], b's (673, 800]: confirm runs them */
	n = rates_of(&st, id, "confirm", "a", v, 32);
	CHECK(has_rate(v, n, 283) && has_rate(v, n, 336));
	CHECK(has_rate(v, n, 673) && has_rate(v, n, 800));
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* Blocks of stage at rate where both x and y have a valid window. */
static size_t valid_pairs(const struct window_rows *w, const char *x, const char *y)
{
	size_t i, j, n = 0;

	for (i = 0; i < w->n; i++)
		for (j = 0; j < w->n; j++)
			n += !strcmp(w->v[i].impl, x) && !strcmp(w->v[j].impl, y) &&
			     w->v[i].block == w->v[j].block && w->v[i].rate == w->v[j].rate &&
			     (w->v[i].status == WINDOW_ACCEPTED || w->v[i].status == WINDOW_FAILED) &&
			     (w->v[j].status == WINDOW_ACCEPTED || w->v[j].status == WINDOW_FAILED);
	return n;
}

/* A rerun's pair (b, b@base) loses two pairs when b's window is void in
 * its first block and b@base's in its second (their resets fail). One
 * replacement round holding both replacements would make each cell whole
 * (2 of 2 valid) but give back one pair: 1 of 2 for compare. The runner
 * replaces them in two rounds, each beside its partner's fresh window
 * (docs/DESIGN.md "Replacement windows"): 2 pairs. */
TEST(replaces_until_a_paired_cell_has_its_pairs)
{
	struct fake_world w;
	struct store st;
	struct window_query q = { .stage = "ladder" };
	struct window_rows rows;
	struct run_arm base = { .name = "b@base", .clone_of = "b", .src_dir = "/tmp" };
	size_t i, rejected = 0, replacements = 0;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700)->fail_resets = 1u << 0;       /* block 0 */
	fake_arm_add(&w, "b@base", 700)->fail_resets = 1u << 1;  /* block 1 */
	code = run_arms(&w, write_spec("pairs",
				       "  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 2,"
				       " window_s: 2, discard_s: 0 }\n", NULL),
			&id, &base, 1, 0);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_windows_load(&st, id, &q, &rows) == 0);
	for (i = 0; i < rows.n; i++) {
		rejected += rows.v[i].status == WINDOW_REJECTED;
		replacements += rows.v[i].has_replaces;
		printf("# %s block %d: %s%s\n", rows.v[i].impl, rows.v[i].block,
		       rows.v[i].status == WINDOW_REJECTED ? "rejected" : "valid",
		       rows.v[i].has_replaces ? " (a replacement)" : "");
	}
	CHECK(rejected == 2);
	CHECK(replacements == 2);
	CHECK(valid_pairs(&rows, "b", "b@base") == 2);
	CHECK(rows.n == 10);         /* 2 blocks of a, b, b@base; 2 rounds of b, b@base */
	window_rows_release(&rows);
	CHECK(count_events(&st, id, "replacement") == 2);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* b's reset fails before its second ladder window: that window is
 * rejected (reset_failed, a validity reason) and replaced once, in its
 * cell, by a window that is accepted (docs/DESIGN.md "Replacement
 * windows"); nothing else is replaced. */
TEST(replaces_a_rejected_window)
{
	struct fake_world w;
	struct store st;
	struct window_query q = { .stage = "ladder" };
	struct window_rows rows;
	size_t i, rejected = 0, replacements = 0;
	int64_t rej_id = -1;
	double rej_rate = 0;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	w.fail_cmd = "reset-b";
	w.fail_at = 2;
	code = run(&w, write_spec("replace",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n", "retries: { max_per_cell: 1 }\n"),
		   &id);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_windows_load(&st, id, &q, &rows) == 0);
	for (i = 0; i < rows.n; i++)
		if (rows.v[i].status == WINDOW_REJECTED) {
			rejected++;
			rej_id = rows.v[i].id;
			rej_rate = rows.v[i].rate;
			CHECK_STR(rows.v[i].impl, "b");
			CHECK(rows.v[i].reasons && strstr(rows.v[i].reasons, "reset_failed"));
		}
	for (i = 0; i < rows.n; i++)
		if (rows.v[i].has_replaces) {
			replacements++;
			CHECK(rows.v[i].replaces == rej_id);
			CHECK(rows.v[i].status == WINDOW_ACCEPTED);
			CHECK(rows.v[i].rate == rej_rate);
		}
	CHECK(rejected == 1);
	CHECK(replacements == 1);
	CHECK(rows.n == 5);          /* 2 rungs x 2 arms, and the replacement */
	window_rows_release(&rows);
	CHECK(count_events(&st, id, "reset_failed") == 1);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* b exits during its rung-1 window: that window fails (sut_alive, an
 * outcome: not replaced), a sut_exited event says so, and b is started
 * afresh for its next window. */
TEST(restarts_an_arm_that_exited)
{
	struct fake_world w;
	struct store st;
	struct window_query q = { .stage = "ladder", .impl = "b" };
	struct window_rows rows;
	size_t i, failed = 0;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700)->exit_at_rate = 200;
	code = run(&w, write_spec("exited",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 400, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n", NULL), &id);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_windows_load(&st, id, &q, &rows) == 0);
	for (i = 0; i < rows.n; i++)
		if (rows.v[i].status == WINDOW_FAILED) {
			failed++;
			CHECK(rows.v[i].rate == 200);
			CHECK(rows.v[i].has_replaces == 0);
		}
	CHECK(failed == 1);
	CHECK(rows.n == 3);
	window_rows_release(&rows);
	CHECK(count_events(&st, id, "sut_exited") == 1);
	CHECK(w.arms[1].starts == 2 && w.arms[0].starts == 1);
	CHECK(w.live == 0);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* Arms not measured do not run: in a's windows b is frozen, and so is
 * the dependency only b uses (side); in b's windows a is frozen and side,
 * b's own, runs (docs/DESIGN.md "Arms not being measured do not run").
 * side, on a backend that sees this host's files, is started with
 * HARNESS_DEP_DIR, its directory in the run (specs/README.md). */
TEST(freezes_the_arms_not_measured)
{
	struct fake_world w;
	struct store st;
	struct window_query q = { .stage = "ladder" };
	struct window_rows rows;
	struct window_idle_rows idle;
	size_t i, k, seen = 0;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	code = run(&w, write_spec("freeze",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n",
				  "dependencies:\n"
				  "  - name: side\n"
				  "    start: [side-server, --port, \"{port}\"]\n"
				  "    health: { url: \"http://127.0.0.1:{port}/\" }\n"), &id);
	CHECK(code == 0);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_windows_load(&st, id, &q, &rows) == 0);
	for (i = 0; i < rows.n; i++) {
		int is_a = !strcmp(rows.v[i].impl, "a"), other = 0, side = 0;

		CHECK(store_window_idle_load(&st, id, rows.v[i].id, &idle) == 0);
		for (k = 0; k < idle.n; k++) {
			CHECK_STR(idle.v[k].frozen, "fake");
			other += !strcmp(idle.v[k].name, is_a ? "b" : "a");
			side += !strcmp(idle.v[k].name, "dep-side");
		}
		/* the other arm once it has started (the first window may come
		 * before its first start) */
		CHECK(other <= 1 && side == is_a);
		seen += other;
		window_idle_rows_release(&idle);
	}
	CHECK(seen >= 2);
	CHECK(strlen(w.dep_dir) > strlen("/deps/side") &&
	      !strcmp(w.dep_dir + strlen(w.dep_dir) - strlen("/deps/side"), "/deps/side"));
	window_rows_release(&rows);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* rerun --until-decided of a against a@base, the same model: paired
 * blocks until the sequence decides (no change, after 3 rounds and 42 s
 * of the fake clock), or, with a budget of 0.5 min, until the next block
 * would end past it: inconclusive, stop max_minutes, never a guess
 * (docs/STATISTICS.md "Sequential rerun"); its elapsed time is the
 * runner's clock's. */
/* compare of run id against itself (its paired arm a), into c. */
static int until_compare(const char *id, struct compare *c)
{
	struct compare_opts o = { "a", 0, -1, -1 };
	struct cmp_run rb, rn;
	struct sbuf runs = SBUF_INIT;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	sbuf_addf(&runs, "%s/runs", tmp);
	if (cmp_run_load(&rb, runs.buf, id))
		goto out;
	if (cmp_run_load(&rn, runs.buf, id)) {
		cmp_run_release(&rb);
		goto out;
	}
	ret = compare_runs(c, &rb, &rn, &o);
out:
	sbuf_release(&runs);
	return ret;
}

static void until_decided(double max_minutes, const char *method, const char *want,
			  const char *stop, const char *outcome, int exit)
{
	struct fake_world w;
	struct store st;
	struct seq_rule *rules = NULL;
	struct run_arm base = { .name = "a@base", .clone_of = "a", .src_dir = "/tmp" };
	char extra[128];
	size_t n = 0;
	char *id = NULL;
	double t0;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	fake_arm_add(&w, "a@base", 300);
	t0 = w.now;
	snprintf(extra, sizeof(extra),
		 "compare: { metric: [p99], sequential: { max_minutes: %g%s%s } }\n",
		 max_minutes, method ? ", method: " : "", method ? method : "");
	code = run_arms(&w, write_spec("until",
				       "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				       " window_s: 2, discard_s: 0 }\n", extra),
			&id, &base, 1, 1);
	CHECK(code == exit);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_seq_rules_load(&st, id, &rules, &n) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK_STR(rules[0].stop, stop);
		CHECK_STR(rules[0].outcome, outcome);
		CHECK_STR(rules[0].method, want);
		CHECK_STR(rules[0].guard, "drop_worst_rise");   /* every new rule */
		printf("# %s%s: %s after %d rounds, %.0f s of the fake clock\n", want,
		       method ? "" : " (the default)",
		       rules[0].outcome, rules[0].rounds, rules[0].elapsed_s);
		CHECK(rules[0].elapsed_s <= max_minutes * 60);
		NEAR(rules[0].elapsed_s, w.now - t0, 1e-6, "the fake clock's seconds");
	}
	if (!strcmp(want, "median_cs")) {
		/* compare recomputes it from the stored run, by the stored method */
		struct compare c;
		struct sbuf js = SBUF_INIT;

		CHECK(until_compare(id, &c) == 0);
		CHECK(c.nimpls == 1 && c.impls[0].seq);
		if (c.nimpls == 1 && c.impls[0].seq) {
			CHECK(c.impls[0].seq->m[0].method == DECIDE_MEDIAN_CS);
			CHECK(c.impls[0].seq->answer == DECIDE_NO_CHANGE);
			CHECK(c.impls[0].seq->m[0].guard == 1);
			CHECK(c.impls[0].seq->m[0].guard_rule == DECIDE_GUARD_DROP_WORST_RISE);
			CHECK(strstr(c.impls[0].why, "[median_cs]") != NULL);
			compare_json(&c, &js);
			CHECK(strstr(js.buf, "median_cs") != NULL);
			if (!strstr(js.buf, "median_cs"))
				printf("%.2000s\n", js.buf);
		}
		compare_release(&c);
		sbuf_release(&js);
		/* a rule stored without a guard (a run before schema 21) is
		 * judged by the merged guard, every window */
		if (n == 1) {
			free(rules[0].guard);
			rules[0].guard = NULL;
			CHECK(store_seq_rule_put(&st, &rules[0]) == 0);
			CHECK(until_compare(id, &c) == 0);
			CHECK(c.nimpls == 1 && c.impls[0].seq &&
			      c.impls[0].seq->m[0].guard_rule == DECIDE_GUARD_MERGED &&
			      c.impls[0].seq->answer == DECIDE_NO_CHANGE);
			compare_release(&c);
		}
	} else if (n == 1) {
		/* a rule stored without a method (a run before schema 17) is
		 * judged by mean_cs, whatever latency's default is now: the
		 * same verdict, the same bytes as the stored mean_cs */
		struct compare c;
		struct sbuf js = SBUF_INIT, js0 = SBUF_INIT, md = SBUF_INIT, md0 = SBUF_INIT;

		CHECK(until_compare(id, &c) == 0);
		compare_json(&c, &js);
		compare_md(&c, &md);
		compare_release(&c);
		free(rules[0].method);
		rules[0].method = NULL;
		CHECK(store_seq_rule_put(&st, &rules[0]) == 0);
		CHECK(until_compare(id, &c) == 0);
		CHECK(c.nimpls == 1 && c.impls[0].seq &&
		      c.impls[0].seq->m[0].method == DECIDE_MEAN_CS);
		compare_json(&c, &js0);
		compare_md(&c, &md0);
		compare_release(&c);
		CHECK_STR(js0.buf, js.buf);
		CHECK_STR(md0.buf, md.buf);
		sbuf_release(&js);
		sbuf_release(&js0);
		sbuf_release(&md);
		sbuf_release(&md0);
	}
	seq_rules_free(rules, n);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

TEST(until_decided_stops_when_decided_or_out_of_time)
{
	until_decided(60, "mean_cs", "mean_cs", "decided", "no change", 0);
	until_decided(0.5, "mean_cs", "mean_cs", "max_minutes", "inconclusive", 3);
	/* median_cs, latency's default (no method in the spec): no change
	 * needs 8 pairs (alpha 0.05, one metric: 4 rounds of the 2 rates)
	 * and the merged histograms within the margin; stored, so compare
	 * recomputes it */
	until_decided(60, NULL, "median_cs", "decided", "no change", 0);
}

/* rerun --until-decided where one arm answers 500 to everything from its
 * load `from` on (its 4 pre-registered loads, 2 warm-ups and 2 windows,
 * pass): a failing, @base holding, is a regression by compare's outcome
 * rule as soon as most of a's valid windows at a judged rate failed (100
 * req/s: 1 accepted + 2 failed of 3, after 3 sequential blocks); @base
 * failing is not a's regression, but its rate can no longer be judged
 * once 3 failed pairs outnumber the 1 usable there: inconclusive. Before,
 * both ran blocks at the failing rate alone until max_minutes. */
static void until_failing(const char *failing, const char *stop, const char *outcome, int exit)
{
	struct fake_world w;
	struct store st;
	struct seq_rule *rules = NULL;
	struct run_arm base = { .name = "a@base", .clone_of = "a", .src_dir = "/tmp" };
	size_t n = 0;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	fake_arm_add(&w, "a@base", 300);
	w.arms[fake_index(failing)].fail_from_load = 5;
	code = run_arms(&w, write_spec("failing",
				       "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				       " window_s: 2, discard_s: 0 }\n",
				       "compare: { metric: [p99],"
				       " sequential: { max_minutes: 60 } }\n"),
			&id, &base, 1, 1);
	CHECK(code == exit);
	CHECK(open_run(&st, id) == 0);
	CHECK(store_seq_rules_load(&st, id, &rules, &n) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK_STR(rules[0].stop, stop);
		CHECK_STR(rules[0].outcome, outcome);
		CHECK(rules[0].blocks <= 6);
	}
	seq_rules_free(rules, n);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

TEST(until_decided_failed_windows_never_hold_a_rate_back)
{
	until_failing("a", "outcome", "regression", 1);
	until_failing("a@base", "failed_windows", "inconclusive", 3);
}

/* a never comes up healthy: the run fails as a's start (exit 3, the
 * spec's own implementation), before any window; b is never loaded. */
TEST(first_start_unhealthy_fails_the_run)
{
	struct fake_world w;
	struct store st;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300)->unhealthy = 1;
	fake_arm_add(&w, "b", 700);
	code = run(&w, write_spec("unhealthy",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n", NULL), &id);
	CHECK(code == 3);
	CHECK(open_run(&st, id) == 0);
	CHECK(count_events(&st, id, "start_failed") == 1);
	CHECK(w.loads_of[1] == 0 || w.arms[1].starts <= 1);
	CHECK(w.live == 0);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

/* A dependency whose tcp health never answers is given up after its
 * health timeout on the runner's clock: 30 s pass on the fake clock,
 * none on the host's. */
TEST(dependency_health_timeout_on_the_runners_clock)
{
	struct fake_world w;
	char *id = NULL;
	double t0 = now_wall();
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	code = run(&w, write_spec("dephealth",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n",
				  "dependencies:\n"
				  "  - name: db\n"
				  "    start: [db-server, --port, \"{port}\"]\n"
				  "    health: { tcp: \"127.0.0.1:{port}\", timeout_s: 30 }\n"),
		   &id);
	CHECK(code == 3);
	CHECK(w.slept_s >= 30 && w.slept_s < 31);
	CHECK(now_wall() - t0 < 20);   /* the host's time: no 30 s sleep */
	CHECK(w.live == 0);
	free(id);
	fake_world_release(&w);
}

/* A warm-up without gates ends at min_s, as the spec says: min_s 0 is no
 * warm-up load at all, min_s 0.5 a load of 0.5 s (stored warmup_s 0.5,
 * warm), whatever max_s. Before, it ran until the end of its first whole
 * second (a load asked for max_s, stopped after 1 s): the shortest
 * warm-up was 1 s. With a gate it runs until the gate passes, polled at
 * the end of each whole second (unchanged). */
static void warmup_length(const char *lines, double want_first_load_s, unsigned want_loads,
			  double want_warmup_s)
{
	struct fake_world w;
	struct store st;
	struct window_query q = { .stage = "ladder", .impl = "a" };
	struct window_rows rows;
	char *id = NULL;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	warm_lines = lines;
	code = run(&w, write_spec("warmlen",
				  "  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n", NULL), &id);
	warm_lines = WARM_1S;
	CHECK(code == 0);
	/* a: its warm-up (if any), then its one window of 2 s */
	CHECK(w.loads_of[0] == want_loads);
	NEAR(w.first_load_s[0], want_first_load_s, 1e-9, "the duration the load was asked");
	CHECK(open_run(&st, id) == 0);
	CHECK(store_windows_load(&st, id, &q, &rows) == 0);
	CHECK(rows.n == 1);
	if (rows.n == 1) {
		NEAR(rows.v[0].warmup_s, want_warmup_s, 1e-9, "the stored warm-up length");
		CHECK(rows.v[0].warm == 1);
		CHECK(rows.v[0].status == WINDOW_ACCEPTED);
	}
	window_rows_release(&rows);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

TEST(warmup_ends_at_min_s_without_gates)
{
	warmup_length("warmup: { rate: { fixed_rps: 50 }, min_s: 0, max_s: 1, trailing_s: 1,"
		      " gates: [] }\n", 2, 1, 0);
	warmup_length("warmup: { rate: { fixed_rps: 50 }, min_s: 0.5, max_s: 3, trailing_s: 1,"
		      " gates: [] }\n", 0.5, 2, 0.5);
	warmup_length(WARM_1S, 1, 2, 1);
}

/* The failure_kind of run id. */
static char *fail_kind_of(struct store *st, const char *id)
{
	struct run_record r;
	char *kind = NULL;

	run_record_init(&r);
	if (!run_record_load(st, id, &r))
		kind = r.failure_kind ? xstrdup(r.failure_kind) : NULL;
	run_record_release(&r);
	return kind;
}

/* A jailed arm (sandbox: always) whose reset or version probe hits its
 * sandbox's limits (an OOM kill in the command's cgroup): the run fails,
 * kind limit, with a sandbox_limit event, as a build's or a window's hit
 * does (exit 3: the spec's own implementation; a rerun's commit gets 1
 * from the same runner_arm_fault). Before, the hit was never read: the
 * run finished. */
static void limit_in_command(const char *name, const char *lines, const char *cmd)
{
	struct fake_world w;
	struct store st;
	char *id = NULL, *kind;
	int code;

	fake_world_init(&w);
	fake_arm_add(&w, "a", 300);
	fake_arm_add(&w, "b", 700);
	w.limit_cmd = cmd;
	b_lines = lines;
	code = run(&w, write_spec(name,
				  "  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1,"
				  " window_s: 2, discard_s: 0 }\n", NULL), &id);
	b_lines = "";
	CHECK(code == 3);
	CHECK(open_run(&st, id) == 0);
	CHECK(count_events(&st, id, "sandbox_limit") == 1);
	kind = fail_kind_of(&st, id);
	CHECK_STR(kind, "limit");
	CHECK(w.live == 0);
	free(kind);
	store_close(&st);
	free(id);
	fake_world_release(&w);
}

TEST(limit_hit_in_a_reset_fails_the_run)
{
	limit_in_command("resetlimit", "    sandbox: always\n", "reset-b");
}

TEST(limit_hit_in_a_version_probe_fails_the_run)
{
	limit_in_command("versionlimit", "    sandbox: always\n    version: [b-version]\n",
			 "b-version");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/test_runner.%d", (int)getpid());
	if (mkdir_p(tmp, 0755))
		return 1;
	RUN(ladder_stops_past_the_knee);
	RUN(refine_and_confirm_where_the_knees_are);
	RUN(replaces_a_rejected_window);
	RUN(replaces_until_a_paired_cell_has_its_pairs);
	RUN(restarts_an_arm_that_exited);
	RUN(freezes_the_arms_not_measured);
	RUN(until_decided_stops_when_decided_or_out_of_time);
	RUN(until_decided_failed_windows_never_hold_a_rate_back);
	RUN(first_start_unhealthy_fails_the_run);
	RUN(dependency_health_timeout_on_the_runners_clock);
	RUN(limit_hit_in_a_reset_fails_the_run);
	RUN(limit_hit_in_a_version_probe_fails_the_run);
	RUN(warmup_ends_at_min_s_without_gates);
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return t_done();
}
