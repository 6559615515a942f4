/*
 * sut_agent: `harness agent --sut`, the agent's second role: one
 * implementation on this host for a coordinator elsewhere, started,
 * accounted and stopped by the very code a local run uses (sut.c,
 * account.c), so its process group, cgroup (v2/v1/procfs), watchdog and
 * stop are the same. One thread answers: the main loop waits for a frame
 * (or a signal) at most 200 ms (a sample period while a window is open),
 * then looks whether the implementation exited on its own, which it
 * reports once (SUT_EXITED), and sends what the account sampler and the
 * runtime-stats poller (their own threads, as in a local run) took since
 * (stream); while it blocks in a health wait or a build, a second thread
 * watches standard input for a hang-up (watch_hup).
 *
 * Cleanup: whatever ends the loop (standard input closed, SIGTERM,
 * SIGHUP, SIGINT, a malformed frame), sut_free kills the implementation's
 * process group and every process left in its cgroup and removes the
 * cgroup before the agent exits, and a rerun's checkout it holds
 * (sut_agent_src.h) is removed; a SIGKILL of the agent itself is covered
 * by sut's watchdog (sut.h) and by its log directory's janitor (scratch.h).
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "account/account.h"
#include "agent/agent.h"
#include "base/frame.h"
#include "base/hostfacts.h"
#include "sandbox/jail.h"
#include "sandbox/portfwd.h"
#include "sandbox/quota.h"
#include "sut/rtstats.h"
#include "sandbox/sandbox.h"
#include "sandbox/scratch.h"
#include "sut/sut.h"
#include "sut/sut_agent.h"
#include "sut/sut_agent_src.h"
#include "sut/sut_wire.h"
#include "base/util.h"

static volatile sig_atomic_t sut_agent_stop;

static void on_signal(int sig)
{
	(void)sig;
	sut_agent_stop = 1;
}

struct sut_agent {
	int in, out;
	pthread_t watcher;
	volatile int watching;
	struct sut *sut;
	struct sut_wire_start req;   /* the running one's (sut points into it) */
	int have_req;
	int exit_sent;
	/* its log directory: made at the first use, removed at exit (its
	 * logs went to the coordinator), by its janitor if it is killed */
	struct scratch logs;
	struct jail jail;            /* the running one's, when sandboxed */
	struct portfwd *inward;      /* sandboxed: this host's port into its namespace */
	struct agent_src src;        /* a rerun's checkout this agent holds */
	/* streamed as they are taken: the open window's samples from index
	 * acct_sent on, the runtime-stats polls (polled here) */
	int acct_open;
	size_t acct_sent;
	struct rtstats *rts;
	struct sut_wire_hits hits;   /* of the last start that failed */
};

/* A frame to the coordinator; when it is gone there is nothing left to
 * answer: the loop ends at its next read (end of file). */
static void reply(struct sut_agent *a, int type, const struct sbuf *sb)
{
	frame_write(a->out, type, sb ? sb->buf : "", sb ? sb->len : 0);
}

/* ------------------------------------------------- the hang-up watcher */

/* While the main thread blocks (a health wait, a build), this thread
 * watches standard input for a hang-up only (no events asked: data is
 * left for the main loop) and sets the stop flag, which those waits heed
 * within about 20 ms: the coordinator gone ends them too. */
static void *watch_hup(void *arg)
{
	struct sut_agent *a = arg;

	while (a->watching && !sut_agent_stop) {
		struct pollfd p = { .fd = a->in, .events = POLLRDHUP };

		if (poll(&p, 1, 100) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)))
			sut_agent_stop = 1;
	}
	return NULL;
}

static void watch_begin(struct sut_agent *a)
{
	a->watching = 1;
	if (pthread_create(&a->watcher, NULL, watch_hup, a))
		a->watching = 0;
}

static void watch_end(struct sut_agent *a)
{
	if (!a->watching)
		return;
	a->watching = 0;
	pthread_join(a->watcher, NULL);
}

/* ------------------------------------------------------------ requests */

static void stop_sut(struct sut_agent *a)
{
	rtstats_free(a->rts);
	a->rts = NULL;
	a->acct_open = 0;
	portfwd_stop(a->inward);
	a->inward = NULL;
	if (a->sut) {
		sut_stop(a->sut);
		sut_free(a->sut);
		a->sut = NULL;
	}
	if (a->have_req) {
		sut_wire_start_release(&a->req);
		a->have_req = 0;
	}
	a->exit_sent = 0;
}

