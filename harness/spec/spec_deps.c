/*
 * spec_deps: the dependencies: list across keys. Names are unique; every
 * {dep.NAME.port} / {dep.NAME.host} reference names a declared dependency,
 * and a dependency refers only to those declared before it (they start in
 * order, so a reference to itself or to a later one, and with it every
 * cycle, is refused); health is exactly one of url, tcp or command.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "base/sigexpr.h"
#include "base/util.h"

int spec_dep_index(const struct spec *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; s && name && i < s->ndeps; i++)
		if (s->deps[i].impl.name && strlen(s->deps[i].impl.name) == len &&
		    !memcmp(s->deps[i].impl.name, name, len))
			return (int)i;
	return -1;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

int spec_dep_ref_next(const char *s, size_t len, size_t *pos, size_t *at, size_t *reflen,
		      const char **name, size_t *namelen, int *is_port)
{
	static const char head[] = "{dep.";
	size_t i, j, end;

	for (i = *pos; i + sizeof(head) - 1 <= len; i++) {
		if (memcmp(s + i, head, sizeof(head) - 1))
			continue;
		j = i + sizeof(head) - 1;
		for (end = j; end < len && ident_char(s[end]); end++)
			;
		*at = i;
		*name = s + j;
		*namelen = 0;
		*is_port = 0;
		/* NAME.port} or NAME.host}: the name is what precedes the
		 * last '.' (names may hold dots themselves). */
		if (end < len && s[end] == '}' && end - j > 5 &&
		    (!memcmp(s + end - 5, ".port", 5) || !memcmp(s + end - 5, ".host", 5))) {
			*namelen = end - 5 - j;
			*is_port = !memcmp(s + end - 5, ".port", 5);
			*reflen = end + 1 - i;
		} else {
			*reflen = end - i;
		}
		*pos = i + (*reflen ? *reflen : 1);
		return 1;
	}
	return 0;
}

/* "db, cache" or "none" into sb (once). */
static const char *dep_names(const struct spec *s, struct sbuf *sb)
{
	size_t i;

	if (sb->len)
		return sb->buf;
	for (i = 0; i < s->ndeps; i++)
		sbuf_addf(sb, "%s%s", i ? ", " : "", s->deps[i].impl.name ? s->deps[i].impl.name : "?");
	if (!sb->len)
		sbuf_adds(sb, "none");
	return sb->buf;
}

/* Every reference in s resolves to a dependency with index < limit. */
static void check_refs(struct vctx *v, const char *path, const char *s, size_t len, size_t limit,
		       const char *self)
{
	size_t pos = 0, at, rl, nl;
	const char *name;
	struct sbuf names;
	int port, k;

	if (!s)
		return;
	sbuf_init(&names);
	while (spec_dep_ref_next(s, len, &pos, &at, &rl, &name, &nl, &port)) {
		if (!nl) {
			spec_err_at(v, path, "malformed reference \"%.*s\": write {dep.NAME.port} or"
				    " {dep.NAME.host}", (int)(rl > 60 ? 60 : rl), s + at);
			continue;
		}
		k = spec_dep_index(v->s, name, nl);
		if (k < 0)
			spec_err_at(v, path, "no dependency named \"%.*s\" (declared: %s)", (int)nl, name,
				    dep_names(v->s, &names));
		else if ((size_t)k >= limit)
			spec_err_at(v, path, "dependency %s refers to %s%.*s: a dependency may refer"
				    " only to those declared before it (they start in order)", self,
				    (size_t)k == limit ? "itself, " : "", (int)nl, name);
	}
	sbuf_release(&names);
}

static void check_argv(struct vctx *v, const char *path, char **argv, size_t limit,
		       const char *self)
{
	char p[160];
	size_t i;

	for (i = 0; argv && argv[i]; i++) {
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		check_refs(v, p, argv[i], strlen(argv[i]), limit, self);
	}
}

