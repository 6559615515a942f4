/*
 * fleet: split, start, collect and merge a load driven by agents.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "base/frame.h"
#include "agent/fleet.h"
#include "load/load_wire.h"

/* One agent during the load. */
struct dist_state {
	struct load_stats *pending;   /* seconds received, not yet merged */
	unsigned *pending_idx;
	size_t npending, apending;
	struct load_stats drain;      /* from its DONE: in no SECOND frame */
	int ready, done;
};

static void lose(struct fleet_agent *a, struct agent_link *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lose(struct fleet_agent *a, struct agent_link *l, const char *fmt, ...)
{
	va_list ap;

	if (a->lost)
		return;
	a->lost = 1;
	l->lost = 1;
	va_start(ap, fmt);
	vsnprintf(a->why, sizeof(a->why), fmt, ap);
	va_end(ap);
}

/* Agent i's share of cfg. */
static void share(const struct load_config *cfg, const struct fleet_gen *g, size_t i,
		  size_t n, struct load_config *c)
{
	*c = *cfg;
	c->part = (int)i;
	c->parts = (int)n;
	c->connections = cfg->connections / (int)n + ((int)i < cfg->connections % (int)n);
	if (c->connections < 1)
		c->connections = 1;
	c->backlog_max = cfg->backlog_max / (int)n + ((int)i < cfg->backlog_max % (int)n);
	c->threads = g->threads > 0 ? g->threads : cfg->threads;
	if (c->threads > c->connections)
		c->threads = c->connections;
	c->cpus = g->cpus;
}

/* Sync every clock, agree the start, send the LOADs, wait for READY.
 * 0, or -1 after an error(). */
static int start_all(const struct load_config *cfg, const struct fleet_gen *gens, size_t n,
		     struct fleet_agent *out, struct dist_state *st)
{
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	int64_t start, lead = 400000000ll;
	size_t i;
	int ret = -1;

	for (i = 0; i < n; i++) {
		if (agent_link_sync(gens[i].link, FLEET_SYNC_ROUNDS))
			goto out;
		out[i].offset_ns = gens[i].link->offset_ns;
		out[i].uncert_ns = gens[i].link->uncert_ns;
		if (lead < 400000000ll + 8 * out[i].uncert_ns)
			lead = 400000000ll + 8 * out[i].uncert_ns;
	}
	start = agent_wall_ns() + lead;
	for (i = 0; i < n; i++) {
		struct load_config c;

		share(cfg, &gens[i], i, n, &c);
		out[i].threads = c.threads;
		sbuf_reset(&sb);
		enc_i64(&sb, start + out[i].offset_ns);
		if (load_wire_enc_config(&sb, &c))
			goto out;
		if (agent_link_send(gens[i].link, FRAME_LOAD, &sb)) {
			error("agent %s: connection lost before the load", gens[i].link->dest);
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		const char *why = "";
		int type, r = frame_read(gens[i].link->from, &type, &payload,
					 (int)(lead / 1000000), &why);

		if (!r && type == FRAME_READY) {
			st[i].ready = 1;
			continue;
		}
		if (!r && type == FRAME_ERROR) {
			struct dec d;
			char *msg;

			dec_init(&d, payload.buf, payload.len);
			msg = dec_str(&d);
			error("agent %s: %s", gens[i].link->dest, msg ? msg : "error");
			free(msg);
		} else {
			error("agent %s: not ready for the load (%s)", gens[i].link->dest,
			      r == 1 ? "connection closed" : r == -2 ? "no answer in time" :
			      r ? why : "unexpected frame");
		}
		gens[i].link->lost = 1;
		goto out;
	}
	ret = 0;
out:
	if (ret)
		for (i = 0; i < n; i++)
			agent_link_send(gens[i].link, FRAME_STOP, NULL);
	sbuf_release(&sb);
	sbuf_release(&payload);
	return ret;
}

static void stop_all(const struct fleet_gen *gens, size_t n, struct dist_state *st,
		     int *stopped)
{
	size_t i;

	if (*stopped)
		return;
	*stopped = 1;
	for (i = 0; i < n; i++)
		if (!st[i].done)
			agent_link_send(gens[i].link, FRAME_STOP, NULL);
}

/* One frame from agent i. */
static void on_frame(const struct load_config *cfg, const struct fleet_gen *g,
		     struct fleet_agent *a, struct dist_state *s, int type,
		     const struct sbuf *payload)
{
	struct dec d;

	dec_init(&d, payload->buf, payload->len);
	if (type == FRAME_SECOND) {
		unsigned idx = (unsigned)dec_u64(&d);
		struct load_stats *x;

		XGROW(s->pending, s->apending, s->npending + 1);
		s->pending_idx = xrealloc(s->pending_idx, s->apending * sizeof(*s->pending_idx));
		x = &s->pending[s->npending];
		load_stats_init(x, cfg->nrequests);
		if (load_wire_dec_stats(&d, x)) {
			load_stats_release(x);
			lose(a, g->link, "agent %s sent a malformed SECOND frame", g->link->dest);
			return;
		}
		s->pending_idx[s->npending++] = idx;
	} else if (type == FRAME_DONE) {
		if (load_wire_dec_stats(&d, &a->total)) {
			lose(a, g->link, "agent %s sent a malformed DONE frame", g->link->dest);
			return;
		}
		a->elapsed_s = dec_f64(&d);
		a->generator_cpu_s = dec_f64(&d);
		(void)dec_u64(&d);
		(void)dec_u64(&d);
		if (load_wire_dec_stats(&d, &s->drain) || d.bad)
			lose(a, g->link, "agent %s sent a malformed DONE frame", g->link->dest);
		s->done = 1;
	} else if (type == FRAME_ERROR) {
		char *msg = dec_str(&d);

		lose(a, g->link, "agent %s: %s", g->link->dest, msg ? msg : "error");
		free(msg);
	} else if (type != FRAME_TIME_REPLY) {
		lose(a, g->link, "agent %s sent an unexpected frame '%c'", g->link->dest, type);
	}
}

/* Merge and hand on every second all running agents have sent; one
 * handed to no on_second (past the whole seconds, or after an early stop)
 * goes into drain. Returns non-zero when on_second asked to stop. */
static int emit_seconds(const struct load_config *cfg, size_t n, struct dist_state *st,
			unsigned *next, struct load_stats *sec, struct load_result *res,
			struct load_stats *drain)
{
	unsigned whole = (unsigned)(cfg->duration_s + 1e-9);

	for (;;) {
		size_t i, k;
		int have_all = 1, any = 0;

		for (i = 0; i < n; i++) {
			for (k = 0; k < st[i].npending && st[i].pending_idx[k] != *next; k++)
				;
			if (k < st[i].npending)
				any = 1;
			else if (!st[i].done)
				have_all = 0;
		}
		if (!have_all || !any)
			return 0;
		load_stats_reset(sec);
		for (i = 0; i < n; i++) {
			for (k = 0; k < st[i].npending && st[i].pending_idx[k] != *next; k++)
				;
			if (k == st[i].npending)
				continue;
			load_stats_merge(sec, &st[i].pending[k]);
			load_stats_release(&st[i].pending[k]);
			st[i].npending--;
			memmove(&st[i].pending[k], &st[i].pending[k + 1],
				(st[i].npending - k) * sizeof(*st[i].pending));
			memmove(&st[i].pending_idx[k], &st[i].pending_idx[k + 1],
				(st[i].npending - k) * sizeof(*st[i].pending_idx));
		}
		if (*next < whole && !res->stopped_early) {
			res->seconds++;
			if (cfg->on_second && cfg->on_second(cfg->ctx, *next, sec)) {
				(*next)++;
				return 1;
			}
		} else {
			load_stats_merge(drain, sec);
		}
		(*next)++;
	}
}

/* Read frames until every agent is done or lost. */
static void collect(const struct load_config *cfg, const struct fleet_gen *gens, size_t n,
		    struct fleet_agent *out, struct dist_state *st, struct load_result *res,
		    struct load_stats *drain)
{
	struct pollfd *pfd = xcalloc(n, sizeof(*pfd));
	struct sbuf payload = SBUF_INIT;
	struct load_stats sec;
	uint64_t deadline = now_ns() + (uint64_t)((cfg->duration_s + 2) * 1e9) +
			    (uint64_t)cfg->timeout_ms * 1000000ull + 15000000000ull;
	unsigned next = 0;
	int stopped = 0;
	size_t i;

	load_stats_init(&sec, cfg->nrequests);
	for (;;) {
		size_t live = 0, lost = 0;

		for (i = 0; i < n; i++) {
			pfd[i].fd = st[i].done || out[i].lost ? -1 : gens[i].link->from;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			live += pfd[i].fd >= 0;
			lost += out[i].lost;
		}
		if (lost)
			stop_all(gens, n, st, &stopped);
		if (!live)
			break;
		if (now_ns() >= deadline) {
			for (i = 0; i < n; i++)
				if (pfd[i].fd >= 0)
					lose(&out[i], gens[i].link, "agent %s: no result in time",
					     gens[i].link->dest);
			break;
		}
		if (cfg->stop && *cfg->stop) {
			res->stopped_early = 1;
			stop_all(gens, n, st, &stopped);
		}
		if (poll(pfd, (nfds_t)n, 50) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			const char *why = "";
			int type, r;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			r = frame_read(pfd[i].fd, &type, &payload, 5000, &why);
			if (r == -2)
				continue;
			if (r) {
				lose(&out[i], gens[i].link, "agent %s: connection lost (%s)",
				     gens[i].link->dest,
				     r == 1 ? "ssh or the agent exited" : why);
				continue;
			}
			on_frame(cfg, &gens[i], &out[i], &st[i], type, &payload);
		}
		for (i = 0; i < n && !out[i].lost; i++)
			;
		if (i == n && emit_seconds(cfg, n, st, &next, &sec, res, drain)) {
			res->stopped_early = 1;
			stop_all(gens, n, st, &stopped);
		}
	}
	load_stats_release(&sec);
	sbuf_release(&payload);
	free(pfd);
}

int fleet_run(const struct load_config *cfg, const struct fleet_gen *gens, size_t n,
		  struct load_result *res, struct fleet_agent *out)
{
	struct dist_state *st = xcalloc(n ? n : 1, sizeof(*st));
	struct load_stats drain;
	size_t i, k;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	load_stats_init(&res->total, cfg->nrequests);
	load_stats_init(&drain, cfg->nrequests);
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		load_stats_init(&out[i].total, cfg->nrequests);
		load_stats_init(&st[i].drain, cfg->nrequests);
	}
	if (!n) {
		error("load: no generators");
		goto out;
	}
	/* Not in the agent protocol yet (load_wire.c): refused rather than
	 * sent unexpanded. Callers refuse it first (cmd_load: exit 2; the
	 * spec check: workload.generators). */
	if (cfg->nvars) {
		error("load: template variables are not sent to load agents yet: drive this"
		      " workload locally");
		goto out;
	}
	if (start_all(cfg, gens, n, out, st))
		goto out;
	collect(cfg, gens, n, out, st, res, &drain);
	for (i = 0; i < n; i++) {
		load_stats_merge(&res->total, &out[i].total);
		/* What no on_second saw: each agent's drain, and the seconds
		 * of an agent lost before they could be merged (load.h). */
		load_stats_merge(&drain, &st[i].drain);
		for (k = 0; k < st[i].npending; k++)
			load_stats_merge(&drain, &st[i].pending[k]);
		res->generator_cpu_s += out[i].generator_cpu_s;
		if (out[i].elapsed_s > res->elapsed_s)
			res->elapsed_s = out[i].elapsed_s;
		if (out[i].lost)
			continue;
		/* The clocks again: one that moved during the load shows. */
		if (!agent_link_sync(gens[i].link, FLEET_SYNC_ROUNDS / 2)) {
			out[i].offset_after_ns = gens[i].link->offset_ns;
			out[i].uncert_after_ns = gens[i].link->uncert_ns;
			out[i].after_ok = 1;
		} else {
			lose(&out[i], gens[i].link, "agent %s: connection lost after the load",
			     gens[i].link->dest);
		}
	}
	if (res->elapsed_s <= 0)
		res->elapsed_s = cfg->duration_s;
	res->offered_rps = (double)res->total.counts.due / res->elapsed_s;
	res->achieved_rps = (double)res->total.counts.completed / res->elapsed_s;
	if (cfg->on_drain)
		cfg->on_drain(cfg->ctx, &drain);
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		for (k = 0; k < st[i].npending; k++)
			load_stats_release(&st[i].pending[k]);
		free(st[i].pending);
		free(st[i].pending_idx);
		load_stats_release(&st[i].drain);
	}
	load_stats_release(&drain);
	free(st);
	return ret;
}

void fleet_agent_release(struct fleet_agent *a)
{
	load_stats_release(&a->total);
}