/* Called before the hang-up watcher starts: single-threaded (scratch.h). */
static int make_log_dir(struct sut_agent *a, struct sbuf *why)
{
	if (a->logs.dir[0])
		return 0;
	return scratch_make(&a->logs, "harness-agent-sut", why);
}

/* The last max bytes of path from byte offset from, appended to sb as b. */
static void enc_log_tail(struct sbuf *sb, const char *path, off_t from, size_t max)
{
	struct sbuf text = SBUF_INIT;
	const char *p;
	size_t n;

	if (!path || read_file(path, &text, 64u << 20) || (size_t)from > text.len)
		from = 0;
	p = text.buf ? text.buf + from : "";
	n = text.buf ? text.len - (size_t)from : 0;
	if (n > max) {
		p += n - max;
		n = max;
	}
	enc_bytes(sb, p, n);
	sbuf_release(&text);
}

/* SUT_STOP: stopped; SUT_STOPPED carries the end of its stdout and
 * stderr logs (b each, 256 KiB at most), which the coordinator keeps
 * with the run. */
static void stop_reply(struct sut_agent *a)
{
	struct sbuf sb = SBUF_INIT;

	if (a->sut)
		sut_stop(a->sut);
	enc_log_tail(&sb, a->sut ? sut_stdout_path(a->sut) : NULL, 0, 256 << 10);
	enc_log_tail(&sb, a->sut ? sut_stderr_path(a->sut) : NULL, 0, 256 << 10);
	stop_sut(a);
	reply(a, FRAME_SUT_STOPPED, &sb);
	sbuf_release(&sb);
}

/* A jailed request's working directory's disk quota (a rerun's checkout
 * held here: quota.h), full: its figures into *disk_full, else "". */
static void disk_check(const struct sut_wire_start *req, char *disk_full)
{
	disk_full[0] = '\0';
	if (req->sandbox.on && req->impl.repo)
		quota_full(req->impl.repo, disk_full, QUOTA_FULL_LEN);
}

/* SUT_UP: u ok, s message, u port, u pid, s cpus, s cpus method,
 * s backend, s log dir, then the host facts. */
static void send_up(struct sut_agent *a, const char *msg)
{
	struct sbuf sb = SBUF_INIT;
	struct hostfacts facts = HOSTFACTS_INIT;
	struct sut *s = a->sut;

	enc_u64(&sb, s != NULL);
	enc_str(&sb, msg);
	enc_u64(&sb, s ? (uint64_t)sut_port(s) : 0);
	enc_u64(&sb, s ? (uint64_t)sut_pid(s) : 0);
	enc_str(&sb, s ? sut_cpus(s) : NULL);
	enc_str(&sb, s ? sut_cpus_method(s) : NULL);
	enc_str(&sb, s && sut_account(s) ? account_backend_name(account_backend(sut_account(s)))
					 : NULL);
	enc_str(&sb, a->logs.dir[0] ? a->logs.dir : NULL);
	hostfacts_read(&facts);
	sut_wire_enc_facts(&sb, &facts);
	sut_wire_enc_hits(&sb, &a->hits);
	reply(a, FRAME_SUT_UP, &sb);
	hostfacts_release(&facts);
	sbuf_release(&sb);
}

/*
 * A request's sandbox on this host (sut_wire_sandbox), as the runner
 * prepares one for a local arm: the sandbox user there (created when
 * missing: the agent runs as root), bwrap installed, the working directory
 * reachable by the arm's uid; the uid is the coordinator's. 0 with *gid
 * and *j set; -1 after one error() line (it reaches the coordinator's
 * stderr through ssh).
 */
static int sandbox_here(const struct sut_wire_start *req, int *gid, struct jail *j)
{
	memset(j, 0, sizeof(*j));
	if (sandbox_prepare(req->sandbox.user, req->impl.repo, req->sandbox.uid, 0, gid))
		return -1;
	j->hide = req->sandbox.hide;
	j->frozen = req->sandbox.ro;
	return 0;
}

/* The sut configuration of a SUT_START request (sut_wire_start_config:
 * the coordinator's bind_sut, rebuilt), sandboxed when it asks. */
