/*
 * load_record: what the engine's files share, beneath them: counting
 * (load_counts, load_stats) and the hot path that records a request's
 * fate into its thread's current second (load_on_sent, load_on_done,
 * load_on_error, load_tick), called by both transports and by the worker
 * loop in load.c. Declared in load.h and load_internal.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "load/load_internal.h"
#include "base/util.h"

/* ---------------------------------------------------------------- stats */

static const char *const error_names[LERR_KINDS] = {
	[LERR_CONNECT] = "connect",
	[LERR_RESET] = "reset",
	[LERR_TIMEOUT] = "timeout",
	[LERR_PARSE] = "parse",
	[LERR_OTHER] = "other",
};

static const char *const proto_names[LPROTO_KINDS] = {
	[LPROTO_HTTP10] = "HTTP/1.0",
	[LPROTO_HTTP11] = "HTTP/1.1",
	[LPROTO_HTTP2] = "HTTP/2",
	[LPROTO_HTTP3] = "HTTP/3",
};

const char *load_counts_protocol(const struct load_counts *c, char *buf, size_t len)
{
	int used[LPROTO_KINDS] = { 0 }, k, best;
	size_t o = 0;

	buf[0] = 0;
	for (;;) {
		best = -1;
		for (k = 0; k < LPROTO_KINDS; k++)
			if (c->proto[k] && !used[k] && (best < 0 || c->proto[k] > c->proto[best]))
				best = k;
		if (best < 0)
			break;
		used[best] = 1;
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "," : "",
				      proto_names[best]);
	}
	return buf[0] ? buf : NULL;
}

const char *load_error_name(enum load_error_kind k)
{
	return (unsigned)k < LERR_KINDS ? error_names[k] : "?";
}

uint64_t load_counts_errors(const struct load_counts *c)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < LERR_KINDS; k++)
		n += c->errors[k];
	return n;
}

void load_counts_add(struct load_counts *d, const struct load_counts *s)
{
	int k;

	d->sent += s->sent;
	d->completed += s->completed;
	for (k = 0; k < 4; k++)
		d->status[k] += s->status[k];
	d->status_other += s->status_other;
	d->unexpected += s->unexpected;
	for (k = 0; k < LERR_KINDS; k++)
		d->errors[k] += s->errors[k];
	d->dropped += s->dropped;
	d->due += s->due;
	for (k = 0; k < LPROTO_KINDS; k++)
		d->proto[k] += s->proto[k];
	d->bytes_sent += s->bytes_sent;
	d->bytes_received += s->bytes_received;
}

void load_stats_init(struct load_stats *s, size_t nreq)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->nreq = nreq;
	s->req_counts = xcalloc(nreq ? nreq : 1, sizeof(*s->req_counts));
	s->req_latency = xcalloc(nreq ? nreq : 1, sizeof(*s->req_latency));
	hist_init(&s->latency);
	hist_init(&s->service);
	hist_init(&s->lateness);
	hist_init(&s->sched_lag);
	for (i = 0; i < nreq; i++)
		hist_init(&s->req_latency[i]);
}

void load_stats_release(struct load_stats *s)
{
	size_t i;

	if (!s->req_counts)
		return;
	hist_release(&s->latency);
	hist_release(&s->service);
	hist_release(&s->lateness);
	hist_release(&s->sched_lag);
	for (i = 0; i < s->nreq; i++)
		hist_release(&s->req_latency[i]);
	free(s->req_latency);
	free(s->req_counts);
	memset(s, 0, sizeof(*s));
}

void load_stats_reset(struct load_stats *s)
{
	size_t i;

	memset(&s->counts, 0, sizeof(s->counts));
	memset(s->req_counts, 0, s->nreq * sizeof(*s->req_counts));
	s->cpu_s = 0;
	s->host_void = 0;
	s->nsamples = 0;
	hist_reset(&s->latency);
	hist_reset(&s->service);
	hist_reset(&s->lateness);
	hist_reset(&s->sched_lag);
	for (i = 0; i < s->nreq; i++)
		hist_reset(&s->req_latency[i]);
}

void load_stats_merge(struct load_stats *d, const struct load_stats *s)
{
	size_t i;

	load_counts_add(&d->counts, &s->counts);
	d->cpu_s += s->cpu_s;
	d->host_void += s->host_void;
	for (i = 0; i < s->nsamples && d->nsamples < LOAD_SAMPLES; i++)
		d->samples[d->nsamples++] = s->samples[i];
	hist_merge(&d->latency, &s->latency);
	hist_merge(&d->service, &s->service);
	hist_merge(&d->lateness, &s->lateness);
	hist_merge(&d->sched_lag, &s->sched_lag);
	for (i = 0; i < d->nreq && i < s->nreq; i++) {
		load_counts_add(&d->req_counts[i], &s->req_counts[i]);
		hist_merge(&d->req_latency[i], &s->req_latency[i]);
	}
}

void load_result_release(struct load_result *res)
{
	load_stats_release(&res->total);
}

/* ------------------------------------------------- recording (hot path) */

