/*
 * spec_check: the checks that involve more than one key (unique names,
 * start <= max, discard < window, warm-up rate and bounds), path
 * resolution against the spec's directory, and reading body files.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sigexpr.h"
#include "base/jsonptr.h"
#include "base/promtext.h"
#include "spec/spec_internal.h"
#include "base/util.h"

#define MAX_RUNGS 1000
#define MAX_BODY_FILE (64u * 1024 * 1024)

/* ---------------------------------------------------- cross-key checks */

void spec_err_at(struct vctx *v, const char *path, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;
	int line, col;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	spec_path_pos(v, path, &line, &col);
	spec_diag_add(v->d, line, col, path, "%s", sb.buf);
	sbuf_release(&sb);
}

/* spec_internal.h; the lists are the spec's arrays of structs, each
 * with its name at an offset. */
void spec_unique_name(struct vctx *v, const void *entries, size_t size, size_t name_off,
		      size_t i, const char *list)
{
	const char *base = entries;
	const char *name = *(char *const *)(base + i * size + name_off), *other;
	char p[96];
	size_t j;

	for (j = 0; j < i && name; j++) {
		other = *(char *const *)(base + j * size + name_off);
		if (other && !strcmp(other, name)) {
			snprintf(p, sizeof(p), "%s[%zu].name", list, i);
			spec_err_at(v, p, "duplicate name \"%s\" (%s[%zu] has it)", name, list, j);
			return;
		}
	}
}

static void diag_at(struct vctx *v, struct spec_diags *d, const char *prefix,
		    const char *path, const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT, p = SBUF_INIT;
	int line, col;

	sbuf_vaddf(&sb, fmt, ap);
	sbuf_addf(&p, "%s%s", prefix, path);
	spec_path_pos(v, path, &line, &col);
	spec_diag_add(d, line, col, p.buf, "%s", sb.buf);
	sbuf_release(&sb);
	sbuf_release(&p);
}

void spec_refuse_at(struct vctx *v, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_at(v, v->refuse ? v->refuse : v->d, "", path, fmt, ap);
	va_end(ap);
}

void spec_warn_at(struct vctx *v, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (!v->warn)
		return;
	va_start(ap, fmt);
	diag_at(v, v->warn, "warning: ", path, fmt, ap);
	va_end(ap);
}

int spec_given(struct vctx *v, const char *path)
{
	return spec_node_at(v->root, path) != NULL;
}

static void fmt_num(char *buf, size_t n, double x)
{
	snprintf(buf, n, "%g", x);
}

static void check_window(struct vctx *v, const char *stage, double window_s, double discard_s)
{
	char p[64], a[32], b[32];

	/* The load engine reports whole seconds and the per-second series are
	 * what the gates test, so a window is a whole number of seconds. */
	if (window_s != floor(window_s) || discard_s != floor(discard_s)) {
		int w = window_s != floor(window_s);
		snprintf(p, sizeof(p), "stages.%s.%s", stage, w ? "window_s" : "discard_s");
		fmt_num(a, sizeof(a), w ? window_s : discard_s);
		if (!spec_given(v, p))
			snprintf(p, sizeof(p), "stages.ladder.%s", w ? "window_s" : "discard_s");
		spec_err_at(v, p, "must be a whole number of seconds, got %s", a);
		return;
	}
	if (discard_s < window_s || window_s <= 0)
		return;
	snprintf(p, sizeof(p), "stages.%s.discard_s", stage);
	fmt_num(a, sizeof(a), discard_s);
	fmt_num(b, sizeof(b), window_s);
	if (!spec_given(v, p))
		snprintf(p, sizeof(p), "stages.%s.window_s", stage);
	spec_err_at(v, p, "discard_s (%s) must be < window_s (%s): window_s includes the discarded head",
	       a, b);
}