static void check_kv(struct vctx *v, const char *path, const struct kv *kv, size_t n,
		     size_t limit, const char *self)
{
	char p[160];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s.%s", path, kv[i].key);
		check_refs(v, p, kv[i].value, strlen(kv[i].value), limit, self);
	}
}

static void check_impl_refs(struct vctx *v, const char *base, const struct spec_impl *im,
			    size_t limit, const char *self)
{
	char p[128];

	snprintf(p, sizeof(p), "%s.start", base);
	check_argv(v, p, im->start, limit, self);
	snprintf(p, sizeof(p), "%s.env", base);
	check_kv(v, p, im->env, im->nenv, limit, self);
	snprintf(p, sizeof(p), "%s.reset", base);
	check_argv(v, p, im->reset, limit, self);
	snprintf(p, sizeof(p), "%s.health.url", base);
	if (im->health_url)
		check_refs(v, p, im->health_url, strlen(im->health_url), limit, self);
	snprintf(p, sizeof(p), "%s.stats.url", base);
	if (im->stats_url)
		check_refs(v, p, im->stats_url, strlen(im->stats_url), limit, self);
	snprintf(p, sizeof(p), "%s.container.args", base);
	check_argv(v, p, im->ctr.args, limit, self);
	snprintf(p, sizeof(p), "%s.container.env", base);
	check_kv(v, p, im->ctr.env, im->ctr.nenv, limit, self);
}

/* dependencies[].stats and .ladder: argv references, the throughput
 * pattern compiles with a group, not with host (they run here). */
static void check_dep_study(struct vctx *v, size_t i, const struct spec_dep *d, const char *p)
{
	const char *self = d->impl.name ? d->impl.name : "?";
	char q[128];
	regex_t re;
	int rc;

	snprintf(q, sizeof(q), "%s.stats.command", p);
	check_argv(v, q, d->stats_cmd, i, self);
	snprintf(q, sizeof(q), "%s.ladder.command", p);
	check_argv(v, q, d->ladder_cmd, i, self);
	if ((d->stats_cmd || d->ladder_present) && d->impl.host) {
		snprintf(q, sizeof(q), "%s.%s", p, d->stats_cmd ? "stats" : "ladder");
		spec_err_at(v, q, "is not available with host (its command runs on this host)");
	}
	if (!d->ladder_present || !d->ladder_throughput)
		return;
	snprintf(q, sizeof(q), "%s.ladder.throughput", p);
	rc = regcomp(&re, d->ladder_throughput, REG_EXTENDED);
	if (rc) {
		char msg[128];
		regerror(rc, &re, msg, sizeof(msg));
		spec_err_at(v, q, "not a POSIX extended regular expression (%s): \"%.60s\"", msg,
			    d->ladder_throughput);
		return;
	}
	if (re.re_nsub < 1)
		spec_err_at(v, q, "needs a group, the number achieved: \"tps = ([0-9.]+)\", got \"%.60s\"",
			    d->ladder_throughput);
	regfree(&re);
	if (d->ladder_start > d->ladder_max) {
		snprintf(q, sizeof(q), "%s.ladder.start_rate", p);
		spec_err_at(v, q, "%g is above max_rate %g", d->ladder_start, d->ladder_max);
	}
}

/* dependencies[].stats.signals: each "= EXPR" over its counters, one
 * value per window from the two readings around its load (sigexpr.h with
 * any name: the counters are what its command prints). rate() is refused:
 * the readings' span is not stored, so a rate would be a guess. */
