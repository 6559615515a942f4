/*
 * rsut: the coordinator's end of the --sut role: requests and their
 * replies on one agent link, an unasked SUT_EXITED noted whenever it
 * comes.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "base/frame.h"
#include "sut/rsut.h"
#include "sut/rtstats.h"
#include "sut/sut_wire.h"
#include "base/util.h"

struct rsut {
	struct agent_link link;
	int open, stopped;
	int starting;                /* in rsut_start */
	volatile sig_atomic_t *stop;
	char *url, *cpus, *cpus_method, *backend;
	char *keep_dir, *name;       /* where its logs' ends go here, its name */
	int port;
	int exited;
	char *exit_desc;
	struct hostfacts facts;
	double grace_s;
	/* streamed by the agent as they are taken: the open window's samples,
	 * the runtime-stats polls taken there (NULL: no stats URL) */
	int in_window;
	struct account_sample *samples;
	size_t nsamples, asamples;
	struct rtstats *rts;
	struct sut_wire_hits hits;
};

static void note_exit(struct rsut *r, const char *desc)
{
	if (r->exited)
		return;
	r->exited = 1;
	r->exit_desc = xstrdup(desc);
}

static void lost(struct rsut *r)
{
	r->link.lost = 1;
	note_exit(r, "its agent's connection was lost");
}

/* A STATS_POLL's time (the agent's protocol clock) on this host's
 * monotonic clock (now_ns), through the offset measured at the start. */
static uint64_t poll_time(const struct rsut *r, int64_t t_agent, double *wall)
{
	int64_t here = t_agent - r->link.offset_ns;     /* our protocol clock */
	int64_t ago = agent_wall_ns() - here;
	uint64_t now = now_ns();

	*wall = (double)here / 1e9;
	if (ago < 0)
		ago = 0;
	return (uint64_t)ago < now ? now - (uint64_t)ago : 0;
}

/* A frame the agent sends unasked: SUT_EXITED noted, ACCT_SAMPLE kept
 * for the open window, STATS_POLL fed to the runtime stats. A malformed
 * one is dropped with a warning. */
static void unasked(struct rsut *r, int type, const struct sbuf *payload)
{
	struct dec d;

	dec_init(&d, payload->buf, payload->len);
	if (type == FRAME_SUT_EXITED) {
		char *desc = dec_str(&d);

		note_exit(r, desc ? desc : "exited");
		free(desc);
	} else if (type == FRAME_ACCT_SAMPLE && r->in_window) {
		struct account_sample s;

		if (sut_wire_dec_sample(&d, &s))
			warning("%s on %s: malformed ACCT_SAMPLE frame", r->name, r->link.dest);
		else {
			XGROW(r->samples, r->asamples, r->nsamples + 1);
			r->samples[r->nsamples++] = s;
		}
	} else if (type == FRAME_STATS_POLL && r->rts) {
		struct rtstats_poll p;
		int64_t t;

		if (sut_wire_dec_poll(&d, &t, &p))
			warning("%s on %s: malformed STATS_POLL frame", r->name, r->link.dest);
		else {
			p.t_ns = poll_time(r, t, &p.wall);
			rtstats_feed(r->rts, &p);
		}
	}
}

/* Read frames until one of type want (into payload): 0. Frames sent
 * unasked on the way are handled (unasked()). -1 when the channel broke or timeout_ms passed
 * (lost), or -2 when the stop flag was set. */