/* Lexically normalise base/rel (".", "..", "//"); returns malloc'd. */
char *spec_resolve(const char *base, const char *rel)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT;
	char *save = NULL, *tok;

	if (rel[0] != '/')
		sbuf_addf(&in, "%s/", base);
	sbuf_adds(&in, rel);
	for (tok = strtok_r(in.buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			char *slash = strrchr(out.buf, '/');
			if (slash) {
				out.len = (size_t)(slash - out.buf);
				out.buf[out.len] = '\0';
			}
			continue;
		}
		sbuf_addf(&out, "/%s", tok);
	}
	if (!out.len)
		sbuf_adds(&out, "/");
	sbuf_release(&in);
	return sbuf_detach(&out, NULL);
}

/* Entry i of LIST (implementations, dependencies): its position in the
 * file (for the messages that name it later), and its repo resolved
 * against the spec's directory. */
static void place_impl(struct vctx *v, struct spec_impl *im, const char *list, size_t i)
{
	const struct ynode *n;
	char p[64];

	snprintf(p, sizeof(p), "%s[%zu]", list, i);
	n = spec_node_at(v->root, p);
	if (n) {
		im->line = n->line;
		im->col = n->col;
	}
	if (im->repo) {
		char *r = spec_resolve(v->s->base_dir, im->repo);
		free(im->repo);
		im->repo = r;
	}
}

static void check_impls(struct vctx *v)
{
	struct spec *s = v->s;
	char p[64];
	size_t i;

	for (i = 0; i < s->nimpls; i++) {
		place_impl(v, &s->impls[i], "implementations", i);
		spec_unique_name(v, s->impls, sizeof(*s->impls), offsetof(struct spec_impl, name), i,
				 "implementations");
		/* a jail's limits are its cgroup's: procfs has none (DESIGN.md,
		 * the sandbox) */
		snprintf(p, sizeof(p), "implementations[%zu].sandbox", i);
		if (s->impls[i].sandbox == SANDBOX_ALWAYS && s->accounting.backend == ACCT_PROCFS)
			spec_err_at(v, p, "always: accounting.backend procfs cannot enforce the"
				    " sandbox's memory, pids and cpu limits; use auto, cgroup2 or cgroup1");
	}
}

/* Move the derived signals ("= EXPR") out of im->signals into
 * im->derived, each parsed against the polled signals' names (sigexpr.h). */
static void split_derived(struct vctx *v, size_t i, struct spec_impl *im)
{
	const char **names = xcalloc(im->nsignals + 1, sizeof(*names));
	size_t k, n = 0, m = 0;
	char p[160];

	for (k = 0; k < im->nsignals; k++)
		if (im->signals[k].pointer[0] != '=')
			names[n++] = im->signals[k].name;
	for (k = 0; k < im->nsignals; k++) {
		struct spec_signal *sg = &im->signals[k];
		struct sigexpr *x;
		const char *expr;
		char *err;

		if (sg->pointer[0] != '=') {
			im->signals[m++] = *sg;
			continue;
		}
		expr = sg->pointer + 1 + strspn(sg->pointer + 1, " \t");
		if (sigexpr_parse(expr, names, n, &x, &err)) {
			snprintf(p, sizeof(p), "implementations[%zu].stats.signals.%s", i, sg->name);
			spec_err_at(v, p, "%s (in \"%.60s\")", err, expr);
			free(err);
		}
		sigexpr_free(x);
		im->derived = xrealloc(im->derived, (im->nderived + 1) * sizeof(*im->derived));
		im->derived[im->nderived].name = sg->name;
		im->derived[im->nderived++].expr = xstrdup(expr);
		free(sg->pointer);
	}
	im->nsignals = m;
	free(names);
}

/* 1 when the start argv or an env value of im says "{port}". */
static int uses_port(const struct spec_impl *im)
{
	size_t k;

	for (k = 0; im->start && im->start[k]; k++)
		if (strstr(im->start[k], "{port}"))
			return 1;
	for (k = 0; k < im->nenv; k++)
		if (im->env[k].value && strstr(im->env[k].value, "{port}"))
			return 1;
	return 0;
}

