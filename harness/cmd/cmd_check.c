/*
 * cmd_check: `harness check SPEC`: validate a spec and print the plan a
 * user needs before an overnight run: implementations, the pre-flight
 * (requests x sends x implementations, equivalence), stages, the
 * ladder's rungs, windows per stage (worst case), an estimate of the wall
 * time with warm-ups, and the spec hash. --json prints the same for
 * scripts. Exit 0 when valid, 2 when not (every problem on stderr).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_check_ctr.h"
#include "report/compare_plan.h"
#include "runner/plan.h"
#include "base/jout.h"
#include "base/prov.h"
#include "load/load_pool.h"
#include "spec/spec.h"
#include "base/util.h"
#include "base/hostfacts.h"
#include "base/hosttune.h"

struct plan {
	double *rungs;
	size_t nrungs;
	struct plan_windows w;   /* plan.h: pre-registered and replacements */
	size_t total, total_r;
	double est, est_max;
};

/* Windows per stage (refine at max_steps); seconds of the pre-registered
 * windows with warm-ups at min_s (expected), and of every window a run
 * can plan, replacements included, with warm-ups at max_s (worst).
 * window_s already includes discard_s. */
static void plan_compute(const struct spec *s, struct plan *p)
{
	const struct plan_windows *w = &p->w;

	memset(p, 0, sizeof(*p));
	p->nrungs = spec_ladder_rungs(s, &p->rungs);
	plan_worst_windows(s, p->nrungs, s->nimpls, &p->w);
	p->total = w->ladder + w->refine + w->confirm + w->soak;
	/* confirm's follow-up rates count with the replacements: not
	 * pre-registered, the worst case */
	p->total_r = w->ladder_r + w->refine_r + w->confirm_f + w->confirm_r + w->soak_r;
	p->est = w->ladder * (s->warmup.min_s + s->ladder.window_s) +
		 w->refine * (s->warmup.min_s + s->refine.window_s) +
		 w->confirm * (s->warmup.min_s + s->confirm.window_s) +
		 w->soak * (s->warmup.min_s + s->soak.window_s);
	p->est_max = (w->ladder + w->ladder_r) * (s->warmup.max_s + s->ladder.window_s) +
		     (w->refine + w->refine_r) * (s->warmup.max_s + s->refine.window_s) +
		     (w->confirm + w->confirm_f + w->confirm_r) *
		     (s->warmup.max_s + s->confirm.window_s) +
		     (w->soak + w->soak_r) * (s->warmup.max_s + s->soak.window_s);
	/* replacements past max_per_cell: retries.extra_time_pct of the
	 * pre-registered windows' time */
	if (s->retries.max_per_cell > 0)
		p->est_max += s->retries.extra_time_pct / 100 *
			      (w->ladder * (s->warmup.max_s + s->ladder.window_s) +
			       w->refine * (s->warmup.max_s + s->refine.window_s) +
			       w->confirm * (s->warmup.max_s + s->confirm.window_s) +
			       w->soak * (s->warmup.max_s + s->soak.window_s));
	/* the closed loop: its warm-up and duration (a cap with a count) */
	if (s->saturation.present) {
		double sat = (double)s->saturation.reps * (double)s->nimpls *
			     (s->saturation.warmup_s + s->saturation.duration_s);

		p->est += sat;
		p->est_max += sat;
	}
}

static void fmt_duration(char *buf, size_t n, double sec)
{
	long s = lround(sec);

	if (s >= 86400)
		snprintf(buf, n, "%ldd %ldh %02ldm", s / 86400, s % 86400 / 3600, s % 3600 / 60);
	else if (s >= 3600)
		snprintf(buf, n, "%ldh %02ldm %02lds", s / 3600, s % 3600 / 60, s % 60);
	else
		snprintf(buf, n, "%ldm %02lds", s / 60, s % 60);
}

static const char *const restart_names[] = { "per_window", "per_block", "never" };
static const char *const arrival_names[] = { "constant", "poisson" };
static const char *const transport_names[] = { "auto", "native", "curl" };