static int wait_reply(struct rsut *r, int want, struct sbuf *payload, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	const char *why = "";
	int type;

	if (r->link.lost)
		return -1;
	for (;;) {
		struct pollfd p = { .fd = r->link.from, .events = POLLIN };

		if (r->stop && *r->stop)
			return -2;
		if (now_ns() >= end) {
			lost(r);
			return -1;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (frame_read(r->link.from, &type, payload, 10000, &why)) {
			lost(r);
			return -1;
		}
		if (type == want)
			return 0;
		unasked(r, type, payload);
	}
}

/* SUT_UP's payload into r; 0 when it says started and healthy, else -1
 * with its message (owned by the caller) in *msg. */
static int read_up(struct rsut *r, const struct sbuf *payload, const char *addr,
		   int https, char **msg)
{
	struct sbuf sb = SBUF_INIT;
	struct dec d;
	uint64_t ok;

	dec_init(&d, payload->buf, payload->len);
	ok = dec_u64(&d);
	*msg = dec_str(&d);
	r->port = (int)dec_u64(&d);
	dec_u64(&d);   /* its pid there: for the agent's own messages */
	r->cpus = dec_str(&d);
	r->cpus_method = dec_str(&d);
	r->backend = dec_str(&d);
	free(dec_str(&d));   /* its log directory there: removed when it exits */
	if (d.bad || sut_wire_dec_facts(&d, &r->facts) || sut_wire_dec_hits(&d, &r->hits)) {
		free(*msg);
		*msg = xstrdup("malformed SUT_UP frame");
		return -1;
	}
	if (!ok)
		return -1;
	sbuf_addf(&sb, "%s://%s%s%s:%d", https ? "https" : "http", strchr(addr, ':') ? "[" : "", addr,
		  strchr(addr, ':') ? "]" : "", r->port);
	r->url = sbuf_detach(&sb, NULL);
	return 0;
}

struct rsut *rsut_start(const struct rsut_config *cfg, int *unhealthy)
{
	const struct spec_impl *im = cfg->sut->impl;
	struct rsut *r = xcalloc(1, sizeof(*r));
	struct agent_opts o = *cfg->opts;
	struct sut_wire_start w;
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	char *msg = NULL;
	int rr;

	*unhealthy = 0;
	r->stop = cfg->stop;
	r->grace_s = 3;
	r->starting = 1;
	r->keep_dir = cfg->log_dir ? xstrdup(cfg->log_dir) : NULL;
	r->name = xstrdup(im->name);
	o.sut = 1;
	if (agent_link_open(&r->link, cfg->dest, &o))
		goto fail;
	r->open = 1;
	/* the clock its runtime-stats polls are timed by (AGENT_PROTOCOL.md) */
	if (agent_link_sync(&r->link, 4))
		goto fail;
	if (im->stats_url)
		r->rts = rtstats_fed(im->signals, im->nsignals);
	sut_wire_request_start(&w, cfg->sut, r->link.address, cfg->sandbox);
	sut_wire_enc_start(&sb, &w);
	sut_wire_start_release(&w);
	if (agent_link_send(&r->link, FRAME_SUT_START, &sb)) {
		error("%s on %s: the agent's connection was lost", im->name, cfg->dest);
		goto fail;
	}
	/* its health timeout, and time for the agent to start it and stop it */
	rr = wait_reply(r, FRAME_SUT_UP, &payload,
			(int)(im->health_timeout_s * 1000) + 30000);
	if (rr == -2)
		goto fail;   /* interrupted: the caller checks its flag */
	if (rr) {
		error("%s on %s: no answer from its agent (%s)", im->name, cfg->dest,
		      r->exit_desc ? r->exit_desc : "?");
		goto fail;
	}
	if (read_up(r, &payload, r->link.address, cfg->sut->https, &msg)) {
		/* a failed start on that host is the host's (an exec that
		 * fails, a cgroup that cannot be made), a failed health
		 * check the implementation's, as for a local arm */
		*unhealthy = msg && strstr(msg, "never came up healthy") != NULL;
		if (cfg->failed_hits)
			*cfg->failed_hits = r->hits;
		error("%s on %s: %s", im->name, cfg->dest, msg ? msg : "not started");
		goto fail;
	}
	r->starting = 0;
	free(msg);
	sbuf_release(&sb);
	sbuf_release(&payload);
	return r;
fail:
	free(msg);
	sbuf_release(&sb);
	sbuf_release(&payload);
	rsut_free(r);
	return NULL;
}

/* BUILT's log bytes, appended to path. */
static void append_log(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0) {
		warning("cannot write %s", path);
		return;
	}
	if (n && write(fd, p, n) != (ssize_t)n)
		warning("cannot write %s", path);
	close(fd);
}