/* Each start gets a free port and the load (and {dep.NAME.port}) goes
 * there: a server on a port of its own choosing gets none of it, and a
 * health URL on that port can answer for another server (issue 29). A
 * warning: a start may read its port some other way; one with a fixed
 * port: declares where it listens (the load goes there). */
static void check_port_use(struct vctx *v)
{
	const struct spec *s = v->s;
	char p[64];
	size_t i;

	for (i = 0; i < s->nimpls + s->ndeps; i++) {
		const struct spec_impl *im = i < s->nimpls ? &s->impls[i] : &s->deps[i - s->nimpls].impl;
		const char *sec = i < s->nimpls ? "implementations" : "dependencies";
		size_t k = i < s->nimpls ? i : i - s->nimpls;

		if (!im->start || im->port || uses_port(im))
			continue;
		snprintf(p, sizeof(p), "%s[%zu].start", sec, k);
		spec_warn_at(v, p, "never uses {port} (nor does its env): each start is given a free"
			     " port and the %s goes there, so a server on a fixed port gets none of it"
			     " (and a health URL on that port may answer for another server); pass"
			     " \"{port}\" in start or env", i < s->nimpls ? "load" : "{dep.NAME.port} of others");
	}
}

/* Each signal is what stats.format reads: a JSON pointer for json, a
 * metric selector for prometheus (the two never overlap: a pointer starts
 * with '/', a metric name cannot); a derived one ("= EXPR") is moved to
 * im->derived. */
static void check_signals(struct vctx *v)
{
	struct spec *s = v->s;
	size_t i, k;
	char p[96];

	for (i = 0; i < s->nimpls; i++) {
		struct spec_impl *im = &s->impls[i];
		int prom = im->stats_format == STATS_PROMETHEUS;

		split_derived(v, i, im);
		for (k = 0; k < im->nsignals; k++) {
			const char *sig = im->signals[k].pointer;

			if (prom == prom_selector_valid(sig))
				continue;
			snprintf(p, sizeof(p), "implementations[%zu].stats.signals.%s", i,
				 im->signals[k].name);
			if (prom)
				spec_err_at(v, p, "stats.format is prometheus: want a metric selector"
					    " like db_pool{state=\"busy\"}, got \"%.60s\"", sig);
			else
				spec_err_at(v, p, "stats.format is json: want a JSON pointer like"
					    " /gc/count (or set stats.format: prometheus), got \"%.60s\"",
					    sig);
		}
	}
}