static void print_list(const char *label, char **v)
{
	size_t i;

	printf("%s", label);
	if (!v || !v[0])
		printf(" (none)");
	for (i = 0; v && v[i]; i++)
		printf("%s%s", i ? ", " : " ", v[i]);
	printf("\n");
}

static void print_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		printf("%s%s", i ? " " : "", v[i]);
}

static const char *const var_kinds[] = { "zipf", "uniform", "csv", "sequence", "uuid" };
static const char *const http_names[] = { "1.1", "2", "h2c" };

/* The pool a run would draw (spec_pool_size entries): built here, so its
 * size, memory and digest are what the run will use. */
static int build_pool(const struct spec *s, struct load_pool *pool)
{
	const struct spec_workload *w = &s->workload;

	if (!w->nvars)
		return 1;
	return load_pool_build(pool, w->requests, w->nrequests, w->vars, w->nvars, s->seed,
			       spec_pool_size(s));
}

static void print_vars(const struct spec *s, const struct load_pool *pool, int built)
{
	const struct spec_workload *w = &s->workload;
	size_t i;

	printf("http:       %s%s%s%s%s\n", http_names[w->http],
	       w->http == HTTPV_2 && !w->tls.present ? " (HTTP/1.1 over plain http://)" : "",
	       w->tls.present ? ", https" : "",
	       w->tls.insecure ? " (certificates not verified)" : w->tls.cacert ? ", cacert " : "",
	       w->tls.cacert && !w->tls.insecure ? w->tls.cacert : "");
	if (!w->nvars)
		return;
	printf("vars:      ");
	for (i = 0; i < w->nvars; i++) {
		const struct load_var *v = &w->vars[i];

		printf(" %s: %s", v->name, var_kinds[v->kind]);
		if (v->kind == LVAR_ZIPF)
			printf(" (n %llu, s %g)", (unsigned long long)v->zipf.n, v->zipf.s);
		else if (v->kind == LVAR_UNIFORM)
			printf(" [%d, %d]", v->uniform[0], v->uniform[1]);
		else if (v->kind == LVAR_CSV)
			printf(" (%zu values)", v->nvalues);
		printf("%s", i + 1 < w->nvars ? ";" : "\n");
	}
	if (built)
		printf("pool:       %llu requests, %.1f MiB, digest %.16s (every load replays it from"
		       " its start)\n", (unsigned long long)pool->n,
		       (double)load_pool_bytes(pool) / (1 << 20), pool->digest);
}

/* The pre-flight (harness/runner/preflight.h): what is sent before the first
 * window, how the responses are judged and what a failure does. */
static void print_preflight(const struct spec *s)
{
	const struct spec_preflight *pf = &s->workload.preflight;
	size_t n = s->workload.nrequests, i;

	if (pf->sends == 0) {
		printf("pre-flight: none (workload.preflight.sends 0)\n");
		return;
	}
	printf("pre-flight: %zu request%s x %d send%s%s x %zu implementation%s = %zu responses"
	       " (%zu case%s), each checked against its expect",
	       n, n == 1 ? "" : "s", pf->sends, pf->sends == 1 ? "" : "s",
	       s->workload.nvars ? " (each a fresh expansion from the pool)" : "",
	       s->nimpls, s->nimpls == 1 ? "" : "s", n * (size_t)pf->sends * s->nimpls,
	       n * (size_t)pf->sends, n * (size_t)pf->sends == 1 ? "" : "s");
	printf("; equivalence %s", pf->equivalence == EQUIV_STRICT ? "strict (status, content type"
	       " and body compared across the implementations" : "off");
	for (i = 0; pf->equivalence == EQUIV_STRICT && pf->ignore && pf->ignore[i]; i++)
		printf("%s%s", i ? ", " : "; ignoring ", pf->ignore[i]);
	printf("%s; base %s; %s\n", pf->equivalence == EQUIV_STRICT ? ")" : "",
	       pf->base == EQUIV_STRICT ? "strict (in a rerun --with-baseline, each commit under "
	       "test answers as its @base)" : "off",
	       pf->enforce ? "a failure refuses the run (exit 3)"
			   : "recorded only (enforce: false)");
}

