/*
 * load_req: the target URL, the request bytes built once before the run
 * (wrk's way: the hot path only copies bytes to a socket), and the weighted
 * request mix.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "load/load_internal.h"
#include "base/util.h"

/* ------------------------------------------------------------------ URL */

void load_url_release(struct load_url *u)
{
	free(u->host);
	free(u->port);
	free(u->hostport);
	free(u->origin);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

int load_url_parse(const char *url, struct load_url *u, const char **why)
{
	const char *p, *hs, *he, *ps = NULL, *pe, *rest;
	struct sbuf sb = SBUF_INIT;
	long port;

	memset(u, 0, sizeof(*u));
	if (!strncasecmp(url, "http://", 7)) {
		p = url + 7;
	} else if (!strncasecmp(url, "https://", 8)) {
		u->https = 1;
		p = url + 8;
	} else {
		*why = "want http:// or https://";
		return -1;
	}
	rest = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(rest - p))) {
		*why = "user:password@ in URLs is not supported (use --header Authorization)";
		return -1;
	}
	if (*p == '[') {
		hs = p + 1;
		he = memchr(hs, ']', (size_t)(rest - hs));
		if (!he) {
			*why = "unterminated [IPv6] host";
			return -1;
		}
		pe = he + 1;
	} else {
		hs = p;
		he = p;
		while (he < rest && *he != ':')
			he++;
		pe = he;
	}
	if (he == hs) {
		*why = "no host";
		return -1;
	}
	if (pe < rest) {
		char buf[16];
		size_t n;

		if (*pe != ':') {
			*why = "junk after the host";
			return -1;
		}
		ps = pe + 1;
		n = (size_t)(rest - ps);
		if (!n || n >= sizeof(buf)) {
			*why = "bad port";
			return -1;
		}
		memcpy(buf, ps, n);
		buf[n] = 0;
		if (parse_long(buf, &port) || port < 1 || port > 65535) {
			*why = "bad port";
			return -1;
		}
	} else {
		port = u->https ? 443 : 80;
	}
	for (p = hs; p < he; p++) {
		if (!isalnum((unsigned char)*p) && !strchr(".-_:", *p)) {
			*why = "bad character in the host";
			return -1;
		}
	}
	if (*rest == '#' || strchr(rest, ' ') || strchr(rest, '\r') || strchr(rest, '\n')) {
		*why = "bad character in the path";
		return -1;
	}
	u->host = xstrndup(hs, (size_t)(he - hs));
	sbuf_addf(&sb, "%ld", port);
	u->port = sbuf_detach(&sb, NULL);
	if (*hs == ':' || memchr(hs, ':', (size_t)(he - hs)))
		sbuf_addf(&sb, "[%s]", u->host);
	else
		sbuf_adds(&sb, u->host);
	if ((u->https && port != 443) || (!u->https && port != 80))
		sbuf_addf(&sb, ":%ld", port);
	u->hostport = sbuf_detach(&sb, NULL);
	sbuf_addf(&sb, "%s://%s", u->https ? "https" : "http", u->hostport);
	u->origin = sbuf_detach(&sb, NULL);
	if (*rest == '?') {
		sbuf_addf(&sb, "/%s", rest);
		u->path = sbuf_detach(&sb, NULL);
	} else {
		u->path = xstrdup(rest);
	}
	return 0;
}

/* ------------------------------------------------------ request bytes */

static int has_header(const struct load_request *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nheaders; i++)
		if (!strcasecmp(r->headers[i].key, name))
			return 1;
	return 0;
}

/* The base URL's path joined with the request's path (which may refer
 * to variables). */
static void full_path(struct tstr *t, const struct load_url *u, const char *path,
		      const struct load_config *cfg)
{
	size_t n = strlen(u->path);

	/* No request path: the URL's own path (harness load URL). */
	if (!path || !*path) {
		tstr_lit(t, n ? u->path : "/", n ? n : 1);
		return;
	}
	while (n && u->path[n - 1] == '/')
		n--;
	tstr_lit(t, u->path, n);
	if (*path != '/')
		tstr_lit(t, "/", 1);
	tstr_tmpl(t, path, strlen(path), cfg->vars, cfg->nvars);
}