/* Read a referenced file; problems are reported at path (as the user wrote it). */
int spec_read_ref_file(struct vctx *v, const char *abs, struct sbuf *sb, size_t max,
			 const char *path, const char *as_written)
{
	int fd, r, ret = -1;
	struct stat st;

	/* O_NONBLOCK: a FIFO must not hang `harness check` */
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		spec_err_at(v, path, "cannot read \"%s\": %s", as_written, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		spec_err_at(v, path, "\"%s\" is not a regular file", as_written);
		goto out;
	}
	r = read_fd(fd, sb, max);
	if (r < 0) {
		spec_err_at(v, path, "cannot read \"%s\": %s", as_written, strerror(errno));
		goto out;
	}
	if (r > 0) {
		spec_err_at(v, path, "\"%s\" is larger than %zu MiB", as_written, max >> 20);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static void check_requests(struct vctx *v)
{
	struct spec_workload *w = &v->s->workload;
	struct sbuf sb = SBUF_INIT;
	size_t i, j;
	char p[96];

	for (i = 0; i < w->nrequests; i++) {
		struct load_request *r = &w->requests[i];

		spec_unique_name(v, w->requests, sizeof(*w->requests),
				 offsetof(struct load_request, name), i, "workload.requests");
		if (r->expect.body_contains && (!r->expect.body_contains_len ||
						r->expect.body_contains_len > LOAD_EXPECT_MAX_BODY)) {
			snprintf(p, sizeof(p), "workload.requests[%zu].expect.body_contains", i);
			spec_err_at(v, p, "must be 1 to %d bytes, got %zu", LOAD_EXPECT_MAX_BODY,
				    r->expect.body_contains_len);
		}
		if (r->expect.content_type && (strlen(r->expect.content_type) >= 128 ||
					       strpbrk(r->expect.content_type, ";\r\n"))) {
			snprintf(p, sizeof(p), "workload.requests[%zu].expect.content_type", i);
			spec_err_at(v, p, "must be a media type like application/json (under 128"
				    " bytes, no parameters)");
		}
		for (j = 0; j < r->expect.njson; j++) {
			if (jsonptr_valid(r->expect.json[j].key)) {
				snprintf(p, sizeof(p), "workload.requests[%zu].expect.json", i);
				spec_err_at(v, p, "\"%s\" is not a JSON pointer (RFC 6901: \"\" or"
					    " /a/b/0; ~0 for ~, ~1 for /)", r->expect.json[j].key);
			}
		}
		if (!r->body_file)
			continue;
		snprintf(p, sizeof(p), "workload.requests[%zu].body_file", i);
		if (r->body) {
			spec_err_at(v, p, "give body or body_file, not both");
			continue;
		}
		{
			char *abs = spec_resolve(v->s->base_dir, r->body_file);
			sbuf_reset(&sb);
			if (spec_read_ref_file(v, abs, &sb, MAX_BODY_FILE, p, r->body_file) == 0) {
				r->body = sbuf_detach(&sb, &r->body_len);
			}
			free(r->body_file);
			r->body_file = abs;
		}
	}
	sbuf_release(&sb);
}

static void check_stages(struct vctx *v)
{
	struct spec *s = v->s;
	struct spec_ladder *l = &s->ladder;
	char a[32], b[32];
	double *rates = NULL;
	size_t n;

	if (l->start_rps > 0 && l->max_rps > 0 && l->max_rps < l->start_rps) {
		fmt_num(a, sizeof(a), l->max_rps);
		fmt_num(b, sizeof(b), l->start_rps);
		spec_err_at(v, "stages.ladder.max_rps", "must be >= start_rps (%s), got %s", b, a);
	}
	check_window(v, "ladder", l->window_s, l->discard_s);
	if (l->start_rps > 0 && l->step > 1 && l->max_rps >= l->start_rps) {
		/* count without allocating a million rungs */
		double k = floor(log(l->max_rps / l->start_rps) / log(l->step)) + 1;
		if (k > MAX_RUNGS) {
			spec_err_at(v, "stages.ladder.step",
			       "gives %.0f rungs from start_rps to max_rps; at most %d", k, MAX_RUNGS);
		} else {
			n = spec_ladder_rungs(s, &rates);
			free(rates);
			(void)n;
		}
	}
	if (s->confirm.present) {
		if (!spec_given(v, "stages.confirm.window_s"))
			s->confirm.window_s = l->window_s;
		if (!spec_given(v, "stages.confirm.discard_s"))
			s->confirm.discard_s = l->discard_s;
		check_window(v, "confirm", s->confirm.window_s, s->confirm.discard_s);
		if (s->confirm.until.present && s->confirm.until.max_reps < s->confirm.reps)
			spec_err_at(v, "stages.confirm.until.max_reps",
				    "must be >= stages.confirm.reps (%d), got %d: it counts the "
				    "reps blocks too", s->confirm.reps, s->confirm.until.max_reps);
	}
	if (s->refine.present) {
		if (!spec_given(v, "stages.refine.window_s"))
			s->refine.window_s = l->window_s;
		if (!spec_given(v, "stages.refine.discard_s"))
			s->refine.discard_s = l->discard_s;
		check_window(v, "refine", s->refine.window_s, s->refine.discard_s);
	}
	if (s->soak.present)
		check_window(v, "soak", s->soak.window_s, s->soak.discard_s);
}

static void check_warmup(struct vctx *v)
{
	struct spec_warmup *w = &v->s->warmup;
	int fixed = spec_given(v, "warmup.rate.fixed_rps");
	char a[32], b[32];

	if (fixed && spec_given(v, "warmup.rate.knee_fraction"))
		spec_err_at(v, "warmup.rate.fixed_rps", "give fixed_rps or knee_fraction, not both");
	else if (fixed && spec_given(v, "warmup.rate.min_rps"))
		spec_err_at(v, "warmup.rate.min_rps", "applies to knee_fraction only, not to fixed_rps");
	if (!fixed && !spec_given(v, "warmup.rate.knee_fraction"))
		w->knee_fraction = 0.5;
	if (fixed)
		w->knee_fraction = 0;
	if (w->min_s > w->max_s) {
		fmt_num(a, sizeof(a), w->min_s);
		fmt_num(b, sizeof(b), w->max_s);
		spec_err_at(v, spec_given(v, "warmup.max_s") ? "warmup.max_s" : "warmup.min_s",
		       "max_s (%s) must be >= min_s (%s)", b, a);
	}
	if (w->trailing_s > w->max_s) {
		fmt_num(a, sizeof(a), w->trailing_s);
		fmt_num(b, sizeof(b), w->max_s);
		spec_err_at(v, spec_given(v, "warmup.trailing_s") ? "warmup.trailing_s" : "warmup.max_s",
		       "trailing_s (%s) must be <= max_s (%s)", a, b);
	}
}

/* An implementation started afresh before each window (restart:
 * per_window, the default) with no warm-up (min_s 0 and gates []: no
 * warm-up load at all, DESIGN.md "Warm-up length") has each window
 * measure a server that has just started: cold caches, an unwarmed JIT,
 * a pool still filling. A warning: a test may want exactly that. */
static void check_cold_start(struct vctx *v)
{
	const struct spec *s = v->s;
	char p[64];
	size_t i;

	if (s->warmup.min_s > 0 || s->warmup.ngates)
		return;
	for (i = 0; i < s->nimpls; i++) {
		if (s->impls[i].restart != RESTART_PER_WINDOW)
			continue;
		snprintf(p, sizeof(p), "implementations[%zu].restart", i);
		spec_warn_at(v, p, "\"%s\" is started afresh before every window (restart: per_window%s)"
			     " and there is no warm-up (warmup.min_s 0, gates []): each window measures"
			     " a server that has just started (only its discard_s head, if any, runs before its"
			     " measured seconds); set warmup.min_s (seconds of load before each window) or warmup.gates",
			     s->impls[i].name, spec_given(v, p) ? "" : ", the default");
	}
}

/*
 * What `check` can know the load generator holds at the ladder's top rung
 * (the highest rate any stage offers), from the spec alone
 * (warnings, never refusals: the machine decides, and the generator gate
 * rejects the windows where it fell behind):
 *   - connections: an open-loop request waits for a free connection once
 *     the rate times the response time exceeds workload.connections
 *     (Little's law), so a server answering at the SLO's threshold can be
 *     offered at most connections / threshold_ms req/s before the waiting
 *     is the generator's, not the server's;
 *   - threads: each generator thread holds about GEN_RPS_PER_THREAD_*
 *     req/s, the highest rate bench/README.md measured one thread to hold
 *     (achieved >= 99% of offered, lateness p99 < 1 ms) on a shared 2-core
 *     VM, rounded down: native 16,875 with 1 thread, curl 7,500 with 2.
 * `make bench` measures this machine's figures.
 */
#define GEN_RPS_PER_THREAD_NATIVE 16000.0
#define GEN_RPS_PER_THREAD_CURL 3700.0

static void check_generator(struct vctx *v)
{
	const struct spec *s = v->s;
	const struct spec_workload *w = &s->workload;
	double max_rps, by_conns, by_threads, per_thread, *rates = NULL;
	int curl = w->transport == TRANSPORT_CURL;
	size_t n;

	if (v->d->n || !(s->slo.threshold_ms > 0) || w->connections < 1 || w->threads < 1)
		return; /* the ladder is not known to be sound */
	/* The top rung, which max_rps bounds but need not equal. */
	n = spec_ladder_rungs(s, &rates);
	max_rps = n ? rates[n - 1] : 0;
	free(rates);
	if (!(max_rps > 0))
		return;
	by_conns = w->connections / (s->slo.threshold_ms / 1000.0);
	if (max_rps > by_conns)
		spec_warn_at(v, "stages.ladder.max_rps",
			     "the top rung, %.0f req/s, is above %.0f req/s, what %d connections carry when responses"
			     " take the SLO's %g ms (workload.connections / slo.threshold_ms):"
			     " above it requests wait for a free connection and the knee may be"
			     " the generator's; raise workload.connections to at least %.0f",
			     max_rps, by_conns, w->connections, s->slo.threshold_ms,
			     ceil(max_rps * s->slo.threshold_ms / 1000.0));
	per_thread = curl ? GEN_RPS_PER_THREAD_CURL : GEN_RPS_PER_THREAD_NATIVE;
	by_threads = per_thread * w->threads;
	if (max_rps > by_threads)
		spec_warn_at(v, "stages.ladder.max_rps",
			     "the top rung, %.0f req/s, is above %.0f req/s, what %d %s generator thread%s can be"
			     " known to hold (bench/README.md measured about %.0f req/s per"
			     " thread); the generator gate will reject the windows it cannot"
			     " keep: raise workload.threads, or run `make bench` on this machine",
			     max_rps, by_threads, w->threads, curl ? "curl" : "native",
			     w->threads == 1 ? "" : "s", per_thread);
}

/* Dependencies run in their repo (default: the spec's directory); their
 * position is kept for the messages that name them. */
static void resolve_dep_repos(struct vctx *v)
{
	struct spec *s = v->s;
	size_t i;

	for (i = 0; i < s->ndeps; i++)
		place_impl(v, &s->deps[i].impl, "dependencies", i);
}

/* workload.preflight.ignore: JSON pointers, and only with strict. A
 * templated workload's default is SPEC_PREFLIGHT_TMPL_SENDS sends: each
 * template expanded a few times (other ids, other rows), not once. */
static void check_preflight(struct vctx *v)
{
	struct spec_preflight *pf = &v->s->workload.preflight;
	char p[64];
	size_t i;

	if (v->s->workload.nvars && !spec_node_at(v->root, "workload.preflight.sends"))
		pf->sends = SPEC_PREFLIGHT_TMPL_SENDS;
	for (i = 0; pf->ignore && pf->ignore[i]; i++) {
		snprintf(p, sizeof(p), "workload.preflight.ignore[%zu]", i);
		if (jsonptr_valid(pf->ignore[i]) || !pf->ignore[i][0])
			spec_err_at(v, p, "\"%s\" is not a JSON pointer into a body (RFC 6901:"
				    " /a/b/0; ~0 for ~, ~1 for /)", pf->ignore[i]);
	}
	if (pf->ignore && pf->equivalence != EQUIV_STRICT)
		spec_err_at(v, "workload.preflight.ignore",
			    "is only read with equivalence: strict");
}

void spec_check_all(struct vctx *v)
{
	check_impls(v);
	check_port_use(v);
	check_signals(v);
	check_preflight(v);
	resolve_dep_repos(v);
	check_requests(v);
	check_stages(v);
	check_warmup(v);
	check_cold_start(v);
	check_generator(v);
}