static void wait_slot(struct load_thread *th)
{
	/* Slot sec % NSLOT last held second sec - NSLOT: it must be consumed. */
	while ((int64_t)th->sec - LOAD_NSLOT >
	       atomic_load_explicit(&th->consumed, memory_order_acquire)) {
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
		load_hold_spoil(th);
	}
	th->cur = &th->slot[th->sec % LOAD_NSLOT];
}

double load_thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}


/* 1 while the schedule still holds a request due before the current
 * second's end that the worker has not made due yet (it woke late): the
 * second stays open for it, so a request is counted in the second it was
 * due in, however late the generator got to it (a window's due is then
 * exactly its schedule's, and a request due at its end is not moved into
 * the drain). */
static int owes_second(const struct load_thread *th)
{
	return th->scheduling && th->next_due < th->sec_end && th->next_due < th->sh->end_ns &&
	       !atomic_load_explicit(&th->sh->stop, memory_order_relaxed);
}

void load_tick(struct load_thread *th, uint64_t now)
{
	while (now >= th->sec_end && !owes_second(th)) {
		/* One clock read per second: the second's share of our CPU. */
		double cpu = load_thread_cpu_s();

		th->cur->cpu_s += cpu - th->cpu_mark;
		th->cpu_mark = cpu;
		atomic_store_explicit(&th->published, (int64_t)th->sec, memory_order_release);
		th->sec++;
		th->sec_end += 1000000000ull;
		wait_slot(th);
	}
}

void load_on_sent(struct load_thread *th, const struct load_due *d, uint64_t now)
{
	struct load_stats *s;

	load_tick(th, now);
	s = th->cur;
	s->counts.sent++;
	s->req_counts[d->req].sent++;
	hist_record(&s->lateness, now > d->intended ? now - d->intended : 0);
	if (th->sh->cfg->send_times_path) {
		XGROW(th->sends, th->sends_alloc, th->nsends + 1);
		th->sends[th->nsends].actual = now - th->sh->start_ns;
		th->sends[th->nsends].intended = d->intended - th->sh->start_ns;
		th->nsends++;
	}
}

/* Count a response that did not match its request's expect; keep it as
 * a sample while there is room. */
static void record_unexpected(struct load_stats *s, uint32_t req, int status,
			      const struct load_check *k, const char *why)
{
	struct load_sample *x;
	size_t n;

	s->counts.unexpected++;
	s->req_counts[req].unexpected++;
	if (s->nsamples >= LOAD_SAMPLES)
		return;
	x = &s->samples[s->nsamples++];
	x->req = req;
	x->status = status;
	snprintf(x->why, sizeof(x->why), "%s", why);
	n = k ? k->nhead : 0;
	x->body_len = n;
	if (n)
		memcpy(x->body, k->head, n);
}

/* Whether the response is what request req expects; an expect whose
 * json values refer to variables is expanded with the request's own pool
 * entry first (the JSON is parsed anyway: the copy costs little). */
static const char *expect_why(const struct load_shared *sh, uint32_t req, int status,
			      const struct load_check *k, char *why, size_t len)
{
	const struct load_expect *e = &sh->cfg->requests[req].expect;
	struct load_expect x;
	const char *ret;

	if (!k || !sh->pool || !sh->json_tmpl[req])
		return load_expect_why(e, status, k, why, len);
	load_pool_expand_expect(sh->pool, k->inst, e, sh->cfg->vars, &x);
	ret = load_expect_why(&x, status, k, why, len);
	load_expect_expanded_release(&x);
	return ret;
}

void load_on_done(struct load_thread *th, const struct load_due *d,
		  uint64_t sent, uint64_t now, int status, const struct load_check *k)
{
	struct load_stats *s;
	uint32_t req = d->req;
	uint64_t lat = now > d->intended ? now - d->intended : 0;
	char why[96];

	load_tick(th, now);
	s = th->cur;
	s->counts.completed++;
	s->req_counts[req].completed++;
	if (status >= 200 && status <= 599) {
		s->counts.status[status / 100 - 2]++;
		s->req_counts[req].status[status / 100 - 2]++;
	} else {
		s->counts.status_other++;
		s->req_counts[req].status_other++;
	}
	if (k && (unsigned)k->proto < LPROTO_KINDS) {
		s->counts.proto[k->proto]++;
		s->req_counts[req].proto[k->proto]++;
	}
	if (expect_why(th->sh, req, status, k, why, sizeof(why)))
		record_unexpected(s, req, status, k, why);
	if (d->host_void)
		return;
	hist_record(&s->latency, lat);
	hist_record(&s->req_latency[req], lat);
	hist_record(&s->service, now > sent ? now - sent : 0);
}

void load_on_error(struct load_thread *th, uint32_t req, enum load_error_kind k,
		   uint64_t now)
{
	load_tick(th, now);
	th->cur->counts.errors[k]++;
	th->cur->req_counts[req].errors[k]++;
}

int load_epoll_wait(int epfd, struct epoll_event *ev, int max, uint64_t deadline)
{
	uint64_t now = now_ns();
	struct timespec ts = { 0, 0 };

	if (deadline > now) {
		uint64_t d = deadline - now;

		ts.tv_sec = (time_t)(d / 1000000000ull);
		ts.tv_nsec = (long)(d % 1000000000ull);
	}
	return epoll_pwait2(epfd, ev, max, &ts, NULL);
}