static void lit(struct tstr *t, const char *s)
{
	tstr_lit(t, s, strlen(s));
}

/*
 * The kind's forms, compiled: the native HTTP/1.1 request (its
 * Content-Length computed per request when the body refers to variables),
 * the curl URL, body and header lines. A kind without references is
 * expanded once here (bytes, url), as before templates: the hot path
 * copies nothing.
 */
static void build_wire(struct load_wire *w, const struct load_url *u,
		       const struct load_request *r, const struct load_config *cfg)
{
	struct sbuf sb = SBUF_INIT;
	const char *method = r->method && *r->method ? r->method : "GET";
	struct tstr *t = &w->t_wire;
	size_t i;

	w->head = !strcasecmp(method, "HEAD");
	if (r->body)
		tstr_tmpl(&w->t_body, r->body, r->body_len, cfg->vars, cfg->nvars);
	lit(t, method);
	lit(t, " ");
	full_path(t, u, r->path, cfg);
	lit(t, " HTTP/1.1\r\n");
	if (!has_header(r, "Host")) {
		sbuf_addf(&sb, "Host: %s\r\n", u->hostport);
		lit(t, sb.buf);
	}
	if (!has_header(r, "User-Agent")) {
		sbuf_reset(&sb);
		sbuf_addf(&sb, "User-Agent: harness/%s\r\n", harness_version);
		lit(t, sb.buf);
	}
	w->nhdr = r->nheaders;
	w->t_hdr = xcalloc(r->nheaders ? r->nheaders : 1, sizeof(*w->t_hdr));
	for (i = 0; i < r->nheaders; i++) {
		const char *v = r->headers[i].value;

		lit(t, r->headers[i].key);
		lit(t, ": ");
		tstr_tmpl(t, v, strlen(v), cfg->vars, cfg->nvars);
		lit(t, "\r\n");
		lit(&w->t_hdr[i], r->headers[i].key);
		lit(&w->t_hdr[i], ": ");
		tstr_tmpl(&w->t_hdr[i], v, strlen(v), cfg->vars, cfg->nvars);
		w->hdr_vars |= w->t_hdr[i].vars;
	}
	if ((r->body || strcasecmp(method, "GET")) && !w->head &&
	    !has_header(r, "Content-Length") && !has_header(r, "Transfer-Encoding")) {
		lit(t, "Content-Length: ");
		if (w->t_body.vars) {
			tstr_clen(t);
		} else {
			sbuf_reset(&sb);
			sbuf_addf(&sb, "%zu", r->body ? r->body_len : 0);
			lit(t, sb.buf);
		}
		lit(t, "\r\n");
	}
	lit(t, "\r\n");
	if (r->body)
		tstr_tmpl(t, r->body, r->body_len, cfg->vars, cfg->nvars);
	sbuf_release(&sb);

	lit(&w->t_url, u->origin);
	full_path(&w->t_url, u, r->path, cfg);
	w->templated = t->vars;
	if (w->templated)
		return;
	tstr_expand(t, NULL, NULL, 0, &sb);
	w->bytes = sbuf_detach(&sb, &w->len);
	tstr_expand(&w->t_url, NULL, NULL, 0, &sb);
	w->url = sbuf_detach(&sb, NULL);
}

/* 1 when e's json values refer to a declared variable. */
static int expect_templated(const struct load_expect *e, const struct load_config *cfg)
{
	size_t i, pos, at, nl;
	const char *nm;

	for (i = 0; i < e->njson && cfg->nvars; i++) {
		pos = 0;
		while (load_tmpl_next(e->json[i].value, strlen(e->json[i].value), &pos, &at, &nm,
				      &nl))
			if (load_var_find(cfg->vars, cfg->nvars, nm, nl) >= 0)
				return 1;
	}
	return 0;
}

