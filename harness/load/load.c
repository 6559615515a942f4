/*
 * load: the open-loop engine's schedule, threads and per-second merging.
 *
 * Each worker thread runs one event loop (its transport's epoll) over its
 * own connections and its own slice of the schedule: with T threads,
 * constant arrivals give thread i the requests k = i, i+T, i+2T... due at
 * start + k/rate. Poisson arrivals are one seeded process at the full rate
 * that every thread draws; a uniform draw per arrival gives it to one
 * thread (independent thinning: each thread's share is a Poisson process
 * of rate/T, and the union is exactly the one process, however many
 * threads or generators share it; load.h, `parts`).
 * Nothing is shared on the hot path.
 * Each worker runs SCHED_FIFO where permitted (base/rtsched.h), so it
 * wakes on time on a busy host; else SCHED_OTHER with a short slice.
 *
 * Per-second results. A worker records into slot[sec % LOAD_NSLOT]. When its
 * clock passes the end of second `sec` and it has made due every request
 * of its schedule due before that end (a late wake-up makes them due
 * first, counted in their own second: load_tick), it publishes sec
 * (release store) and moves on; the coordinator (the caller of load_run) waits until every
 * worker has published second s, merges their slots, resets them, marks s
 * consumed, and calls on_second. A worker only reuses a slot once the
 * coordinator has consumed it (it waits otherwise, which needs the
 * coordinator to fall LOAD_NSLOT-1 seconds behind).
 *
 * End of the run. At start + duration scheduling stops; requests in flight
 * or in the backlog get up to timeout_ms more to finish (the backlog keeps
 * being sent); whatever is left then is counted as a timeout error, so
 * every due request ends as completed, an error, or dropped. Seconds
 * reported through no on_second call are merged and handed to on_drain.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "load/load_internal.h"
#include "base/rtsched.h"
#include "base/testhook.h"
#include "base/util.h"

/* ------------------------------------------------------------- schedule */

static void schedule_next(struct load_thread *th)
{
	const struct load_config *cfg = th->sh->cfg;
	double t;

	int parts = cfg->parts > 1 ? cfg->parts : 1, part = parts > 1 ? cfg->part : 0;
	int nth = th->sh->nthreads;

	if (cfg->arrival == ARRIVAL_POISSON) {
		/* Thinning of the one process: keep the arrivals whose draw
		 * falls in this part's and this thread's interval. */
		for (;;) {
			double u, v;

			th->next_rel += rng_exp(&th->proc, 1e9 / cfg->rate);
			th->due_slot = th->proc_n++;
			u = rng_uniform(&th->proc) * parts;
			if ((int)u != part)
				continue;
			v = (u - part) * nth;
			if ((int)v == th->id || ((int)v >= nth && th->id == nth - 1))
				break;
		}
		t = th->next_rel;
	} else {
		double k = (double)part + (double)parts * ((double)th->j * nth + th->id);

		th->due_slot = (uint64_t)part + (uint64_t)parts * (th->j * (uint64_t)nth + (uint64_t)th->id);
		t = k * 1e9 / cfg->rate;
	}
	th->j++;
	th->next_due = th->sh->start_ns + (uint64_t)t;
}

