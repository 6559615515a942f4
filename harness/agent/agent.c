/*
 * agent: the protocol's far end. The main thread reads frames; a load
 * runs on a thread of its own (load_run's coordinating thread sends the
 * SECOND frames from its on_second); writes from both threads go through
 * one mutex so frames never interleave.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "base/frame.h"
#include "load/load.h"
#include "load/load_wire.h"
#include "base/testhook.h"

const char *agent_version_line(char *buf, size_t len)
{
	snprintf(buf, len, "harness-agent %d %s", AGENT_PROTOCOL, harness_version);
	return buf;
}

static int64_t test_skew_ns;

int64_t agent_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The agent's clock: the wall clock, plus the test hook's skew. */
static int64_t agent_clock(void)
{
	return agent_wall_ns() + test_skew_ns;
}

struct agent {
	int in, out;
	pthread_mutex_t wlock;
	/* The load in flight. */
	pthread_t tid;
	int running;
	volatile sig_atomic_t stop;
	struct load_wire_config wc;
	struct load_stats drain;     /* the load's on_drain, sent with DONE */
};

static int send_frame(struct agent *a, int type, const struct sbuf *sb)
{
	int r;

	pthread_mutex_lock(&a->wlock);
	r = frame_write(a->out, type, sb ? sb->buf : "", sb ? sb->len : 0);
	pthread_mutex_unlock(&a->wlock);
	/* The coordinator is gone: nothing left to do for it. */
	if (r)
		_exit(0);
	return 0;
}

static void send_error(struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void send_error(struct agent *a, const char *fmt, ...)
{
	struct sbuf msg = SBUF_INIT, sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	enc_str(&sb, msg.buf);
	send_frame(a, FRAME_ERROR, &sb);
	sbuf_release(&msg);
	sbuf_release(&sb);
}

static int on_second(void *ctx, unsigned index, const struct load_stats *sec)
{
	struct agent *a = ctx;
	struct sbuf sb = SBUF_INIT;

	enc_u64(&sb, index);
	load_wire_enc_stats(&sb, sec);
	send_frame(a, FRAME_SECOND, &sb);
	sbuf_release(&sb);
	return 0;
}

/* What was in no SECOND frame (load.h): it goes with DONE. */
static void on_drain(void *ctx, const struct load_stats *drain)
{
	struct agent *a = ctx;

	load_stats_merge(&a->drain, drain);
}

static void *load_thread(void *arg)
{
	struct agent *a = arg;
	struct load_result res;
	struct sbuf sb = SBUF_INIT;

	load_stats_init(&a->drain, a->wc.cfg.nrequests);
	if (load_run(&a->wc.cfg, &res)) {
		send_error(a, "the load could not start (the agent's messages above say why)");
		goto out;
	}
	load_wire_enc_stats(&sb, &res.total);
	enc_f64(&sb, res.elapsed_s);
	enc_f64(&sb, res.generator_cpu_s);
	enc_u64(&sb, res.seconds);
	enc_u64(&sb, (uint64_t)res.stopped_early);
	load_wire_enc_stats(&sb, &a->drain);
	send_frame(a, FRAME_DONE, &sb);
out:
	sbuf_release(&sb);
	load_result_release(&res);
	load_stats_release(&a->drain);
	return NULL;
}

static void finish_load(struct agent *a)
{
	if (!a->running)
		return;
	pthread_join(a->tid, NULL);
	a->running = 0;
	load_wire_config_release(&a->wc);
}

/* LOAD: the start (agent clock), then the config. */
static void start_load(struct agent *a, struct dec *d)
{
	int64_t start = dec_i64(d), delta;

	finish_load(a);
	if (load_wire_dec_config(d, &a->wc)) {
		send_error(a, "malformed LOAD frame");
		return;
	}
	/* The agreed start, from the agent's clock onto the engine's
	 * monotonic one. */
	delta = start - agent_clock();
	if (delta <= 0 || delta > 600ll * 1000000000ll) {
		send_error(a, "the agreed start is %.3f s from now on this host's clock",
			   (double)delta / 1e9);
		load_wire_config_release(&a->wc);
		return;
	}
	a->stop = 0;
	a->wc.cfg.start_ns = now_ns() + (uint64_t)delta;
	a->wc.cfg.on_second = on_second;
	a->wc.cfg.on_drain = on_drain;
	a->wc.cfg.ctx = a;
	a->wc.cfg.stop = &a->stop;
	send_frame(a, FRAME_READY, NULL);
	if (pthread_create(&a->tid, NULL, load_thread, a)) {
		send_error(a, "cannot start the load thread");
		load_wire_config_release(&a->wc);
		return;
	}
	a->running = 1;
}

void agent_hello_payload(struct sbuf *sb)
{
	char line[256], host[256], addr[64] = "127.0.0.1";
	const char *conn = getenv("SSH_CONNECTION");

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = 0;
	/* "client_ip client_port server_ip server_port": the address the
	 * coordinator's ssh reached this host at, so one it can route to. */
	if (conn && sscanf(conn, "%*s %*s %63s", addr) != 1)
		snprintf(addr, sizeof(addr), "127.0.0.1");
	enc_u64(sb, AGENT_PROTOCOL);
	enc_str(sb, agent_version_line(line, sizeof(line)));
	enc_str(sb, host);
	enc_str(sb, addr);
}

static void hello(struct agent *a)
{
	struct sbuf sb = SBUF_INIT;

	agent_hello_payload(&sb);
	send_frame(a, FRAME_HELLO, &sb);
	sbuf_release(&sb);
}

int agent_serve(int in, int out)
{
	struct agent a;
	struct sbuf payload = SBUF_INIT, sb = SBUF_INIT;
	const char *why;
	int type, r;

	memset(&a, 0, sizeof(a));
	a.in = in;
	a.out = out;
	pthread_mutex_init(&a.wlock, NULL);
	test_skew_ns = (int64_t)(testhooks()->agent_skew_ms * 1e6);
	signal(SIGPIPE, SIG_IGN);
	/* Whoever started us (sshd's session, or the coordinator) dying
	 * takes us with it, even if our standard input stays open. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	hello(&a);
	for (;;) {
		struct dec d;
		int64_t t1, t2;

		r = frame_read(in, &type, &payload, -1, &why);
		t2 = agent_clock();
		if (r == 1)
			break;   /* standard input closed: the coordinator is gone */
		if (r) {
			send_error(&a, "agent: %s", why);
			break;
		}
		dec_init(&d, payload.buf, payload.len);
		switch (type) {
		case FRAME_TIME:
			t1 = dec_i64(&d);
			sbuf_reset(&sb);
			enc_i64(&sb, t1);
			enc_i64(&sb, t2);
			enc_i64(&sb, agent_clock());
			send_frame(&a, FRAME_TIME_REPLY, &sb);
			break;
		case FRAME_LOAD:
			start_load(&a, &d);
			break;
		case FRAME_STOP:
			a.stop = 1;
			break;
		default:
			send_error(&a, "agent: unknown frame type %d", type);
			goto out;
		}
	}
out:
	/* Nothing may outlive the coordinator: a load in flight ends here. */
	sbuf_release(&payload);
	sbuf_release(&sb);
	fflush(stderr);
	_exit(0);
}