/* How an implementation is reached when it is not the usual way: a fixed
 * port, a TCP health check, its own paths; its artifact. */
static void print_reach(const struct spec_impl *im)
{
	size_t k;

	if (im->port)
		printf("  %-12s port %d (fixed: implementations[].port)\n", "", im->port);
	if (im->health_tcp)
		printf("  %-12s health: a TCP connection to 127.0.0.1:%s accepted\n", "",
		       im->port ? "its port" : "{port}");
	for (k = 0; k < im->npaths; k++)
		printf("  %-12s request %s on %s\n", "", im->paths[k].key, im->paths[k].value);
	if (im->artifact)
		printf("  %-12s artifact %s (its size in the footprint)\n", "", im->artifact);
}

/* The spec's identity, its implementations and its request mix. */
static void print_spec(const struct spec *s)
{
	double wsum = 0;
	size_t i;

	printf("spec:       %s\n", s->path);
	printf("name:       %s\n", s->name);
	printf("hash:       %s\n", s->hash);
	printf("seed:       %llu\n", (unsigned long long)s->seed);
	printf("slo:        p%g <= %g ms, error rate <= %g\n", s->slo.percentile,
	       s->slo.threshold_ms, s->slo.error_rate_max);
	printf("implementations (%zu):\n", s->nimpls);
	for (i = 0; i < s->nimpls; i++) {
		const struct spec_impl *im = &s->impls[i];
		if (im->ctr.present) {
			printf("  %-12s container: %s%s", im->name,
			       im->ctr.containerfile ? "built from " : "image ",
			       im->ctr.containerfile ? im->ctr.containerfile : im->ctr.image);
			if (im->ctr.args)
				printf(", args ");
		} else {
			printf("  %-12s start: ", im->name);
		}
		print_argv(im->ctr.present ? im->ctr.args : im->start);
		printf("\n  %-12s restart %s%s%s\n", "", restart_names[im->restart],
		       im->cpus ? ", cpus " : "", im->cpus ? im->cpus : "");
		if (im->host)
			printf("  %-12s host %s (agent --sut, %s there)\n", "", im->host,
			       im->host_binary ? im->host_binary : "harness");
		print_reach(im);
	}
	for (i = 0; i < s->workload.nrequests; i++)
		wsum += s->workload.requests[i].weight;
	printf("workload:   %s arrival, %d connections, backlog %d, timeout %d ms, %d thread%s, transport %s\n",
	       arrival_names[s->workload.arrival], s->workload.connections,
	       s->workload.backlog_max, s->workload.timeout_ms, s->workload.threads,
	       s->workload.threads == 1 ? "" : "s", transport_names[s->workload.transport]);
	for (i = 0; i < s->workload.nrequests; i++) {
		const struct load_request *r = &s->workload.requests[i];
		printf("  %-12s %5.1f%%  %s %s%s", r->name, 100 * r->weight / wsum, r->method,
		       r->path, r->body_file ? "  (body_file)" : r->body ? "  (body)" : "");
		if (r->slo_ms > 0)
			printf("  (slo %g ms)", r->slo_ms);
		printf("\n");
	}
}