/* A request became due at `intended`: send it, queue it, or drop it. */
static void make_due(struct load_thread *th, uint64_t intended, uint64_t now)
{
	struct load_due d;
	struct load_stats *s = th->cur;

	d.intended = intended;
	if (th->sh->pool) {
		/* The schedule's slot of this request (schedule_next: the same
		 * for any thread count or split between generators): its pool
		 * entry is slot mod n. */
		d.inst = (uint32_t)(th->due_slot % th->sh->pool->n);
		d.req = th->sh->pool->req[d.inst];
	} else {
		d.inst = 0;
		d.req = load_pick(th->sh, &th->rng);
	}
	/* A request the host held back is void: its lag is the host's, not
	 * the generator's (load_hold.c). */
	d.host_void = load_hold_void(th, intended, now);
	if (d.host_void)
		s->host_void++;
	else
		hist_record(&s->sched_lag, now > intended ? now - intended : 0);
	s->counts.due++;
	s->req_counts[d.req].due++;
	if (!th->bl_len && !th->sh->tr->dispatch(th, &d, now))
		return;
	if (th->bl_len >= th->bl_cap) {
		th->cur->counts.dropped++;
		th->cur->req_counts[d.req].dropped++;
		return;
	}
	th->bl[(th->bl_head + th->bl_len) % th->bl_cap] = d;
	th->bl_len++;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Closed loop (load.h `closed`): no schedule; each free connection takes
 * the next request at once, so a connection sends again as soon as its
 * answer came. The request's slot (its pool entry) is the thread's own
 * count, interleaved between threads as the constant schedule does.
 * Scheduling ends at the duration or when the thread's share of
 * max_requests was sent.
 */
static void closed_fill(struct load_thread *th, uint64_t now)
{
	const struct load_shared *sh = th->sh;

	while (th->quota && !th->bl_len && now < sh->end_ns &&
	       sh->tr->inflight(th) < (unsigned)th->conns) {
		th->due_slot = th->j * (uint64_t)sh->nthreads + (uint64_t)th->id;
		th->j++;
		th->quota--;
		make_due(th, now, now);
	}
	if (!th->quota || now >= sh->end_ns) {
		th->scheduling = 0;
		th->sched_end = min_u64(now, sh->end_ns);
	}
}

static void drain_backlog(struct load_thread *th, uint64_t now)
{
	while (th->bl_len && !th->sh->tr->dispatch(th, &th->bl[th->bl_head], now)) {
		th->bl_head = (th->bl_head + 1) % th->bl_cap;
		th->bl_len--;
	}
}

static void pin_thread(const char *cpus, int id)
{
	int list[1024], n = 0;
	const char *p = cpus;
	cpu_set_t set;

	while (*p && n < 1024) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			return;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && n < 1024; a++)
			list[n++] = (int)a;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return;
	}
	if (!n)
		return;
	CPU_ZERO(&set);
	CPU_SET(list[id % n], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker(void *arg)
{
	struct load_thread *th = arg;
	struct load_shared *sh = th->sh;
	const struct load_transport *tr = sh->tr;
	uint64_t now, deadline, drain_end = 0, exp, stall_at = UINT64_MAX;
	struct timespec cpu;

	if (sh->cfg->cpus)
		pin_thread(sh->cfg->cpus, th->id);
	/* Wake on time, not up to 50 us late (the default timer slack). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Keep the schedule on a busy host: real-time where permitted,
	 * else a short slice (rtsched.h). A closed loop has no schedule to
	 * keep, and its CPU grows with the server's answers: it stays
	 * SCHED_OTHER, sharing the host as before. */
	th->rt = !sh->closed && !rtsched_enter();
	if (!th->rt && !testhooks()->no_short_slice)
		rtsched_short_slice();
	/* Named once its scheduling is set (tests/e2e/generator_rt.sh). */
	pthread_setname_np(pthread_self(), "harness-gen");
	sleep_until_ns(sh->start_ns);
	th->cpu_mark = load_thread_cpu_s();
	/* TEST-ONLY: a generator that stops once, half way (load.h
	 * test_stall_ms); decided here, so the loop pays one comparison. */
	if (sh->cfg->test_stall_ms > 0)
		stall_at = sh->start_ns + (sh->end_ns - sh->start_ns) / 2;
	for (;;) {
		now = now_ns();
		load_hold_check(th, now);
		load_tick(th, now);
		if (now >= stall_at) {
			stall_at = UINT64_MAX;
			if (th->scheduling) {
				sleep_until_ns(now + (uint64_t)(sh->cfg->test_stall_ms * 1e6));
				continue;
			}
		}
		if (th->scheduling) {
			if (atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
				th->scheduling = 0;
				th->sched_end = min_u64(now, sh->end_ns);
			} else if (sh->closed) {
				closed_fill(th, now);
			} else {
				/* Everything due before the end, even when we woke
				 * after it. */
				while (th->next_due <= now && th->next_due < sh->end_ns) {
					/* in the second it is due in (load_tick) */
					load_tick(th, th->next_due);
					make_due(th, th->next_due, now);
					schedule_next(th);
				}
				if (now >= sh->end_ns) {
					th->scheduling = 0;
					th->sched_end = sh->end_ns;
				}
			}
			if (!th->scheduling)
				drain_end = now + sh->timeout_ns;
		}
		drain_backlog(th, now);
		exp = tr->expire(th, now);
		if (!th->scheduling) {
			if (!th->bl_len && !tr->inflight(th)) {
				/* closed: the span ends with the last answer */
				if (sh->closed)
					th->sched_end = now;
				break;
			}
			if (now >= drain_end) {
				/* Still waiting after the grace period: timeouts. */
				while (th->bl_len) {
					load_on_error(th, th->bl[th->bl_head].req, LERR_TIMEOUT, now);
					th->bl_head = (th->bl_head + 1) % th->bl_cap;
					th->bl_len--;
				}
				tr->abort_all(th, now);
				break;
			}
		}
		deadline = min_u64(th->sec_end, exp);
		if (th->scheduling)
			deadline = min_u64(deadline, min_u64(th->next_due, sh->end_ns));
		else
			deadline = min_u64(deadline, drain_end);
		/* Check the stop flag at least every 50 ms. */
		deadline = min_u64(deadline, now + 50000000ull);
		/* Requests waiting for a connection: wake for each response,
		 * or each connection would carry only one request per tick. */
		load_hold_mark(th);
		if (!sh->batch_ns || th->bl_len) {
			tr->poll(th, deadline);
			continue;
		}
		/* Batched: sleep blind (responses do not wake us), then take
		 * whatever is ready without blocking. */
		if (tr->inflight(th) || deadline < now + sh->batch_ns)
			deadline = now + sh->batch_ns;
		sleep_until_ns(deadline);
		tr->poll(th, 0);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	th->cpu_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
	atomic_store_explicit(&th->published, (int64_t)th->sec, memory_order_release);
	atomic_store_explicit(&th->done, 1, memory_order_release);
	return NULL;
}

/* ---------------------------------------------------------- coordinator */

static int validate(const struct load_config *cfg)
{
	if (!cfg->url)
		return error("load: no URL");
	if (!cfg->requests || !cfg->nrequests)
		return error("load: no requests");
	if (!cfg->closed && (!(cfg->rate > 0) || !isfinite(cfg->rate)))
		return error("load: rate must be > 0, got %g", cfg->rate);
	if (!(cfg->duration_s > 0) || !isfinite(cfg->duration_s) || cfg->duration_s > 1e7)
		return error("load: duration must be > 0 s, got %g", cfg->duration_s);
	if (cfg->connections < 1)
		return error("load: connections must be >= 1, got %d", cfg->connections);
	if (cfg->backlog_max < 0)
		return error("load: backlog_max must be >= 0, got %d", cfg->backlog_max);
	if (cfg->timeout_ms < 1)
		return error("load: timeout_ms must be >= 1, got %d", cfg->timeout_ms);
	if (cfg->threads < 1 || cfg->threads > 256)
		return error("load: threads must be 1..256, got %d", cfg->threads);
	if (cfg->parts > 1 && (cfg->part < 0 || cfg->part >= cfg->parts))
		return error("load: part %d of %d", cfg->part, cfg->parts);
	if (cfg->start_ns && cfg->start_ns < now_ns())
		return error("load: the agreed start time has already passed");
	if (cfg->nvars > LOAD_MAX_VARS)
		return error("load: at most %d variables, got %zu", LOAD_MAX_VARS, cfg->nvars);
	if (cfg->pool && (cfg->pool->nreq != cfg->nrequests || cfg->pool->nvars != cfg->nvars))
		return error("load: the request pool was built for another workload");
	if ((cfg->pool ? cfg->pool->n : cfg->pool_size) > UINT32_MAX)
		return error("load: a request pool holds at most %u entries", UINT32_MAX);
	return 0;
}

static int cmp_send(const void *a, const void *b)
{
	const struct load_send *x = a, *y = b;

	return x->actual < y->actual ? -1 : x->actual > y->actual;
}

/* "actual intended" (ns after the start) per sent request, by actual. */
static int write_send_times(const char *path, struct load_thread *ths, int n)
{
	struct sbuf sb = SBUF_INIT;
	struct load_send *all = NULL;
	size_t total = 0, alloc = 0, i;
	int t, ret;

	for (t = 0; t < n; t++) {
		XGROW(all, alloc, total + ths[t].nsends + 1);
		memcpy(all + total, ths[t].sends, ths[t].nsends * sizeof(*all));
		total += ths[t].nsends;
	}
	qsort(all, total, sizeof(*all), cmp_send);
	for (i = 0; i < total; i++)
		sbuf_addf(&sb, "%llu %llu\n", (unsigned long long)all[i].actual,
			  (unsigned long long)all[i].intended);
	ret = write_file(path, sb.buf, sb.len);
	sbuf_release(&sb);
	free(all);
	return ret;
}

/*
 * Every sleep and wake-up costs CPU (about 20 us per wake-up on a
 * virtual machine: the timer and the halt exit to the hypervisor), and an
 * open-loop generator that wakes for each send and each response pays it
 * twice per request. Above LOAD_BATCH_RATE requests per second per thread
 * the worker wakes on a fixed tick instead (long enough for about
 * LOAD_BATCH_PER_TICK requests, 200..600 us) and handles everything due and
 * everything received in one pass: requests are sent up to one tick late
 * (visible as lateness, and in latency, which is measured from the intended
 * send), and responses are seen up to one tick late (the native transport
 * takes the kernel's receive timestamp instead; see load_native.c).
 */
static uint64_t batch_ns(const struct load_config *cfg, int nth)
{
	double t;

	if (cfg->batch_us > 0)
		return (uint64_t)cfg->batch_us * 1000ull;
	if (cfg->batch_us < 0 || cfg->closed || cfg->rate / nth < LOAD_BATCH_RATE)
		return 0;
	/* About LOAD_BATCH_PER_TICK requests per tick, within bounds. */
	t = LOAD_BATCH_PER_TICK * 1e9 / (cfg->rate / nth);
	if (t < LOAD_BATCH_MIN_NS)
		t = LOAD_BATCH_MIN_NS;
	if (t > LOAD_BATCH_MAX_NS)
		t = LOAD_BATCH_MAX_NS;
	return (uint64_t)t;
}

/* Sleep until t, but wake early when every worker has finished. */
static void nap_until(struct load_thread *ths, int n, uint64_t t)
{
	for (;;) {
		uint64_t now = now_ns();
		int i;

		if (now >= t)
			return;
		for (i = 0; i < n; i++)
			if (!atomic_load_explicit(&ths[i].done, memory_order_acquire))
				break;
		if (i == n)
			return;
		sleep_until_ns(min_u64(t, now + 20000000ull));
	}
}

/* The transport for cfg's URL; NULL after an error(). */
static const struct load_transport *pick_transport(const struct load_config *cfg,
						   const struct load_url *url)
{
	switch (cfg->transport) {
	case TRANSPORT_NATIVE:
		if (url->https) {
			error("load: %s: the native transport speaks plain http:// only; use --transport curl",
			      cfg->url);
			return NULL;
		}
		if (cfg->http == HTTPV_H2C) {
			error("load: %s: the native transport speaks HTTP/1.1 only; h2c needs the curl transport",
			      cfg->url);
			return NULL;
		}
		return &load_native_transport;
	case TRANSPORT_CURL:
		return &load_curl_transport;
	default:
		return url->https || cfg->http == HTTPV_H2C ? &load_curl_transport :
		       &load_native_transport;
	}
}

/* Phase 1: check the config, parse the URL, pick the transport, build the
 * requests' wire forms. 0, or -1 after an error(). */
static int setup_shared(const struct load_config *cfg, struct load_shared *sh)
{
	const char *why = "";
	int nth;

	sh->cfg = cfg;
	if (validate(cfg))
		return -1;
	if (load_url_parse(cfg->url, &sh->url, &why))
		return error("load: bad URL '%s': %s", cfg->url, why);
	sh->tr = pick_transport(cfg, &sh->url);
	if (!sh->tr)
		return -1;
	if (sh->tr == &load_curl_transport)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	if (sh->tr == &load_curl_transport && load_curl_h2c_no_reuse(cfg))
		warning("load: libcurl %s cannot reuse h2c connections (fixed in 8.0.0):"
			" each request opens its own", curl_version_info(CURLVERSION_NOW)->version);
	if (load_shared_prepare(sh))
		return -1;
	nth = cfg->threads < cfg->connections ? cfg->threads : cfg->connections;
	sh->nthreads = nth;
	sh->closed = cfg->closed;
	sh->timeout_ns = (uint64_t)cfg->timeout_ms * 1000000ull;
	sh->batch_ns = batch_ns(cfg, nth);
	return 0;
}

/* Phase 2: each thread's share of the connections and the backlog, its
 * PRNG stream, its per-second slots and its transport state. 0, or -1
 * (threads initialised so far are released by release_threads). */
static int init_threads(struct load_shared *sh, struct load_thread *ths)
{
	const struct load_config *cfg = sh->cfg;
	int i, k, nth = sh->nthreads;

	for (i = 0; i < nth; i++) {
		struct load_thread *th = &ths[i];

		th->id = i;
		th->sh = sh;
		th->epfd = -1;
		th->conns = cfg->connections / nth + (i < cfg->connections % nth);
		th->bl_cap = (size_t)(cfg->backlog_max / nth + (i < cfg->backlog_max % nth));
		th->bl = xcalloc(th->bl_cap ? th->bl_cap : 1, sizeof(*th->bl));
		rng_seed(&th->rng, cfg->seed, 0x10ad0000u + (uint64_t)i +
			 (cfg->parts > 1 ? 0x1000u * (uint64_t)cfg->part : 0));
		rng_seed(&th->proc, cfg->seed, 0x7e1a0000u);
		for (k = 0; k < LOAD_NSLOT; k++)
			load_stats_init(&th->slot[k], cfg->nrequests);
		th->cur = &th->slot[0];
		atomic_init(&th->published, -1);
		atomic_init(&th->consumed, -1);
		atomic_init(&th->done, 0);
		th->scheduling = 1;
		th->quota = !cfg->closed || !cfg->max_requests ? UINT64_MAX :
			    cfg->max_requests / (uint64_t)nth + ((uint64_t)i < cfg->max_requests % (uint64_t)nth);
		if (sh->tr->init(th))
			return -1;
	}
	return 0;
}

/* Phase 3: fix the schedule's start a little in the future (so every
 * thread is waiting on time) and start the workers. Returns how many
 * started; fewer than nthreads after an error() (the others are told to
 * stop). */
static int start_threads(struct load_shared *sh, struct load_thread *ths)
{
	int i, nth = sh->nthreads;

	sh->start_ns = sh->cfg->start_ns ? sh->cfg->start_ns : now_ns() + 20000000ull;
	sh->end_ns = sh->start_ns + (uint64_t)(sh->cfg->duration_s * 1e9);
	for (i = 0; i < nth; i++) {
		ths[i].sec_end = sh->start_ns + 1000000000ull;
		ths[i].next_due = sh->start_ns;
		ths[i].j = 0;
		if (sh->closed)
			ths[i].next_due = UINT64_MAX;   /* no schedule: closed_fill */
		else
			schedule_next(&ths[i]);
	}
	for (i = 0; i < nth; i++) {
		if (pthread_create(&ths[i].tid, NULL, worker, &ths[i])) {
			error("load: cannot start generator thread %d", i);
			atomic_store(&sh->stop, 1);
			return i;
		}
	}
	return nth;
}

/* Wait until every worker has published second s or finished; *any: one
 * published it, *all_done: every worker finished. A set stop flag is
 * passed on to the workers meanwhile. */
static void wait_second(struct load_shared *sh, struct load_thread *ths, int64_t s,
			int *any, int *all_done)
{
	struct timespec ts = { 0, 200000 };
	int i, nth = sh->nthreads;

	for (;;) {
		*all_done = 1;
		*any = 0;
		for (i = 0; i < nth; i++) {
			int64_t p = atomic_load_explicit(&ths[i].published, memory_order_acquire);
			int d = atomic_load_explicit(&ths[i].done, memory_order_acquire);

			if (p < s && !d)
				break;
			*all_done &= d;
			*any |= p >= s;
		}
		if (i == nth)
			return;
		if (sh->cfg->stop && *sh->cfg->stop)
			atomic_store(&sh->stop, 1);
		nanosleep(&ts, NULL);
	}
}

/* Merge the workers' slots of second s into sec (reset first) and hand
 * the slots back; the CPU spent doing it is the second's too. Returns
 * that CPU (seconds). */
static double merge_second(struct load_shared *sh, struct load_thread *ths, int64_t s,
			   struct load_stats *sec)
{
	double c0 = load_thread_cpu_s(), cpu;
	int i;

	load_stats_reset(sec);
	for (i = 0; i < sh->nthreads; i++) {
		struct load_stats *slot = &ths[i].slot[s % LOAD_NSLOT];

		if (atomic_load_explicit(&ths[i].published, memory_order_acquire) < s)
			continue;
		load_stats_merge(sec, slot);
		load_stats_reset(slot);
		atomic_store_explicit(&ths[i].consumed, s, memory_order_release);
	}
	cpu = load_thread_cpu_s() - c0;
	sec->cpu_s += cpu;
	return cpu;
}

/* Phase 4, the coordinator: second by second, wait for every worker,
 * merge, and report the whole seconds through on_second; stop early when
 * on_second or the stop flag says so. The rest, merged, goes to on_drain
 * once every worker is done. Returns the coordinator's CPU. */
static double coordinate(struct load_shared *sh, struct load_thread *ths,
			 struct load_result *res)
{
	const struct load_config *cfg = sh->cfg;
	unsigned whole = (unsigned)floor(cfg->duration_s + 1e-9);
	struct load_stats sec, drain;
	double cpu = 0, c0;
	int64_t s;
	int any, all_done;

	load_stats_init(&sec, cfg->nrequests);
	load_stats_init(&drain, cfg->nrequests);
	for (s = 0;; s++) {
		nap_until(ths, sh->nthreads, sh->start_ns + (uint64_t)(s + 1) * 1000000000ull + 1000000ull);
		wait_second(sh, ths, s, &any, &all_done);
		if (!any && all_done)
			break;
		cpu += merge_second(sh, ths, s, &sec);
		c0 = load_thread_cpu_s();
		load_stats_merge(&res->total, &sec);
		cpu += load_thread_cpu_s() - c0;
		if ((unsigned)s < whole && !res->stopped_early && !atomic_load(&sh->stop)) {
			res->seconds++;
			if (cfg->on_second && cfg->on_second(cfg->ctx, (unsigned)s, &sec)) {
				res->stopped_early = 1;
				atomic_store(&sh->stop, 1);
			}
		} else {
			/* in no on_second call: the drain's (load.h) */
			load_stats_merge(&drain, &sec);
		}
		if (cfg->stop && *cfg->stop) {
			res->stopped_early = 1;
			atomic_store(&sh->stop, 1);
		}
	}
	if (cfg->on_drain)
		cfg->on_drain(cfg->ctx, &drain);
	load_stats_release(&drain);
	load_stats_release(&sec);
	return cpu;
}

/* Phase 5: the run's totals: generator CPU, elapsed (the schedule's span,
 * to the last thread's end of scheduling), offered and achieved rates. */
static void finish_result(const struct load_shared *sh, const struct load_thread *ths,
			  double coord_cpu, struct load_result *res)
{
	uint64_t sched_end = sh->start_ns;
	int i;

	for (i = 0; i < sh->nthreads; i++) {
		res->generator_cpu_s += ths[i].cpu_s;
		res->rt_threads += ths[i].rt;
		if (ths[i].sched_end > sched_end)
			sched_end = ths[i].sched_end;
	}
	res->generator_cpu_s += coord_cpu;
	res->threads = sh->nthreads;
	res->elapsed_s = (double)(sched_end - sh->start_ns) / 1e9;
	if (res->elapsed_s <= 0)
		res->elapsed_s = sh->cfg->duration_s;
	res->offered_rps = (double)res->total.counts.due / res->elapsed_s;
	res->achieved_rps = (double)res->total.counts.completed / res->elapsed_s;
}

static void release_threads(struct load_shared *sh, struct load_thread *ths)
{
	int i, k;

	for (i = 0; i < sh->nthreads && ths; i++) {
		if (ths[i].sh)
			sh->tr->release(&ths[i]);
		for (k = 0; k < LOAD_NSLOT; k++)
			load_stats_release(&ths[i].slot[k]);
		free(ths[i].bl);
		free(ths[i].sends);
	}
	free(ths);
}

int load_run(const struct load_config *cfg, struct load_result *res)
{
	struct load_shared sh;
	struct load_thread *ths = NULL;
	double coord_cpu = 0;
	int started = 0, i, ret = -1;

	memset(res, 0, sizeof(*res));
	memset(&sh, 0, sizeof(sh));
	load_stats_init(&res->total, cfg->nrequests);
	if (setup_shared(cfg, &sh))
		goto out;
	ths = xcalloc((size_t)sh.nthreads, sizeof(*ths));
	if (init_threads(&sh, ths))
		goto out;
	started = start_threads(&sh, ths);
	if (started == sh.nthreads) {
		coord_cpu = coordinate(&sh, ths, res);
		ret = 0;
	}
	for (i = 0; i < started; i++)
		pthread_join(ths[i].tid, NULL);
	if (ret)
		goto out;
	finish_result(&sh, ths, coord_cpu, res);
	if (cfg->send_times_path && write_send_times(cfg->send_times_path, ths, sh.nthreads))
		ret = -1;
out:
	release_threads(&sh, ths);
	load_shared_release(&sh);
	return ret;
}
