/*
 * test_compare: compare_runs on run databases this test writes with the
 * store (real schema) and real serialised histograms, so every expected
 * number is known exactly: a window "at v ms" holds 1000 requests all of
 * latency v, so its p99 is v within the histogram's bucket error (< 1%,
 * hist.h), and the merged p99 of windows at v1 < v2 < v3 is v3.
 */
#include "t.h"
#include "report/compare.h"
#include "base/hist.h"
#include "store/store.h"
#include "base/util.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpl[] = "/tmp/test_compare.XXXXXX";
static char *root;

static const char spec_text[] =
	"version: 1\n"
	"name: cmp\n"
	"seed: 7\n"
	"slo: { threshold_ms: 20 }\n"
	"implementations:\n"
	"  - { name: a, start: [./a, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"  - { name: b, start: [./b, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"workload:\n"
	"  requests: [ { name: root, path: / } ]\n"
	"stages:\n"
	"  ladder: { start_rps: 100, step: 2, max_rps: 800, window_s: 2, reps: 3 }\n"
	"compare: { margin_pct: 20, margin_ms: 0 }\n";

/* The same spec with the default latency floor (0.75 ms): the 0.5 ms shift of
 * run "paired" is within the margin there. */
static const char spec_text_floor[] =
	"version: 1\n"
	"name: cmp\n"
	"seed: 7\n"
	"slo: { threshold_ms: 20 }\n"
	"implementations:\n"
	"  - { name: a, start: [./a, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"  - { name: b, start: [./b, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"workload:\n"
	"  requests: [ { name: root, path: / } ]\n"
	"stages:\n"
	"  ladder: { start_rps: 100, step: 2, max_rps: 800, window_s: 2, reps: 3 }\n"
	"compare: { margin_pct: 20 }\n";

/* The same spec judged at the p99.9 (issue 11: compare uses slo.percentile). */
static const char spec_text_p999[] =
	"version: 1\n"
	"name: cmp\n"
	"seed: 7\n"
	"slo: { percentile: 99.9, threshold_ms: 20 }\n"
	"implementations:\n"
	"  - { name: a, start: [./a, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"  - { name: b, start: [./b, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }\n"
	"workload:\n"
	"  requests: [ { name: root, path: / } ]\n"
	"stages:\n"
	"  ladder: { start_rps: 100, step: 2, max_rps: 800, window_s: 2, reps: 3 }\n"
	"compare: { margin_pct: 20, margin_ms: 0 }\n";

struct fx {
	struct store st;
	const char *id;
	int next_block;
};

/* The run row's status and failure, and the commit of "a", for the next
 * fx_open (reset by it). */
static const char *fx_status = "finished", *fx_kind, *fx_impl, *fx_commit_a;
static const char *fx_spec = spec_text;

static void fx_open(struct fx *f, const char *id, const char *const *impls)
{
	struct sbuf p = SBUF_INIT;
	struct store_row r;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->id = id;
	sbuf_addf(&p, "%s/%s", root, id);
	mkdir_p(p.buf, 0755);
	sbuf_adds(&p, "/run.db");
	if (store_open(&f->st, p.buf, 1))
		abort();
	store_row_init(&r, "runs");
	store_row_text(&r, "id", id);
	store_row_text(&r, "spec_name", "cmp");
	store_row_text(&r, "spec_path", "spec.yaml");
	store_row_blob(&r, "spec_text", fx_spec, strlen(fx_spec));
	store_row_text(&r, "spec_hash", "feedface");
	store_row_int(&r, "seed", 7);
	store_row_text(&r, "stages", "ladder");
	store_row_real(&r, "created_at", 1e9);
	store_row_text(&r, "status", fx_status);
	if (fx_kind) {
		store_row_text(&r, "failure", "it failed");
		store_row_text(&r, "failure_kind", fx_kind);
	}
	if (fx_impl)
		store_row_text(&r, "failure_impl", fx_impl);
	store_row_text(&r, "harness_version", "test");
	if (store_row_insert(&f->st, &r, NULL))
		abort();
	for (i = 0; impls[i]; i++) {
		store_row_init(&r, "impls");
		store_row_text(&r, "run_id", id);
		store_row_text(&r, "name", impls[i]);
		store_row_int(&r, "ord", (int64_t)i);
		store_row_text(&r, "commit_id", fx_commit_a && !strcmp(impls[i], "a")
							? fx_commit_a
							: "0123456789abcdef0123456789abcdef01234567");
		if (store_row_insert(&f->st, &r, NULL))
			abort();
	}
	sbuf_release(&p);
	fx_status = "finished";
	fx_kind = fx_impl = fx_commit_a = NULL;
	fx_spec = spec_text;
}

/* Status and failing gates of the next fx_win's window (reset by it). */
static const char *fx_wstatus = "accepted", *fx_reasons;
/* > 0: the next fx_win's window has 5 of its 1000 requests at this many
 * ms (its p99 is still ms, its p99.9 this); reset by it. */
static double fx_tail_ms;

/* One accepted window of impl at rate: 1000 requests at ms each, cpu_s. */
static void fx_win(struct fx *f, const char *impl, const char *stage, int rung, int block,
		   double rate, double ms, double cpu_s)
{
	struct store_row r;
	struct hist h;
	struct sbuf blob = SBUF_INIT;
	int i;

	hist_init(&h);
	for (i = 0; i < 1000; i++)
		hist_record(&h, (uint64_t)((fx_tail_ms > 0 && i < 5 ? fx_tail_ms : ms) * 1e6));
	fx_tail_ms = 0;
	hist_serialize(&h, &blob);
	store_row_init(&r, "windows");
	store_row_text(&r, "run_id", f->id);
	store_row_text(&r, "stage", stage);
	store_row_int(&r, "rung", rung);
	store_row_int(&r, "block", block);
	store_row_int(&r, "slot", 0);
	store_row_text(&r, "impl", impl);
	store_row_real(&r, "rate", rate);
	store_row_text(&r, "state", "done");
	store_row_text(&r, "status", fx_wstatus);
	if (fx_reasons)
		store_row_text(&r, "reasons", fx_reasons);
	fx_wstatus = "accepted";
	fx_reasons = NULL;
	store_row_int(&r, "completed", 1000);
	store_row_int(&r, "due", 1000);
	store_row_int(&r, "s2xx", 1000);
	store_row_real(&r, "cpu_s", cpu_s);
	store_row_real(&r, "p99_ms", ms);
	store_row_blob(&r, "latency_hist", blob.buf, blob.len);
	if (store_row_insert(&f->st, &r, NULL))
		abort();
	/* A rejected window must be ignored whatever it holds. */
	store_row_init(&r, "windows");
	store_row_text(&r, "run_id", f->id);
	store_row_text(&r, "stage", "rejects");
	store_row_int(&r, "rung", rung);
	store_row_int(&r, "block", f->next_block++);
	store_row_int(&r, "slot", 0);
	store_row_text(&r, "impl", impl);
	store_row_real(&r, "rate", rate);
	store_row_text(&r, "state", "done");
	store_row_text(&r, "status", "rejected");
	store_row_int(&r, "completed", 1000);
	store_row_real(&r, "cpu_s", 100.0);
	store_row_real(&r, "p99_ms", 9999);
	if (store_row_insert(&f->st, &r, NULL))
		abort();
	hist_release(&h);
	sbuf_release(&blob);
}

static void fx_close(struct fx *f)
{
	store_close(&f->st);
}

#define NB 6
static const double jitter[NB] = { 0.95, 1.0, 1.05, 0.98, 1.02, 1.0 };

/* NB ladder blocks at 100 and 200 req/s for impl: ms latency (x1.5 at
 * 200), cpu_us per request, jitter per block (reversed when swap). */
static void fill(struct fx *f, const char *impl, double ms, double cpu_us, int swap_jitter)
{
	int k;
	for (k = 0; k < NB; k++) {
		double j = jitter[swap_jitter ? NB - 1 - k : k];
		fx_win(f, impl, "ladder", 0, k, 100, ms * j, cpu_us * j * 1000 / 1e6);
		fx_win(f, impl, "ladder", 1, 10 + k, 200, ms * j * 1.5, cpu_us * j * 1000 / 1e6);
	}
}

static void make(void)
{
	static const char *const ab[] = { "a", "b", NULL };
	static const char *const ab_base[] = { "a", "b", "a@base", NULL };
	struct fx f;
	int k;

	/* base: a at 1 ms, 50 us/request; b at 2 ms. */
	fx_open(&f, "base", ab);
	fill(&f, "a", 1.0, 50, 0);
	fill(&f, "b", 2.0, 80, 0);
	fx_close(&f);

	/* slow: a +5 ms at another commit; b unchanged (jitter swapped). */
	fx_commit_a = "ccccccccccccccccccccccccccccccccccccccccc";
	fx_open(&f, "slow", ab);
	fill(&f, "a", 6.0, 50, 0);
	fill(&f, "b", 2.0, 80, 1);
	fx_close(&f);

	/* paired: a slower by 0.5 ms in every block vs a@base; pairedfloor:
	 * the same windows under the default 1 ms latency floor. */
	for (int sp = 0; sp < 2; sp++) {
		fx_spec = sp ? spec_text_floor : spec_text;
		fx_open(&f, sp ? "pairedfloor" : "paired", ab_base);
		fill(&f, "a@base", 1.0, 50, 0);
		for (k = 0; k < NB; k++) {
			fx_win(&f, "a", "ladder", 0, k, 100, jitter[k] + 0.5, 50e-3 * jitter[k]);
			fx_win(&f, "a", "ladder", 1, 10 + k, 200, 1.5 * jitter[k] + 0.5,
			       50e-3 * jitter[k]);
		}
		fill(&f, "b", 2.0, 80, 0);
		fx_close(&f);
	}

	/* same: a equal to a@base in every block but block 3, which the host
	 * stalled (+50 ms). */
	fx_open(&f, "stall", ab_base);
	for (k = 0; k < 12; k++) {
		fx_win(&f, "a@base", "confirm", 0, k, 100, jitter[k % NB], 0.05);
		fx_win(&f, "a", "confirm", 0, k, 100, jitter[k % NB] + (k == 3 ? 50 : 0), 0.05);
	}
	fx_close(&f);

	/* fails: a answers errors at 200 req/s (failed windows), a@base holds. */
	fx_open(&f, "fails", ab_base);
	fill(&f, "a@base", 1.0, 50, 0);
	for (k = 0; k < NB; k++) {
		fx_win(&f, "a", "ladder", 0, k, 100, jitter[k], 50e-3);
		fx_wstatus = "failed";
		fx_reasons = "error_rate";
		fx_win(&f, "a", "ladder", 1, 10 + k, 200, jitter[k], 50e-3);
	}
	fx_close(&f);

	/* thin: a paired, but only 2 blocks valid. */
	fx_open(&f, "thin", ab_base);
	for (k = 0; k < NB; k++) {
		fx_wstatus = k < 2 ? "accepted" : "rejected";
		fx_win(&f, "a@base", "ladder", 0, k, 100, 1, 0.05);
		fx_win(&f, "a", "ladder", 0, k, 100, 1, 0.05);
	}
	fx_close(&f);

	/* the run of a commit that failed to build, of a control that did,
	 * of a host that could not prepare the sandbox user. */
	fx_status = "failed", fx_kind = "build", fx_impl = "a";
	fx_open(&f, "nobuild", ab_base);
	fx_close(&f);
	fx_status = "failed", fx_kind = "build", fx_impl = "a@base";
	fx_open(&f, "nobuild_base", ab_base);
	fx_close(&f);
	fx_status = "failed", fx_kind = "sandbox";
	fx_open(&f, "nosandbox", ab_base);
	fx_close(&f);

	/* kneepaired: a@base 5 ms at 100 and 200; a 5 ms at 100, 30 ms at 200. */
	fx_open(&f, "kneepaired", ab_base);
	for (k = 0; k < NB; k++) {
		fx_win(&f, "a@base", "ladder", 0, k, 100, 5 * jitter[k], 0.05);
		fx_win(&f, "a@base", "ladder", 1, 10 + k, 200, 5 * jitter[k], 0.05);
		fx_win(&f, "a", "ladder", 0, k, 100, 5 * jitter[k], 0.05);
		fx_win(&f, "a", "ladder", 1, 10 + k, 200, 30 * jitter[k], 0.05);
	}
	fx_close(&f);

	/* kneestall: a equal to a@base (5 ms) at one rung but one window the
	 * host stalled (100 ms): the rung's mean p99 crosses the 20 ms SLO. */
	fx_open(&f, "kneestall", ab_base);
	for (k = 0; k < NB; k++) {
		fx_win(&f, "a@base", "ladder", 0, k, 100, 5, 0.05);
		fx_win(&f, "a", "ladder", 0, k, 100, k == 2 ? 100 : 5, 0.05);
	}
	fx_close(&f);

	/* tail999 / tail99: a paired with a@base, equal in every block but
	 * for a 0.5% tail of 100 ms in a's windows (p99 unchanged, p99.9
	 * +99 ms); the same windows under a spec judged at the p99.9 and at
	 * the p99. */
	for (k = 0; k < 2; k++) {
		int b;

		fx_spec = k ? spec_text : spec_text_p999;
		fx_open(&f, k ? "tail99" : "tail999", ab_base);
		for (b = 0; b < NB; b++) {
			fx_win(&f, "a@base", "ladder", 0, b, 100, jitter[b], 0.05);
			fx_tail_ms = 100;
			fx_win(&f, "a", "ladder", 0, b, 100, jitter[b], 0.05);
		}
		fx_close(&f);
	}

	/* knee: a crosses the 20 ms SLO between 200 (10 ms) and 400 (30 ms). */
	fx_open(&f, "knee", ab);
	for (k = 0; k < 3; k++) {
		fx_win(&f, "a", "ladder", 0, k, 100, 5, 0.05);
		fx_win(&f, "a", "ladder", 1, 10 + k, 200, 10, 0.05);
		fx_win(&f, "a", "ladder", 2, 20 + k, 400, 30, 0.05);
		fx_win(&f, "b", "ladder", 0, k, 100, 5, 0.05);
	}
	fx_close(&f);
}

static int load2x(struct compare *c, const char *b, const char *n, const char *only,
		  int judge_unpaired, int interval, int correction)
{
	struct compare_opts o = { only, judge_unpaired, interval, correction };
	struct cmp_run rb, rn;

	memset(c, 0, sizeof(*c));
	if (cmp_run_load(&rb, root, b))
		return -2;
	if (cmp_run_load(&rn, root, n)) {
		cmp_run_release(&rb);
		return -2;
	}
	return compare_runs(c, &rb, &rn, &o);
}

static int load2o(struct compare *c, const char *b, const char *n, const char *only,
		  int judge_unpaired)
{
	return load2x(c, b, n, only, judge_unpaired, -1, -1);
}

static int load2(struct compare *c, const char *b, const char *n, const char *only)
{
	return load2o(c, b, n, only, 0);
}

static const struct cmp_impl *find(const struct compare *c, const char *name)
{
	size_t i;
	for (i = 0; i < c->nimpls; i++)
		if (!strcmp(c->impls[i].name, name))
			return &c->impls[i];
	return NULL;
}

/* BASE and NEW compared (load2, which must succeed), and its
 * implementation "a" (NULL when it has none). */
static const struct cmp_impl *impl_a(struct compare *c, const char *b, const char *n)
{
	CHECK(load2(c, b, n, NULL) == 0);
	return find(c, "a");
}

/* The margin of a metric by the spec's compare section (compare.h
 * cmp_margin_of with the metric's floor). */
static double cmp_margin_abs(const struct spec_compare *sc, unsigned metric, double base_value)
{
	double floor = metric == CMP_CPU_PER_REQUEST ? sc->margin_cpu_us : sc->margin_ms;

	return cmp_margin_of(sc->margin_pct, floor, base_value);
}

TEST(unpaired_is_advisory_unless_asked)
{
	struct compare c;
	const struct cmp_impl *a, *b;

	/* Nothing paired: both listed, neither judged, no answer (exit 3). */
	CHECK(load2(&c, "base", "slow", NULL) == 0);
	CHECK(c.nimpls == 2 && c.judged == 0 && c.exit_code == 3);
	a = find(&c, "a");
	CHECK(a && !a->judged && a->verdict == CMP_REGRESSION);
	compare_release(&c);

	/* --judge-unpaired: a (another commit) is judged, b (same commit) not. */
	CHECK(load2o(&c, "base", "slow", NULL, 1) == 0);
	CHECK(c.same_spec);
	NEAR(c.margin_pct, 20, 0, "the spec's compare.margin_pct");
	CHECK(c.judged == 1 && c.regressions == 1 && c.exit_code == 1);
	a = find(&c, "a");
	b = find(&c, "b");
	CHECK(a && b);
	if (a && b) {
		CHECK(a->judged && !b->judged);
		CHECK(!a->paired);
		CHECK(a->verdict == CMP_REGRESSION);
		CHECK(a->nrates == 2);
		/* merged p99 = the largest window's value (1.05 ms / 6.3 ms) */
		NEAR(a->rates[0].p99.base, 1.05, 1.05 * 0.01, "hist bucket error < 1%");
		NEAR(a->rates[0].p99.new_, 6.30, 6.30 * 0.01, "hist bucket error < 1%");
		CHECK(a->rates[0].p99.verdict == CMP_REGRESSION);
		/* CPU: sum cpu / sum completed = 50 us (jitter averages 1) */
		NEAR(a->rates[0].cpu.base, 50, 1e-9, "exact sums");
		NEAR(a->rates[0].cpu.new_, 50, 1e-9, "exact sums");
		CHECK(a->rates[0].cpu.verdict == CMP_NO_CHANGE);
		CHECK(a->rates[0].p99.nbase == NB && a->rates[0].p99.nnew == NB);
		CHECK(a->rates[0].vpairs == NB && a->max_vpairs == NB);
		/* Hodges-Lehmann over every new - base difference: 5 ms */
		NEAR(a->rates[0].p99.ci.mean, 5.0, 0.1, "bucket error on 1 and 6 ms");
		CHECK(b->verdict == CMP_NO_CHANGE);
		NEAR(b->rates[1].p99.base, 3.15, 3.15 * 0.01, "2 ms * 1.5 * 1.05");
	}
	compare_release(&c);

	/* --impl b: asked for, judged although unchanged. */
	CHECK(load2(&c, "base", "slow", "b") == 0);
	CHECK(c.nimpls == 1 && c.judged == 1 && c.exit_code == 0);
	compare_release(&c);
}

TEST(same_run)
{
	struct compare c;

	/* No paired arm: nothing to compare, an input error. */
	CHECK(load2(&c, "base", "base", NULL) == -1);
	compare_release(&c);
	/* Paired arms: compared (NEW's own control), the rest skipped (6
	 * pairs: uncorrected, see paired_by_block). */
	CHECK(load2x(&c, "paired", "paired", NULL, 0, -1, CMP_CORRECT_NONE) == 0);
	CHECK(c.same_run && c.nimpls == 1 && c.judged == 1 && c.exit_code == 1);
	compare_release(&c);
}

TEST(paired_by_block)
{
	struct compare c;
	const struct cmp_impl *a, *b;

	/* +0.5 ms in all 12 pairs (2 rates x 6 blocks). A cell's 6 pairs
	 * give at best 2^-6 = 0.0156, beyond its share of the family
	 * (weighted Holm: 0.2 alpha over 4 cells); the pooled latency test
	 * over both rates gives 2^-12 and decides (0.4 alpha of its own). */
	a = impl_a(&c, "base", "paired");
	CHECK(a && a->ncells == 4 && a->family == 6 && a->rates[0].p99.family == 6);
	CHECK(a && a->npooled == 2);
	if (a && a->npooled == 2) {
		NEAR(a->rates[0].p99.p_up, 1.0 / 64, 1e-12, "every pair rose: 2^-6");
		CHECK(a->rates[0].p99.padj_up > 0.05);
		CHECK(isinf(a->rates[0].p99.mde));
		CHECK(a->rates[0].p99.verdict == CMP_INCONCLUSIVE);
		CHECK(a->rates[0].p99.method == STAT_HL && c.correction == CMP_CORRECT_HOLM);
		CHECK(!a->pooled[0].cpu && a->pooled[0].nrates == 2 && a->pooled[0].npairs == 12);
		NEAR(a->pooled[0].p_up, 1.0 / 4096, 1e-15, "all 12 pairs rose: 2^-12");
		NEAR(a->pooled[0].padj_up, 1.0 / 4096 / 0.4, 1e-12, "first step, weight 0.4");
		CHECK(a->pooled[0].verdict == CMP_REGRESSION);
		CHECK(a->pooled[0].lo > a->pooled[0].margin);
		CHECK(a->verdict == CMP_REGRESSION && !strcmp(a->decided_by, "pooled test"));
		CHECK(c.exit_code == 1);
	}
	compare_release(&c);
	CHECK(load2x(&c, "base", "paired", NULL, 0, -1, CMP_CORRECT_NONE) == 0);
	CHECK(c.nimpls == 2 && c.judged == 1 && c.exit_code == 1);
	a = find(&c, "a");
	b = find(&c, "b");
	CHECK(a && b && a->judged && !b->judged);
	if (a) {
		CHECK(a->paired);
		CHECK(a->nrates == 2);
		CHECK(a->rates[0].p99.nnew == NB);
		/* +0.5 ms in every block: the paired interval is tight around 0.5
		 * although the windows spread by 10%. */
		NEAR(a->rates[0].p99.ci.mean, 0.5, 0.02, "bucket error on ~1.5 ms");
		CHECK(a->rates[0].p99.ci.hi - a->rates[0].p99.ci.lo < 0.2);
		CHECK(a->rates[0].p99.verdict == CMP_REGRESSION);
		CHECK(a->verdict == CMP_REGRESSION);
	}
	compare_release(&c);
}

TEST(one_stalled_window)
{
	struct compare c;
	const struct cmp_impl *a;

	/* 12 pairs, equal but one (+50 ms): the shift stays 0 and the
	 * interval inside the 20% margin, so "no change" (a t interval of the
	 * mean would be [-2.4, +10.7] ms: inconclusive). */
	a = impl_a(&c, "base", "stall");
	CHECK(a != NULL);
	if (a) {
		NEAR(a->rates[0].p99.ci.mean, 0, 0.02, "bucket error on ~1 ms");
		CHECK(a->rates[0].p99.ci.hi < 0.2);
		CHECK(a->rates[0].p99.verdict == CMP_NO_CHANGE);
		CHECK(a->verdict == CMP_NO_CHANGE);
	}
	CHECK(c.exit_code == 0);
	compare_release(&c);
}

TEST(outcome_failure_is_a_regression)
{
	struct compare c;
	const struct cmp_impl *a;

	a = impl_a(&c, "base", "fails");
	CHECK(a && a->verdict == CMP_REGRESSION && c.exit_code == 1);
	if (a) {
		CHECK(a->nrates == 2 && !a->rates[0].outcome_regression);
		CHECK(a->rates[1].outcome_regression);
		CHECK(a->rates[1].fnew == NB && a->rates[1].fbase == 0);
		CHECK(strstr(a->why, "at 200 req/s new failed 6 of 6 valid windows (error_rate)"));
	}
	compare_release(&c);
}

TEST(evidence_and_failed_runs)
{
	struct compare c;
	const struct cmp_impl *a;

	a = impl_a(&c, "base", "thin");
	CHECK(a && a->verdict == CMP_INCONCLUSIVE && a->max_vpairs == 2 && c.exit_code == 3);
	CHECK(a && strstr(a->why, "not enough valid evidence"));
	compare_release(&c);

	/* The commit under test did not build: its fault. */
	a = impl_a(&c, "base", "nobuild");
	CHECK(a && a->verdict == CMP_REGRESSION && c.exit_code == 1);
	CHECK(a && strstr(a->why, "failed to build"));
	compare_release(&c);

	/* The control did not build, or the host failed: no answer. */
	CHECK(load2(&c, "base", "nobuild_base", NULL) == 0);
	CHECK(c.exit_code == 3 && c.impls[0].verdict == CMP_INCONCLUSIVE);
	compare_release(&c);
	CHECK(load2(&c, "base", "nosandbox", NULL) == 0);
	CHECK(c.exit_code == 3 && strstr(c.impls[0].why, "failed"));
	compare_release(&c);
	/* ...whichever side failed. */
	CHECK(load2(&c, "nosandbox", "paired", NULL) == 0);
	CHECK(c.exit_code == 3);
	compare_release(&c);
}

TEST(knee_and_shift)
{
	struct compare c;
	const struct cmp_impl *a;

	CHECK(load2(&c, "base", "knee", "a") == 0);
	a = find(&c, "a");
	CHECK(a && a->knew && a->kbase);
	if (a && a->knew && a->kbase) {
		CHECK(a->knew->kind == KNEE_POINT);
		/* 10 ms at 200, 30 ms at 400: 20 ms at 300 req/s */
		NEAR(a->knew->knee_rps, 300, 3, "1% bucket error on 10 and 30 ms");
		CHECK(a->kbase->kind == KNEE_FLOOR);
		NEAR(a->kbase->highest_rung_rps, 200, 0, "base ladder tops at 200");
		CHECK(a->knew->has_ci);
		/* only rates measured on both sides are compared */
		CHECK(a->nrates == 2);
		/* new crosses at 400, which base never measured: no knee verdict */
		CHECK(!strstr(a->why, "knee"));
	}
	compare_release(&c);
}

TEST(knee_regression_at_a_held_rung)
{
	struct compare c;
	const struct cmp_impl *a;

	/* a@base holds 5 ms at 100 and 200 req/s; a crosses the 20 ms SLO at
	 * 200 (30 ms): the knee regressed at a rung the base holds. */
	a = impl_a(&c, "base", "kneepaired");
	CHECK(a && a->verdict == CMP_REGRESSION && c.exit_code == 1);
	CHECK(a && strstr(a->why, "the knee: new crosses the SLO at 200 req/s, where base holds"));
	compare_release(&c);
}

TEST(one_stalled_window_is_no_knee_regression)
{
	struct compare c;
	const struct cmp_impl *a;

	a = impl_a(&c, "base", "kneestall");
	CHECK(a && a->knew && a->knew->crossed);  /* the fit alone crosses */
	if (a && a->knew) {
		/* a third of the resamples leave the stalled window out */
		CHECK(a->knew->ncrossed < a->knew->nboot * 0.95);
		CHECK(a->verdict != CMP_REGRESSION && !strstr(a->why, "knee"));
	}
	CHECK(c.exit_code != 1);
	compare_release(&c);
}

/* compare judges latency at the SLO percentile of NEW's spec: a 0.5%
 * tail is a regression at the p99.9 and nothing at the p99. */
TEST(slo_percentile_decides)
{
	struct compare c;
	const struct cmp_impl *a;

	a = impl_a(&c, "tail999", "tail999");
	CHECK(a && a->verdict == CMP_REGRESSION && c.exit_code == 1);
	/* both rules see it: the knee (a crosses where a@base holds) and
	 * the latency cell (its value is each window's p99.9) */
	CHECK(a && strstr(a->why, "the knee: new crosses the SLO at 100 req/s"));
	CHECK(a && strstr(a->why, "latency +"));
	if (a)
		printf("# p99.9: %s\n", a->why);
	compare_release(&c);
	a = impl_a(&c, "tail99", "tail99");
	CHECK(a && a->verdict != CMP_REGRESSION && c.exit_code == 0);
	if (a)
		printf("# p99: %s\n", a->why);
	compare_release(&c);
}

/* The effective margin: the larger of margin_pct of |base| and the
 * metric's floor (cmp_margin_abs above). */
TEST(margin_is_the_larger_of_relative_and_floor)
{
	struct spec_compare sc = { .margin_pct = 5, .margin_ms = 1, .margin_cpu_us = 2 };

	CHECK(fabs(cmp_margin_abs(&sc, CMP_P99, 0.4) - (1)) < 1e-12);      /* 20 us -> 1 ms */
	CHECK(fabs(cmp_margin_abs(&sc, CMP_P99, 40) - (2)) < 1e-12);       /* 5 % of 40 ms */
	CHECK(fabs(cmp_margin_abs(&sc, CMP_P99, -40) - (2)) < 1e-12);
	CHECK(fabs(cmp_margin_abs(&sc, CMP_CPU_PER_REQUEST, 30) - (2)) < 1e-12);
	CHECK(fabs(cmp_margin_abs(&sc, CMP_CPU_PER_REQUEST, 100) - (5)) < 1e-12);
	CHECK(fabs(cmp_margin_abs(&sc, CMP_P99, NAN) - (1)) < 1e-12);
	sc.margin_ms = 0;
	CHECK(fabs(cmp_margin_abs(&sc, CMP_P99, 0.4) - (0.02)) < 1e-12);
}

/* +0.5 ms in every block on ~1 ms: beyond 20 % (0.2 ms) but within the
 * default 0.75 ms floor, so the cells are "no change", not regressions
 * (uncorrected, as in paired_by_block). */
TEST(floor_makes_a_small_shift_no_change)
{
	struct compare c;
	const struct cmp_impl *a;

	CHECK(load2x(&c, "base", "pairedfloor", NULL, 0, -1, CMP_CORRECT_NONE) == 0);
	a = find(&c, "a");
	CHECK(a && c.margin_ms == 0.75 && c.exit_code == 0);
	if (a) {
		NEAR(a->rates[0].p99.margin, 0.75, 1e-12, "the floor, not 20 % of ~1 ms");
		NEAR(a->rates[0].cpu.margin, 10, 0.5, "20 % of ~50 us, above the 2 us floor");
		CHECK(a->rates[0].p99.verdict == CMP_NO_CHANGE);
		CHECK(a->verdict == CMP_NO_CHANGE);
	}
	compare_release(&c);
}

/* The chart's margin band is each cell's effective margin, the one its
 * verdict used: on ~1 ms the 0.75 ms floor (about +-75 %), not margin_pct's
 * +-20 %; the CPU cells (~50 us, floor 2 us) at 20 %. */
TEST(chart_band_is_the_effective_margin)
{
	struct compare c;
	struct sbuf svg = SBUF_INIT;
	const struct cmp_impl *a;
	const char *at;
	size_t seen = 0, j;
	double want, got, rate;

	CHECK(load2x(&c, "base", "pairedfloor", NULL, 0, -1, CMP_CORRECT_NONE) == 0);
	a = find(&c, "a");
	compare_chart(&c, &svg);
	CHECK(a != NULL);
	for (j = 0; a && j < a->nrates; j++) {
		const struct cmp_rate *r = &a->rates[j];

		if (!r->has_cells)
			continue;
		want = 100 * r->p99.margin / r->p99.base;
		CHECK(want > 25);   /* the floor rules here, not margin_pct 20 % */
		NEAR(cmp_metric_margin_pct(&r->p99), want, 1e-9, "one rule");
		/* the first band at this rate is the p99 panel's (panels in order) */
		got = NAN;
		for (at = strstr(svg.buf, "data-margin-pct="); at;
		     at = strstr(at + 1, "data-margin-pct="))
			if (sscanf(at, "data-margin-pct=\"%lf\" data-rate=\"%lf\"", &got, &rate) == 2 &&
			    rate == r->rate)
				break;
		CHECK(at != NULL);
		if (!at)
			continue;
		NEAR(got, want, want * 1e-3, "p99 band at the effective margin");
		seen++;
	}
	CHECK(seen > 0);
	CHECK(strstr(svg.buf, "data-margin-pct=\"20\"") != NULL);  /* cpu: 20 % of ~50 us */
	compare_release(&c);
	sbuf_release(&svg);
}

TEST(bad_input)
{
	struct compare c;
	struct cmp_run r;

	CHECK(load2(&c, "base", "slow", "zzz") == -1);
	compare_release(&c);
	CHECK(cmp_run_load(&r, root, "no-such-run") == -1);
}

TEST(writers)
{
	struct compare c;
	struct sbuf md = SBUF_INIT, js = SBUF_INIT, ju = SBUF_INIT;

	CHECK(load2o(&c, "base", "slow", NULL, 1) == 0);
	compare_md(&c, &md);
	compare_json(&c, &js);
	compare_junit(&c, &ju);
	CHECK(strstr(md.buf, "### `a`: **regression**") != NULL);
	CHECK(strstr(md.buf, "### `b` (advisory, not judged)") != NULL);
	CHECK(strstr(md.buf, "unpaired (every slow window against every base window)") != NULL);
	CHECK(strstr(md.buf, "Base `base` **finished**; new `slow` **finished**") != NULL);
	CHECK(strstr(md.buf, "**Result: regression** (exit 1)") != NULL);
	CHECK(strstr(js.buf, "\"regressions\":1") != NULL);
	CHECK(strstr(js.buf, "\"new_status\":\"finished\"") != NULL);
	CHECK(strstr(ju.buf, "failures=\"3\"") != NULL); /* verdict + p99 at 2 rates */
	CHECK(strstr(ju.buf, "<failure type=\"regression\"") != NULL);
	CHECK(strstr(ju.buf, "name=\"new.status\" value=\"finished\"") != NULL);
	compare_release(&c);

	/* An inconclusive judged implementation is an error, not skipped. */
	sbuf_reset(&ju);
	sbuf_reset(&js);
	CHECK(load2(&c, "base", "nosandbox", NULL) == 0);
	compare_junit(&c, &ju);
	compare_json(&c, &js);
	CHECK(strstr(ju.buf, "<error type=\"inconclusive\"") != NULL);
	CHECK(strstr(ju.buf, "errors=\"1\"") != NULL);
	CHECK(strstr(ju.buf, "name=\"new.status\" value=\"failed\"") != NULL);
	CHECK(strstr(js.buf, "\"new_failure_kind\":\"sandbox\"") != NULL);
	CHECK(strstr(js.buf, "\"exit\":3") != NULL);
	compare_release(&c);
	sbuf_release(&md);
	sbuf_release(&js);
	sbuf_release(&ju);
}

int main(void)
{
	root = mkdtemp(tmpl);
	if (!root)
		return 1;
	make();
	RUN(unpaired_is_advisory_unless_asked);
	RUN(same_run);
	RUN(paired_by_block);
	RUN(one_stalled_window);
	RUN(outcome_failure_is_a_regression);
	RUN(evidence_and_failed_runs);
	RUN(knee_and_shift);
	RUN(knee_regression_at_a_held_rung);
	RUN(one_stalled_window_is_no_knee_regression);
	RUN(slo_percentile_decides);
	RUN(margin_is_the_larger_of_relative_and_floor);
	RUN(floor_makes_a_small_shift_no_change);
	RUN(chart_band_is_the_effective_margin);
	RUN(bad_input);
	RUN(writers);
	t_rm_rf(root);
	return t_done();
}