int load_shared_prepare(struct load_shared *sh)
{
	const struct load_config *cfg = sh->cfg;
	struct addrinfo hints;
	double sum = 0;
	size_t i;
	int rc;

	sh->wire = xcalloc(cfg->nrequests, sizeof(*sh->wire));
	sh->cum_weight = xcalloc(cfg->nrequests, sizeof(*sh->cum_weight));
	sh->need_body = xcalloc(cfg->nrequests, 1);
	sh->json_tmpl = xcalloc(cfg->nrequests, 1);
	for (i = 0; i < cfg->nrequests; i++) {
		const struct load_request *r = &cfg->requests[i];

		if (r->method && strpbrk(r->method, " \r\n"))
			return error("load: request %s: bad method '%s'",
				     r->name ? r->name : "?", r->method);
		if (r->path && strpbrk(r->path, " \r\n"))
			return error("load: request %s: bad path '%s'",
				     r->name ? r->name : "?", r->path);
		build_wire(&sh->wire[i], &sh->url, r, cfg);
		sh->need_body[i] = (unsigned char)load_expect_needs_body(&r->expect);
		sh->any_body |= sh->need_body[i];
		sh->json_tmpl[i] = (unsigned char)expect_templated(&r->expect, cfg);
		sh->any_ctype |= r->expect.content_type != NULL;
		sum += r->weight > 0 ? r->weight : 0;
		sh->cum_weight[i] = sum;
	}
	if (!(sum > 0))
		return error("load: the request weights sum to %g; want > 0", sum);
	if (cfg->nvars && !cfg->pool) {
		uint64_t n = cfg->pool_size;

		if (!n) {
			double due = ceil(cfg->rate * cfg->duration_s);

			n = due < 1 ? 1 : due > (double)LOAD_POOL_AUTO_MAX ? LOAD_POOL_AUTO_MAX :
			    (uint64_t)due;
		}
		if (load_pool_build(&sh->own_pool, cfg->requests, cfg->nrequests, cfg->vars,
				    cfg->nvars, cfg->pool_seed, n))
			return -1;
		sh->pool = &sh->own_pool;
	} else if (cfg->nvars) {
		sh->pool = cfg->pool;
	}
	if (sh->tr != &load_native_transport)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(sh->url.host, sh->url.port, &hints, &sh->addr);
	if (rc)
		return error("load: %s: cannot resolve host '%s': %s", cfg->url,
			     sh->url.host, gai_strerror(rc));
	return 0;
}

void load_shared_release(struct load_shared *sh)
{
	size_t i;

	if (sh->wire) {
		for (i = 0; i < sh->cfg->nrequests; i++) {
			struct load_wire *w = &sh->wire[i];
			size_t h;

			free(w->bytes);
			free(w->url);
			tstr_release(&w->t_wire);
			tstr_release(&w->t_url);
			tstr_release(&w->t_body);
			for (h = 0; h < w->nhdr; h++)
				tstr_release(&w->t_hdr[h]);
			free(w->t_hdr);
		}
	}
	free(sh->wire);
	free(sh->cum_weight);
	free(sh->need_body);
	free(sh->json_tmpl);
	if (sh->addr)
		freeaddrinfo(sh->addr);
	load_pool_release(&sh->own_pool);
	load_url_release(&sh->url);
}

uint32_t load_pick(const struct load_shared *sh, struct rng *r)
{
	size_t n = sh->cfg->nrequests, lo = 0, hi;
	double x;

	if (n <= 1)
		return 0;
	x = rng_uniform(r) * sh->cum_weight[n - 1];
	hi = n - 1;
	/* The first i with x < cum[i]: zero-weight kinds are never chosen. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x < sh->cum_weight[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return (uint32_t)lo;
}