int rsut_run(const struct rsut_config *cfg, const struct sut_build_config *bc, const char *label)
{
	struct rsut *r = xcalloc(1, sizeof(*r));
	struct agent_opts o = *cfg->opts;
	char *const *argv = bc->impl->build;
	double timeout_s = bc->timeout_s;
	const char *log_path = bc->log_path;
	struct sut_wire_start w;
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	const void *logp;
	size_t logn = 0;
	struct dec d;
	struct sut_wire_hits hits;
	uint64_t ok;
	int64_t code = -1;
	int rr, ret = -1;

	memset(&hits, 0, sizeof(hits));
	r->stop = cfg->stop;
	r->stopped = 1;          /* nothing of it to stop at the end */
	o.sut = 1;
	if (agent_link_open(&r->link, cfg->dest, &o))
		goto out;
	r->open = 1;
	sut_wire_request_build(&w, bc, label, r->link.address, cfg->sandbox);
	sut_wire_enc_start(&sb, &w);
	sut_wire_start_release(&w);
	enc_f64(&sb, timeout_s);
	if (agent_link_send(&r->link, FRAME_BUILD, &sb)) {
		error("%s on %s: the agent's connection was lost", argv[0], cfg->dest);
		goto out;
	}
	rr = wait_reply(r, FRAME_BUILT, &payload,
			timeout_s > 0 && timeout_s < 86400 ? (int)(timeout_s * 1000) + 30000 : INT_MAX);
	if (rr == -2) {
		error("%s on %s: interrupted", argv[0], cfg->dest);
		goto out;
	}
	if (rr) {
		error("%s on %s: its agent's connection was lost", argv[0], cfg->dest);
		goto out;
	}
	dec_init(&d, payload.buf, payload.len);
	ok = dec_u64(&d);
	code = dec_i64(&d);
	logp = dec_bytes(&d, &logn);
	if (!d.bad)
		sut_wire_dec_hits(&d, &hits);
	if (d.bad) {
		error("%s on %s: malformed BUILT frame", argv[0], cfg->dest);
		code = -1;
		goto out;
	}
	if (log_path)
		append_log(log_path, logp, logn);
	if (ok)
		ret = 0;
	else if (bc->quiet && code > 0)
		ret = 1;
	else
		error("%s on %s: %s (its output: %s)", argv[0], cfg->dest,
		      code >= 0 ? "failed" : "did not finish", log_path ? log_path : "-");
out:
	if (bc->exit_code)
		*bc->exit_code = (int)code;
	if (bc->hits)
		*bc->hits = hits.kernel;
	if (bc->disk_full)
		memcpy(bc->disk_full, hits.disk_full, sizeof(hits.disk_full));
	if (r->open)
		agent_link_close(&r->link);
	r->open = 0;
	sbuf_release(&sb);
	sbuf_release(&payload);
	rsut_free(r);
	return ret;
}

const char *rsut_url(const struct rsut *r) { return r->url; }
struct rtstats *rsut_stats(struct rsut *r) { return r->rts; }
int rsut_port(const struct rsut *r) { return r->port; }
const char *rsut_dest(const struct rsut *r) { return r->link.dest; }
const char *rsut_address(const struct rsut *r) { return r->link.address; }
const char *rsut_host(const struct rsut *r) { return r->link.host; }
const char *rsut_cpus(const struct rsut *r) { return r->cpus; }
const char *rsut_cpus_method(const struct rsut *r) { return r->cpus_method; }
const char *rsut_backend(const struct rsut *r) { return r->backend; }
const struct hostfacts *rsut_facts(const struct rsut *r) { return &r->facts; }
int rsut_lost(const struct rsut *r) { return r->link.lost; }
void rsut_limit_hits(const struct rsut *r, struct sut_wire_hits *h) { *h = r->hits; }
const char *rsut_exit_desc(const struct rsut *r) { return r->exit_desc ? r->exit_desc : "running"; }

int rsut_exited(struct rsut *r)
{
	struct sbuf payload = SBUF_INIT;
	const char *why = "";
	int type;

	if (r->stopped || !r->open)
		return 0;
	while (!r->exited) {
		struct pollfd p = { .fd = r->link.from, .events = POLLIN };

		if (r->link.lost) {
			lost(r);
			break;
		}
		if (poll(&p, 1, 0) <= 0)
			break;
		if (frame_read(r->link.from, &type, &payload, 5000, &why)) {
			lost(r);
			break;
		}
		unasked(r, type, &payload);
	}
	sbuf_release(&payload);
	return r->exited;
}