/* The ladder, refine, confirm and soak stages. */
static void print_stages(const struct spec *s, const struct plan *p)
{
	size_t i;

	printf("stages:\n");
	if (s->saturation.present) {
		printf("  saturation closed loop, %d connections, ", s->saturation.connections);
		if (s->saturation.requests)
			printf("%llu requests (at most %g s)",
			       (unsigned long long)s->saturation.requests, s->saturation.duration_s);
		else
			printf("%g s", s->saturation.duration_s);
		printf(" x %d reps per implementation, after %g s of warm-up; before the ladder,"
		       " reported apart (not a knee)\n", s->saturation.reps, s->saturation.warmup_s);
	}
	printf("  ladder     start %g rps, step %g, max %g rps: %zu rungs x %d reps;"
	       " window %g s (%g s discarded, %g s measured)\n",
	       s->ladder.start_rps, s->ladder.step, s->ladder.max_rps, p->nrungs, s->ladder.reps,
	       s->ladder.window_s, s->ladder.discard_s, s->ladder.window_s - s->ladder.discard_s);
	printf("  rungs_rps ");
	for (i = 0; i < p->nrungs; i++)
		printf(" %.0f", p->rungs[i]);
	printf("\n");
	if (s->refine.present)
		printf("  refine     %d reps per step, at most %d steps, until each knee's bracket is"
		       " within %g%%; window %g s (%g s discarded, %g s measured)\n",
		       s->refine.reps, s->refine.max_steps, s->refine.resolution_pct,
		       s->refine.window_s, s->refine.discard_s,
		       s->refine.window_s - s->refine.discard_s);
	else
		printf("  refine     (not in this spec)\n");
	if (s->confirm.present)
		printf("  confirm    %d reps at each implementation's knee bracket;"
		       " window %g s (%g s discarded, %g s measured)\n",
		       s->confirm.reps, s->confirm.window_s, s->confirm.discard_s,
		       s->confirm.window_s - s->confirm.discard_s);
	if (s->confirm.present && s->confirm.until.present)
		printf("             sequential: then one block at a time until every paired "
		       "confidence sequence is under %g%% of its mean, at most %d blocks per rate "
		       "(docs/STATISTICS.md)\n", s->confirm.until.half_width_pct,
		       s->confirm.until.max_reps);
	else if (!s->confirm.present)
		printf("  confirm    (not in this spec)\n");
	if (s->soak.present)
		printf("  soak       one window per implementation at %g x its knee;"
		       " window %g s (%g s discarded, %g s measured)\n",
		       s->soak.at_knee_fraction, s->soak.window_s, s->soak.discard_s,
		       s->soak.window_s - s->soak.discard_s);
	else
		printf("  soak       (not in this spec)\n");
}

/* Warm-up, the head of each window and the window gates. */
static void print_gates(const struct spec *s)
{
	size_t i;

	if (s->warmup.fixed_rps > 0)
		printf("warm-up:    before every window at %g rps", s->warmup.fixed_rps);
	else
		printf("warm-up:    before every window at %g x its rate (at least %g rps)",
		       s->warmup.knee_fraction, s->warmup.min_rps);
	printf("; min %g s, max %g s, gates judge the trailing %g s\n", s->warmup.min_s,
	       s->warmup.max_s, s->warmup.trailing_s);
	print_list("  warm-up gates:", s->warmup.gates);
	printf("  head gates:    ");
	for (i = 0; i < s->warmup.nhead_gates; i++)
		printf("%s%s", i ? ", " : "", s->warmup.head_gates[i]);
	printf("%s (each window's discard_s head at its rate; %s)\n",
	       s->warmup.nhead_gates ? "" : "none",
	       s->warmup.head_enforce ? "enforced: a failure rejects the window"
				      : "recorded only");
	print_list("  window gates: ", s->window_gates);
}