static void check_dep_signals(struct vctx *v, const struct spec_dep *d, const char *p)
{
	char q[160];
	size_t k;

	for (k = 0; k < d->nstats_signals; k++) {
		const char *e = d->stats_signals[k].pointer;
		struct sigexpr *x = NULL;
		char *err = NULL;

		snprintf(q, sizeof(q), "%s.stats.signals.%s", p, d->stats_signals[k].name);
		if (e[0] != '=') {
			spec_err_at(v, q, "a dependency's signal is derived from its stats command's"
				    " counters: \"= delta(keyspace_hits) / (delta(keyspace_hits) +"
				    " delta(keyspace_misses))\", got \"%.60s\"", e);
			continue;
		}
		e += 1 + strspn(e + 1, " \t");
		if (sigexpr_parse(e, NULL, 0, &x, &err))
			spec_err_at(v, q, "%s (in \"%.60s\")", err, e);
		else if (sigexpr_kind(x) != SIGEXPR_WINDOW)
			spec_err_at(v, q, "its counters are read twice a window (before and after its"
				    " load): write each inside delta(), last(), min(), max() or mean(),"
				    " got \"%.60s\"", e);
		else if (sigexpr_uses(x, "rate"))
			spec_err_at(v, q, "rate() is not available over a dependency's counters (the"
				    " readings' span is not stored): use delta(), got \"%.60s\"", e);
		sigexpr_free(x);
		free(err);
	}
}

static void check_dep(struct vctx *v, size_t i)
{
	struct spec_dep *d = &v->s->deps[i];
	const char *self = d->impl.name ? d->impl.name : "?";
	char p[96], q[128];
	int kinds = !!d->impl.health_url + !!d->health_tcp + !!d->health_cmd;

	snprintf(p, sizeof(p), "dependencies[%zu]", i);
	spec_unique_name(v, v->s->deps, sizeof(*v->s->deps), offsetof(struct spec_dep, impl.name),
			 i, "dependencies");
	if (kinds > 1) {
		snprintf(q, sizeof(q), "%s.health", p);
		spec_err_at(v, q, "give one of url, tcp or command, not %d", kinds);
	}
	if (d->health_tcp && strncmp(d->health_tcp, "127.0.0.1:", 10)) {
		snprintf(q, sizeof(q), "%s.health.tcp", p);
		spec_err_at(v, q, "must be \"127.0.0.1:PORT\" (e.g. \"127.0.0.1:{port}\"), got \"%.60s\"",
			    d->health_tcp);
	}
	check_impl_refs(v, p, &d->impl, i, self);
	snprintf(q, sizeof(q), "%s.health.tcp", p);
	if (d->health_tcp)
		check_refs(v, q, d->health_tcp, strlen(d->health_tcp), i, self);
	snprintf(q, sizeof(q), "%s.health.command", p);
	check_argv(v, q, d->health_cmd, i, self);
	snprintf(q, sizeof(q), "%s.version", p);
	check_argv(v, q, d->version, i, self);
	snprintf(q, sizeof(q), "%s.setup", p);
	check_argv(v, q, d->setup, i, self);
	check_dep_study(v, i, d, p);
	check_dep_signals(v, d, p);
}

void spec_check_deps(struct vctx *v)
{
	struct spec *s = v->s;
	size_t i, j, n = s->ndeps;
	char p[96], q[160];

	for (i = 0; i < n; i++)
		check_dep(v, i);
	for (i = 0; i < s->nimpls; i++) {
		snprintf(p, sizeof(p), "implementations[%zu]", i);
		check_impl_refs(v, p, &s->impls[i], n, NULL);
	}
	for (i = 0; i < s->workload.nrequests; i++) {
		const struct load_request *r = &s->workload.requests[i];

		snprintf(p, sizeof(p), "workload.requests[%zu].path", i);
		if (r->path)
			check_refs(v, p, r->path, strlen(r->path), n, NULL);
		snprintf(p, sizeof(p), "workload.requests[%zu].body", i);
		if (r->body)
			check_refs(v, p, r->body, r->body_len, n, NULL);
		for (j = 0; j < r->nheaders; j++) {
			snprintf(q, sizeof(q), "workload.requests[%zu].headers.%s", i,
				 r->headers[j].key);
			check_refs(v, q, r->headers[j].value, strlen(r->headers[j].value), n, NULL);
		}
	}
}