int rsut_window_begin(struct rsut *r)
{
	struct sbuf payload = SBUF_INIT;
	struct dec d;
	int ret = -1;

	r->nsamples = 0;
	r->in_window = 1;
	if (agent_link_send(&r->link, FRAME_ACCT_BEGIN, NULL)) {
		lost(r);
		goto out;
	}
	if (wait_reply(r, FRAME_ACCT_OPEN, &payload, 15000))
		goto out;
	dec_init(&d, payload.buf, payload.len);
	ret = dec_u64(&d) == 1 && !d.bad ? 0 : -1;
out:
	sbuf_release(&payload);
	return ret;
}

int rsut_window_end(struct rsut *r, struct account_window *out)
{
	struct sbuf payload = SBUF_INIT;
	struct dec d;
	uint64_t n = 0;
	int ret = -1;

	if (agent_link_send(&r->link, FRAME_ACCT_END, NULL)) {
		lost(r);
		goto out;
	}
	if (wait_reply(r, FRAME_ACCT, &payload, 15000))
		goto out;
	dec_init(&d, payload.buf, payload.len);
	if (dec_u64(&d) == 1 && !d.bad)
		ret = sut_wire_dec_window(&d, out, &n);
	/* the limits hit there so far, whether the window is there or not */
	if (!d.bad)
		sut_wire_dec_hits(&d, &r->hits);
	/* every sample it took came before (one channel, in order) */
	if (!ret && n != r->nsamples) {
		warning("%s on %s: %zu accounting samples came of the %llu taken", r->name,
			r->link.dest, r->nsamples, (unsigned long long)n);
		account_window_release(out);
		ret = -1;
	}
	if (!ret) {
		out->samples = r->samples;
		out->nsamples = r->nsamples;
		r->samples = NULL;
		r->nsamples = r->asamples = 0;
	}
out:
	r->in_window = 0;
	sbuf_release(&payload);
	return ret;
}

/* SUT_STOPPED's ends of its stdout and stderr, appended to its logs here. */
static void keep_logs(struct rsut *r, const struct sbuf *payload)
{
	static const char *const which[] = { "stdout", "stderr" };
	struct sbuf path = SBUF_INIT;
	struct dec d;
	size_t i, n;

	dec_init(&d, payload->buf, payload->len);
	for (i = 0; i < 2; i++) {
		const void *p = dec_bytes(&d, &n);

		if (d.bad || !r->keep_dir)
			break;
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s.%s.log", r->keep_dir, r->name, which[i]);
		append_log(path.buf, p, n);
	}
	sbuf_release(&path);
}

void rsut_stop(struct rsut *r)
{
	struct sbuf payload = SBUF_INIT;

	if (!r || r->stopped)
		return;
	r->stopped = 1;
	if (!r->open)
		return;
	/* Its stop grace (3 s) and time to empty and remove its cgroup; the
	 * stop flag is not heeded here: the stop must finish. Interrupted
	 * while it started, the agent is still busy with it: closing its
	 * standard input is the stop then. */
	if (r->starting && r->stop && *r->stop) {
		agent_link_close(&r->link);
		r->open = 0;
		return;
	}
	r->stop = NULL;
	if (!agent_link_send(&r->link, FRAME_SUT_STOP, NULL) &&
	    !wait_reply(r, FRAME_SUT_STOPPED, &payload, (int)(r->grace_s * 1000) + 10000))
		keep_logs(r, &payload);
	/* Its standard input closes: the agent removes whatever is left. */
	agent_link_close(&r->link);
	r->open = 0;
	sbuf_release(&payload);
}

void rsut_free(struct rsut *r)
{
	if (!r)
		return;
	rsut_stop(r);
	if (r->open)
		agent_link_close(&r->link);
	free(r->url);
	free(r->cpus);
	free(r->cpus_method);
	free(r->backend);
	free(r->keep_dir);
	free(r->name);
	free(r->exit_desc);
	free(r->samples);
	rtstats_free(r->rts);
	hostfacts_release(&r->facts);
	free(r);
}