/* Windows per stage in the worst case, and the wall time. */
static void print_windows(const struct spec *s, const struct plan *p)
{
	char a[64], b[64];

	printf("windows (worst case):\n");
	printf("  ladder   %6zu  (%zu rungs x %d reps x %zu implementation%s; fewer when the ladder"
	       " stops %d rung%s past each knee)\n",
	       p->w.ladder, p->nrungs, s->ladder.reps, s->nimpls, s->nimpls == 1 ? "" : "s",
	       s->ladder.rungs_past_knee, s->ladder.rungs_past_knee == 1 ? "" : "s");
	printf("  refine   %6zu  (%d steps x %d reps x %zu implementation%s; fewer when a bracket"
	       " is narrow enough)\n",
	       p->w.refine, s->refine.present ? s->refine.max_steps : 0,
	       s->refine.present ? s->refine.reps : 0, s->nimpls, s->nimpls == 1 ? "" : "s");
	if (s->confirm.present && s->confirm.until.present)
		printf("  confirm  %6zu  (%zu bracketing rates x up to %d blocks (%d reps + sequential)"
		       " x %zu implementation%s; fewer when the sequences narrow)\n",
		       p->w.confirm, p->w.confirm_rates, s->confirm.until.max_reps, s->confirm.reps,
		       s->nimpls, s->nimpls == 1 ? "" : "s");
	else
		printf("  confirm  %6zu  (%zu bracketing rates x %d reps x %zu implementation%s)\n",
		       p->w.confirm, p->w.confirm_rates, s->confirm.present ? s->confirm.reps : 0,
		       s->nimpls, s->nimpls == 1 ? "" : "s");
	printf("  soak     %6zu  (one per implementation)\n", p->w.soak);
	if (p->w.confirm_f)
		printf("  follow   %6zu  (confirm at up to %zu more rates, where its own windows"
		       " move a knee)\n", p->w.confirm_f, p->w.confirm_follow_rates);
	printf("  replace  %6zu  (at most retries.max_per_cell = %d per cell, for rejected windows;"
	       " then more within retries.extra_time_pct = %g%% of the pre-registered windows' time)\n",
	       p->total_r - p->w.confirm_f, s->retries.max_per_cell,
	       s->retries.max_per_cell > 0 ? s->retries.extra_time_pct : 0.0);
	printf("  total    %6zu  (%zu pre-registered + %zu replacements and follow-ups at most)\n",
	       p->total + p->total_r, p->total, p->total_r);
	fmt_duration(a, sizeof(a), p->est);
	fmt_duration(b, sizeof(b), p->est_max);
	printf("estimated wall time: %s (%.0f s) for the pre-registered windows with warm-ups of"
	       " min_s = %g s; worst case %s (%.0f s) with every replacement and warm-ups of"
	       " max_s = %g s.\n",
	       a, p->est, s->warmup.min_s, b, p->est_max, s->warmup.max_s);
	printf("  (each window costs its warm-up + window_s, which includes discard_s;"
	       " builds and restarts not counted)\n");
}

static void print_text(const struct spec *s, const struct plan *p)
{
	struct load_pool pool;
	int built;

	print_spec(s);
	memset(&pool, 0, sizeof(pool));
	built = build_pool(s, &pool) == 0;
	print_vars(s, &pool, built);
	load_pool_release(&pool);
	print_preflight(s);
	print_stages(s, p);
	print_gates(s);
	print_windows(s, p);
}