static int start_config(struct sut_agent *a, struct sut_config *cfg)
{
	int gid = -1;

	if (a->req.sandbox.on && sandbox_here(&a->req, &gid, &a->jail))
		return -1;
	sut_wire_start_config(&a->req, &a->jail, gid, cfg);
	cfg->log_dir = a->logs.dir;
	cfg->stop = &sut_agent_stop;
	return 0;
}

static void start(struct sut_agent *a, struct dec *d)
{
	struct sut_config cfg;
	struct sbuf why = SBUF_INIT;
	int r;

	stop_sut(a);
	memset(&a->hits, 0, sizeof(a->hits));
	if (sut_wire_dec_start(d, &a->req)) {
		send_up(a, "agent: malformed SUT_START frame");
		goto out;
	}
	a->have_req = 1;
	if (make_log_dir(a, &why)) {
		send_up(a, why.buf);
		goto out;
	}
	if (start_config(a, &cfg)) {
		send_up(a, "the agent could not prepare its sandbox (its message is above)");
		goto out;
	}
	a->sut = sut_start(&cfg);
	if (!a->sut) {
		send_up(a, "the agent could not start it (its message is above)");
		goto out;
	}
	watch_begin(a);
	r = sut_wait_healthy(a->sut, a->req.impl.health_timeout_s);
	watch_end(a);
	if (r) {
		/* a jail's limits may be why: the coordinator says so */
		if (sut_account(a->sut))
			account_limit_hits(sut_account(a->sut), &a->hits.kernel);
		disk_check(&a->req, a->hits.disk_full);
		sut_free(a->sut);
		a->sut = NULL;
		sbuf_addf(&why, "never came up healthy (its stderr's end is above)");
		send_up(a, why.buf);
		goto out;
	}
	/* Jailed, it listens on its own namespace's loopback: the load
	 * reaches it through this host's port of the same number. */
	if (sut_netns(a->sut) >= 0 &&
	    !(a->inward = portfwd_inward(sut_netns(a->sut), sut_port(a->sut)))) {
		sut_free(a->sut);
		a->sut = NULL;
		send_up(a, "the agent could not relay its port (its message is above)");
		goto out;
	}
	send_up(a, NULL);
	/* its runtime stats, polled on this host as a local run polls them
	 * (jailed: from inside its namespace, {host} being 127.0.0.1 there) */
	if (sut_stats_url(a->sut))
		a->rts = rtstats_start_in(sut_netns(a->sut), sut_stats_url(a->sut),
					  a->req.impl.stats_poll_hz, a->req.impl.signals,
					  a->req.impl.nsignals, a->req.impl.stats_format,
					  a->req.ca_file, a->req.insecure);
out:
	sbuf_release(&why);
}

/* BUILD: a command (a build, a version) run to completion as sut_build
 * runs it here, in its cgroup. BUILT: u ok (exit 0), i exit code (-1: it
 * did not exit on its own), b the end of its log (64 KiB at most), the
 * limits it hit (sut_wire_enc_hits). */