static json_t *str_array(char **v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static int print_json(const struct spec *s, const struct plan *p, const struct cmp_plan *cp,
		      int dirty)
{
	json_t *o = json_object(), *a, *w, *st;
	char *text;
	size_t i;
	int ret;

	jout_set(o, "spec", json_string(s->path), "name", json_string(s->name),
		 "spec_hash", json_string(s->hash), NULL);
	/* run refuses it without --allow-dirty (warn_uncommitted) */
	json_object_set_new(o, "spec_committed", dirty < 0 ? json_null() : json_boolean(!dirty));
	a = json_array();
	for (i = 0; i < s->nimpls; i++)
		json_array_append_new(a, json_string(s->impls[i].name));
	json_object_set_new(o, "implementations", a);
	a = json_array();
	for (i = 0; i < p->nrungs; i++)
		json_array_append_new(a, json_integer((json_int_t)llround(p->rungs[i])));
	json_object_set_new(o, "rungs_rps", a);
	w = json_object();
	jout_set(w, "ladder", json_integer((json_int_t)p->w.ladder),
		 "refine", json_integer((json_int_t)p->w.refine),
		 "confirm", json_integer((json_int_t)p->w.confirm),
		 "soak", json_integer((json_int_t)p->w.soak),
		 "confirm_follow_max", json_integer((json_int_t)p->w.confirm_f),
		 "replacements_max", json_integer((json_int_t)(p->total_r - p->w.confirm_f)),
		 "total", json_integer((json_int_t)p->total),
		 "total_max", json_integer((json_int_t)(p->total + p->total_r)), NULL);
	jout_set(o, "windows", w, "estimated_seconds", json_integer((json_int_t)llround(p->est)),
		 "estimated_seconds_max", json_integer((json_int_t)llround(p->est_max)), NULL);
	st = jout_set(json_object(), "ladder",
		      jout_set(json_object(), "start_rps", json_real(s->ladder.start_rps),
			       "step", json_real(s->ladder.step), "max_rps", json_real(s->ladder.max_rps),
			       "reps", json_integer(s->ladder.reps),
			       "window_s", json_real(s->ladder.window_s),
			       "discard_s", json_real(s->ladder.discard_s), NULL), NULL);
	if (s->refine.present)
		jout_set(st, "refine",
			 jout_set(json_object(), "reps", json_integer(s->refine.reps),
				  "resolution_pct", json_real(s->refine.resolution_pct),
				  "max_steps", json_integer(s->refine.max_steps),
				  "window_s", json_real(s->refine.window_s),
				  "discard_s", json_real(s->refine.discard_s), NULL), NULL);
	if (s->confirm.present) {
		w = jout_set(json_object(), "reps", json_integer(s->confirm.reps),
			     "window_s", json_real(s->confirm.window_s),
			     "discard_s", json_real(s->confirm.discard_s), NULL);
		if (s->confirm.until.present)
			json_object_set_new(w, "until", json_pack("{s:f, s:i}", "half_width_pct",
				s->confirm.until.half_width_pct, "max_reps", s->confirm.until.max_reps));
		json_object_set_new(st, "confirm", w);
	}
	if (s->saturation.present)
		json_object_set_new(st, "saturation", json_pack("{s:i, s:f, s:I, s:i, s:f}",
			"connections", s->saturation.connections, "duration_s",
			s->saturation.duration_s, "requests", (json_int_t)s->saturation.requests,
			"reps", s->saturation.reps, "warmup_s", s->saturation.warmup_s));
	if (s->soak.present)
		jout_set(st, "soak",
			 jout_set(json_object(), "window_s", json_real(s->soak.window_s),
				  "discard_s", json_real(s->soak.discard_s),
				  "at_knee_fraction", json_real(s->soak.at_knee_fraction), NULL),
			 NULL);
	json_object_set_new(o, "stages", st);
	w = json_object();
	jout_set(w, "min_s", json_real(s->warmup.min_s), "max_s", json_real(s->warmup.max_s),
		 "gates", str_array(s->warmup.gates), "head_gates", str_array(s->warmup.head_gates),
		 "head_enforce", json_boolean(s->warmup.head_enforce), NULL);
	jout_set(o, "warmup", w, "window_gates", str_array(s->window_gates),
		 "http", json_string(http_names[s->workload.http]), NULL);
	{
		const struct spec_preflight *pf = &s->workload.preflight;
		size_t n = s->workload.nrequests;

		w = json_object();
		jout_set(w, "requests", json_integer((json_int_t)n),
			 "sends", json_integer(pf->sends),
			 "implementations", json_integer((json_int_t)s->nimpls),
			 "cases", json_integer((json_int_t)(n * (size_t)pf->sends)),
			 "responses", json_integer((json_int_t)(n * (size_t)pf->sends * s->nimpls)),
			 "equivalence",
			 json_string(pf->equivalence == EQUIV_STRICT ? "strict" : "off"),
			 "base", json_string(pf->base == EQUIV_STRICT ? "strict" : "off"),
			 "ignore", str_array(pf->ignore), "enforce", json_boolean(pf->enforce),
			 NULL);
		json_object_set_new(o, "preflight", w);
	}
	{
		struct load_pool pool;

		memset(&pool, 0, sizeof(pool));
		if (build_pool(s, &pool) == 0) {
			w = json_object();
			jout_set(w, "size", json_integer((json_int_t)pool.n),
				 "bytes", json_integer((json_int_t)load_pool_bytes(&pool)),
				 "digest", json_string(pool.digest), NULL);
			json_object_set_new(o, "pool", w);
		}
		load_pool_release(&pool);
	}
	json_object_set_new(o, "compare", cmp_plan_json(cp));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ret = text && puts(text) >= 0 ? EXIT_OK : EXIT_ENV;
	free(text);
	json_decref(o);
	return ret;
}

static int quiet;
static const char *base_run;

static const struct opt options[] = {
	OPT_BOOL('q', "quiet", &quiet, "validate only: print nothing when the spec is valid"),
	OPT_STRING(0, "base", "RUN", &base_run,
		   "a finished run of this spec: the smallest shift compare could call per "
		   "metric, from its windows' spread"),
	OPT_END(),
};

/* What compare can decide from this plan (compare_plan.h): -1 after the
 * one-line refusal of a plan that can never decide, or an unreadable
 * --base run. */
static int compare_plan(struct cmd_ctx *c, const struct spec *s, struct cmp_plan *cp)
{
	struct cmp_run base;
	char line[1024];
	int have = 0;

	if (base_run) {
		if (cmp_run_load(&base, c->runs_dir, base_run))
			return -1;
		have = 1;
	}
	cmp_plan_init(cp, s, have ? &base : NULL);
	if (have)
		cmp_run_release(&base);
	cp->base_id = have ? base_run : NULL;
	if (cmp_plan_refusal(cp, s->path ? s->path : "<stdin>", line, sizeof(line))) {
		fputs(line, stderr);
		cmp_plan_release(cp);
		return -1;
	}
	if (cmp_plan_seq_warning(cp, s->path ? s->path : "<stdin>", line, sizeof(line)))
		fputs(line, stderr);
	return 0;
}

/*
 * `run` refuses a spec with uncommitted changes, an untracked one, or one
 * outside any git repository (runner.c): said here, before the user plans
 * a night around it. 1 uncommitted (after a warning line), 0 committed,
 * -1 when git cannot tell (its error printed).
 */
static int warn_uncommitted(const char *path)
{
	struct prov_repo r;
	int dirty = prov_file_dirty(path);

	if (dirty < 0 || prov_repo_read(path, &r))
		return -1;
	if (!r.commit)
		dirty = 1;
	prov_repo_release(&r);
	if (dirty)
		fprintf(stderr, "%s: warning: not committed (modified, untracked, or not in a git"
			" repository): `harness run` will refuse it; commit it, or pass --allow-dirty"
			" to stamp the run exploratory\n", path);
	return dirty;
}

/* This host's tuning (hosttune.h): a warning per item not tuned, naming
 * host.require when the spec requires it (a run here is then refused).
 * An item that cannot be read here (no cpufreq in most VMs) is said only
 * when required: there is nothing to tune, and a run would be refused. */
static void host_warnings(const struct spec *s)
{
	struct hostfacts f = HOSTFACTS_INIT;
	struct sbuf w = SBUF_INIT;
	int i;

	hostfacts_read(&f);
	for (i = 0; i < HOSTTUNE_ITEMS; i++) {
		if (hosttune_ok(&f, i) ||
		    (!hosttune_known(&f, i) && !(s->host_require & (1u << i))))
			continue;
		sbuf_reset(&w);
		hosttune_describe(&f, i, &w);
		fprintf(stderr, "harness: warning: host tuning: %s: %s%s\n", hosttune_names[i], w.buf,
			s->host_require & (1u << i) ? "; required by host.require: a run here is"
			" refused (exit 3)" : "");
	}
	sbuf_release(&w);
	hostfacts_release(&f);
}

static int cmd_check(struct cmd_ctx *c)
{
	const char *path = c->args[0];
	int json = c->json, ret, s_dirty;
	struct spec *s;
	struct plan p;
	struct cmp_plan cp;

	if (!strcmp(path, "-")) {
		/* from standard input: relative paths resolve against the cwd */
		struct sbuf sb = SBUF_INIT;
		char *cwd = getcwd(NULL, 0);
		if (read_file("/dev/stdin", &sb, 1024 * 1024 + 1) == 0)
			s = spec_parse(sb.buf, sb.len, "<stdin>", cwd ? cwd : ".");
		else
			s = NULL;
		free(cwd);
		sbuf_release(&sb);
	} else {
		s = spec_load(path);
	}
	if (!s)
		return EXIT_USAGE;
	if (s->refusals) {
		/* A well-formed plan that can never pass: refused like any
		 * other spec error. */
		fputs(s->refusals, stderr);
		if (s->warnings)
			fputs(s->warnings, stderr);
		spec_free(s);
		return EXIT_USAGE;
	}
	if (s->warnings)
		fputs(s->warnings, stderr);
	host_warnings(s);
	if (compare_plan(c, s, &cp)) {
		spec_free(s);
		return EXIT_USAGE;
	}
	ret = check_containers(s, !json && !quiet);
	if (ret != EXIT_OK) {
		cmp_plan_release(&cp);
		spec_free(s);
		return ret;
	}
	s_dirty = strcmp(path, "-") ? warn_uncommitted(path) : 1;
	plan_compute(s, &p);
	if (json)
		ret = print_json(s, &p, &cp, s_dirty);
	else if (!quiet) {
		print_text(s, &p);
		cmp_plan_print(&cp, s);
	}
	cmp_plan_release(&cp);
	free(p.rungs);
	spec_free(s);
	return ret;
}

const struct cmd_desc cmd_check_desc = {
	.name = "check",
	.summary = "validate a spec and print the plan and its hash",
	.synopsis = "SPEC|- [options]",
	.about =
	"Validate SPEC (YAML, see specs/README.md) and print the plan: implementations,\n"
	"the pre-flight (requests x sends x implementations, equivalence and base modes),\n"
	"stages, the ladder's rungs, windows per stage (worst case: refine at\n"
	"max_steps, every rejected window replaced up to retries.max_per_cell), an\n"
	"estimate of the total wall time including warm-ups (its worst case with\n"
	"the replacements retries.extra_time_pct allows), and the spec hash.\n"
	"Every problem is printed as FILE:LINE:COL: key.path: what is wrong.\n"
	"A well-formed spec that can never pass is refused too: a warm-up gate\n"
	"needing more seconds than warmup.trailing_s (or more runtime-stats polls\n"
	"than trailing_s x poll_hz), a window gate needing more than a stage's\n"
	"measured window_s - discard_s (gates' min_points). Warnings, printed as\n"
	"FILE:LINE:COL: warning: key.path: ..., do not change the exit status: a\n"
	"max_rps above what the generator is known to hold, a start whose argv and env\n"
	"never use {port}, an implementation restarted per window with no warm-up\n"
	"(min_s 0, gates []) (specs/README.md).\n"
	"SPEC - reads standard input (relative paths then resolve against the cwd).\n"
	"\n"
	"After the plan: what `harness compare` of a rerun --with-baseline can decide\n"
	"with it (docs/STATISTICS.md, \"Plans that can decide\"): per judged metric\n"
	"the pairs its pooled test gets, the pairs its first Holm step needs and,\n"
	"with --base RUN (a finished run of this spec), the smallest shift compare\n"
	"could call, from that run's window-to-window spread. A spec with a\n"
	"compare: section whose plan gives a metric fewer pairs than its pooled\n"
	"test needs, and whose unpaired cells cannot reach their level either, can\n"
	"never decide: refused (one line with the numbers, exit 2).\n"
	"And what a rerun --until-decided needs at the least: the round each\n"
	"metric's sequence can first decide at (latency by median_cs: 9 at the\n"
	"default alpha and two metrics; CPU by mean_cs: 3) and the time those\n"
	"rounds take (a round: 2 windows x (warm-up min_s + ladder window_s) per\n"
	"judged rate); a warning when compare.sequential.max_minutes is below it.\n"
	"\n"
	"Arms that run as containers: the engine, its version, the ulimits each\n"
	"container gets and the exact build and create argv; a missing engine\n"
	"exits 3, an image not in the engine's local images or a missing\n"
	"Containerfile exits 2 (one line each).\n"
	"\n"
	"Exit status: 0 valid, 2 invalid spec or usage error, 3 the container\n"
	"engine is missing.\n"
	"\n"
	"A spec that is not committed (modified, untracked, or outside any git\n"
	"repository) gets a warning: `harness run` refuses it without --allow-dirty.\n"
	"\n"
	"--json prints the plan (keys: spec_hash, spec_committed, implementations, rungs_rps,\n"
	"windows, estimated_seconds, estimated_seconds_max, ...; windows.total is the\n"
	"pre-registered count, windows.total_max adds every replacement\n"
	"retries.max_per_cell allows and confirm's follow-up rates,\n"
	"windows.confirm_follow_max).\n",
	.opts = options,
	.flags = CMD_JSON | CMD_RUNS_DIR,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_check,
};