static void build(struct sut_agent *a, struct dec *d)
{
	struct sut_wire_start req;
	struct sut_build_config bc;
	struct sut_wire_hits hits;
	struct spec_impl im;
	struct jail jail;
	struct sbuf sb = SBUF_INIT, why = SBUF_INIT, log = SBUF_INIT;
	struct stat st;
	double timeout_s;
	char *p;
	int code = -1, r = -1, gid = -1;

	memset(&st, 0, sizeof(st));
	memset(&hits, 0, sizeof(hits));
	if (sut_wire_dec_start(d, &req)) {
		fprintf(stderr, "harness: agent --sut: malformed BUILD frame\n");
		goto reply;
	}
	timeout_s = dec_f64(d);
	if (d->bad || make_log_dir(a, &why)) {
		fprintf(stderr, "harness: agent --sut: %s\n", d->bad ? "malformed BUILD frame" : why.buf);
		sut_wire_start_release(&req);
		goto reply;
	}
	sbuf_addf(&log, "%s/%s.log", a->logs.dir, req.label ? req.label : req.impl.name);
	for (p = log.buf + strlen(a->logs.dir) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	if (req.sandbox.on && sandbox_here(&req, &gid, &jail)) {
		sut_wire_start_release(&req);
		goto reply;
	}
	/* the coordinator's bind_build, rebuilt (sut_wire_build_config) */
	sut_wire_build_config(&req, &im, &jail, gid, &bc);
	bc.log_path = log.buf;
	bc.timeout_s = timeout_s;
	bc.stop = &sut_agent_stop;
	bc.exit_code = &code;
	/* what it hit (its cgroup's counts, its checkout's quota) goes back */
	bc.hits = &hits.kernel;
	bc.disk_full = hits.disk_full;
	stat(log.buf, &st);
	watch_begin(a);
	r = sut_build(&bc);
	watch_end(a);
	sut_wire_start_release(&req);
reply:
	enc_u64(&sb, r == 0);
	enc_i64(&sb, code);
	if (log.buf && log.len)
		enc_log_tail(&sb, log.buf, st.st_size, 64 << 10);
	else
		enc_bytes(&sb, "", 0);
	sut_wire_enc_hits(&sb, &hits);
	reply(a, FRAME_BUILT, &sb);
	sbuf_release(&sb);
	sbuf_release(&why);
	sbuf_release(&log);
}

/* ACCT_OPEN: u ok. */
static void acct_begin(struct sut_agent *a)
{
	struct sbuf sb = SBUF_INIT;

	if (a->acct_open && a->sut) {
		struct account_window w;

		if (!account_window_end(sut_account(a->sut), &w))
			account_window_release(&w);
	}
	a->acct_open = a->sut && account_window_begin(sut_account(a->sut)) == 0;
	a->acct_sent = 0;
	enc_u64(&sb, (uint64_t)a->acct_open);
	reply(a, FRAME_ACCT_OPEN, &sb);
	sbuf_release(&sb);
}

/* ACCT_SAMPLE for each of samples[from..n). */
static void send_samples(struct sut_agent *a, const struct account_sample *s, size_t from,
			 size_t n)
{
	struct sbuf sb = SBUF_INIT;

	for (; from < n; from++) {
		sbuf_reset(&sb);
		sut_wire_enc_sample(&sb, &s[from]);
		reply(a, FRAME_ACCT_SAMPLE, &sb);
	}
	sbuf_release(&sb);
}

static void stream(struct sut_agent *a);

/* ACCT: u ok, then the window when ok; what was taken and not streamed
 * yet goes first: the runtime-stats polls (the coordinator reads the
 * window's polls once ACCT is in: one sent after it would be missing from
 * the window it was taken in, all of them when this loop is starved for
 * the window's length) and the samples (the last, taken at its end). */
static void acct_end(struct sut_agent *a)
{
	struct sbuf sb = SBUF_INIT;
	struct account_window w;
	struct sut_wire_hits h;
	int ok;

	stream(a);
	ok = a->acct_open && a->sut && account_window_end(sut_account(a->sut), &w) == 0;

	a->acct_open = 0;
	enc_u64(&sb, (uint64_t)ok);
	if (ok) {
		send_samples(a, w.samples, a->acct_sent, w.nsamples);
		sut_wire_enc_window(&sb, &w);
		account_window_release(&w);
	}
	memset(&h, 0, sizeof(h));
	if (a->sut && sut_account(a->sut))
		account_limit_hits(sut_account(a->sut), &h.kernel);
	if (a->have_req)
		disk_check(&a->req, h.disk_full);
	sut_wire_enc_hits(&sb, &h);
	reply(a, FRAME_ACCT, &sb);
	sbuf_release(&sb);
}

/* ------------------------------------------------------------ streaming */

/* What was taken since the last call: the open window's new samples
 * (ACCT_SAMPLE), the new runtime-stats polls (STATS_POLL, each with its
 * time on the protocol's clock). */
static void stream(struct sut_agent *a)
{
	struct account_sample s[64];
	struct rtstats_poll *polls = NULL;
	struct sbuf sb = SBUF_INIT;
	size_t n, i;

	while (a->acct_open && a->sut &&
	       (n = account_window_samples(sut_account(a->sut), a->acct_sent, s, 64))) {
		send_samples(a, s, 0, n);
		a->acct_sent += n;
	}
	n = a->rts ? rtstats_since(a->rts, 0, &polls) : 0;
	for (i = 0; i < n; i++) {
		uint64_t now = now_ns();
		int64_t t = agent_wall_ns() - (int64_t)(now > polls[i].t_ns ? now - polls[i].t_ns : 0);

		sbuf_reset(&sb);
		sut_wire_enc_poll(&sb, t, &polls[i]);
		reply(a, FRAME_STATS_POLL, &sb);
	}
	/* sent: forgotten here (the coordinator keeps them) */
	if (n)
		rtstats_forget_before(a->rts, polls[n - 1].t_ns + 1);
	rtstats_polls_free(polls, n);
	sbuf_release(&sb);
}

/* TIME_REPLY: t1, t2 (when TIME arrived), t3, on the protocol's clock. */
static void time_reply(struct sut_agent *a, struct dec *d, int64_t t2)
{
	struct sbuf sb = SBUF_INIT;

	enc_i64(&sb, dec_i64(d));
	enc_i64(&sb, t2);
	enc_i64(&sb, agent_wall_ns());
	reply(a, FRAME_TIME_REPLY, &sb);
	sbuf_release(&sb);
}

/* SUT_EXITED (s how), once per instance. */
static void check_exit(struct sut_agent *a)
{
	struct sbuf sb = SBUF_INIT;
	char desc[128];

	if (!a->sut || a->exit_sent || !sut_exited(a->sut))
		return;
	enc_str(&sb, sut_exit_desc(a->sut, desc, sizeof(desc)));
	reply(a, FRAME_SUT_EXITED, &sb);
	a->exit_sent = 1;
	sbuf_release(&sb);
}

static void serve(struct sut_agent *a)
{
	struct sbuf payload = SBUF_INIT;
	const char *why = "";
	int type, r;

	while (!sut_agent_stop) {
		struct pollfd p = { .fd = a->in, .events = POLLIN };
		struct dec d;
		int64_t t2;
		/* a window's samples go out within one sample period */
		int wait_ms = a->acct_open && a->req.sample_ms > 0 && a->req.sample_ms < 200
			      ? a->req.sample_ms : 200;

		check_exit(a);
		stream(a);
		if (poll(&p, 1, wait_ms) <= 0)
			continue;     /* a signal sets the flag; a timeout: look again */
		r = frame_read(a->in, &type, &payload, 10000, &why);
		t2 = agent_wall_ns();
		if (r == 1)
			break;        /* standard input closed: the coordinator is gone */
		if (r) {
			fprintf(stderr, "harness: agent --sut: %s\n", why);
			break;
		}
		dec_init(&d, payload.buf, payload.len);
		switch (type) {
		case FRAME_TIME:
			time_reply(a, &d, t2);
			break;
		case FRAME_SUT_START:
			start(a, &d);
			break;
		case FRAME_BUILD:
			build(a, &d);
			break;
		case FRAME_ACCT_BEGIN:
			acct_begin(a);
			break;
		case FRAME_ACCT_END:
			acct_end(a);
			break;
		case FRAME_SUT_STOP:
			stop_reply(a);
			break;
		case FRAME_FETCH:
		case FRAME_GIVE: {
			struct sbuf sb = SBUF_INIT;

			if (type == FRAME_FETCH)
				agent_src_fetch(&a->src, &d, &sb);
			else
				agent_src_give(&a->src, &d, &sb);
			reply(a, type == FRAME_FETCH ? FRAME_FETCHED : FRAME_GIVEN, &sb);
			sbuf_release(&sb);
			break;
		}
		default:
			fprintf(stderr, "harness: agent --sut: unexpected frame type %d\n", type);
			goto out;
		}
	}
out:
	sbuf_release(&payload);
}

int agent_serve_sut(int in, int out)
{
	struct sut_agent a;
	struct sigaction sa;
	struct sbuf sb = SBUF_INIT;

	memset(&a, 0, sizeof(a));
	a.logs.fd = -1;
	a.src.dir.fd = -1;
	a.in = in;
	a.out = out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: poll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* sshd's session (or the coordinator) dying: clean up as for an end
	 * of file (the watchdog covers a SIGKILL of this process). */
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (getppid() == 1)
		sut_agent_stop = 1;
	/* What a dead harness left on this host (dead owners only). */
	sut_reap_leftovers();
	agent_hello_payload(&sb);
	reply(&a, FRAME_HELLO, &sb);
	sbuf_release(&sb);
	serve(&a);
	/* Nothing may outlive the coordinator: the tree and its cgroup go,
	 * and the logs (sent with SUT_STOPPED and BUILT). */
	stop_sut(&a);
	scratch_remove(&a.logs);
	agent_src_remove(&a.src);
	fflush(stderr);
	_exit(0);
}
