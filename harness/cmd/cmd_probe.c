/*
 * cmd_probe: `harness probe SPEC --impl NAME`: build, start, wait healthy,
 * optionally drive open-loop load, print every second the kernel's
 * accounting figures (with their backend) and every runtime-stats signal,
 * then stop cleanly. How a user checks a new implementation block before
 * trusting it overnight.
 */
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "account/account.h"
#include "sut/bind.h"
#include "cmd/cmd.h"
#include "base/jout.h"
#include "load/load.h"
#include "sut/rtstats.h"
#include "spec/spec.h"
#include "sut/sut.h"
#include "base/util.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
}

struct probe {
	const struct spec *spec;
	const struct spec_impl *impl;
	struct sut *sut;
	struct rtstats *rts;
	struct account *acct;
	int json;
	unsigned second;
	uint64_t sec_start;
	int failed;                     /* the implementation exited */
};

static void mib(struct sbuf *sb, const char *label, double bytes)
{
	sbuf_addf(sb, " %s %.1f MiB", label, bytes / 1048576.0);
}

static void add_signals_text(struct sbuf *sb, const struct probe *p,
			     const struct rtstats_poll *polls, size_t n)
{
	const struct rtstats_poll *last = n ? &polls[n - 1] : NULL;
	size_t i, k, bad = 0;

	for (i = 0; i < n; i++)
		bad += polls[i].status != RTS_OK;
	sbuf_adds(sb, " | stats:");
	if (!last) {
		sbuf_adds(sb, " no poll this second");
		return;
	}
	if (bad)
		sbuf_addf(sb, " %zu of %zu polls failed (last: %s%s%s)", bad, n,
			  rtstats_status_name(last->status), last->error ? ": " : "",
			  last->error ? last->error : "");
	for (i = 0; i < last->nvalues; i++) {
		const struct rtstats_value *v = &last->values[i];
		sbuf_addf(sb, " %s=", p->impl->signals[i].name);
		switch (v->kind) {
		case RTV_NUMBER:
			sbuf_addf(sb, "%.15g", v->num);
			break;
		case RTV_COUNTERS:
			sbuf_adds(sb, "{");
			for (k = 0; k < v->ncounters; k++)
				sbuf_addf(sb, "%s%s:%.15g", k ? " " : "", v->counters[k].name,
					  v->counters[k].value);
			sbuf_adds(sb, "}");
			break;
		default:
			sbuf_addf(sb, "(%s)", rtstats_kind_name(v->kind));
		}
	}
}

static json_t *signals_json(const struct probe *p, const struct rtstats_poll *polls, size_t n)
{
	const struct rtstats_poll *last = n ? &polls[n - 1] : NULL;
	json_t *o = json_object(), *sig = json_object(), *st = json_array();
	size_t i, k;

	for (i = 0; i < n; i++)
		json_array_append_new(st, json_string(rtstats_status_name(polls[i].status)));
	json_object_set_new(o, "polls", st);
	if (last && last->error)
		json_object_set_new(o, "last_error", json_string(last->error));
	for (i = 0; last && i < last->nvalues; i++) {
		const struct rtstats_value *v = &last->values[i];
		json_t *c;
		switch (v->kind) {
		case RTV_NUMBER:
			json_object_set_new(sig, p->impl->signals[i].name, jout_num(v->num));
			break;
		case RTV_COUNTERS:
			c = json_object();
			for (k = 0; k < v->ncounters; k++)
				json_object_set_new(c, v->counters[k].name,
						    jout_num(v->counters[k].value));
			json_object_set_new(sig, p->impl->signals[i].name, c);
			break;
		default:
			json_object_set_new(sig, p->impl->signals[i].name,
					    json_string(rtstats_kind_name(v->kind)));
		}
	}
	json_object_set_new(o, "signals", sig);
	return o;
}

/* One second is over: close its accounting window, print, open the next. */
static int tick(struct probe *p, const struct load_stats *sec)
{
	struct account_window w;
	struct rtstats_poll *polls = NULL;
	size_t npolls = 0;
	struct sbuf sb = SBUF_INIT;
	uint64_t now = now_ns();
	int ok;

	ok = !account_window_end(p->acct, &w);
	if (p->rts) {
		npolls = rtstats_since(p->rts, p->sec_start, &polls);
		rtstats_forget_before(p->rts, now);
	}
	p->second++;
	if (p->json) {
		json_t *o = json_object();
		char *text;
		json_object_set_new(o, "t_s", json_integer(p->second));
		if (ok) {
			json_object_set_new(o, "backend", json_string(w.backend));
			json_object_set_new(o, "cpu_s", json_real(w.cpu_s));
			json_object_set_new(o, "user_s", json_real(w.user_s));
			json_object_set_new(o, "system_s", json_real(w.system_s));
			json_object_set_new(o, "anon_p50_bytes", json_real(w.anon_p50));
			json_object_set_new(o, "anon_max_bytes", json_real(w.anon_max));
			json_object_set_new(o, "samples", json_integer((json_int_t)w.nsamples));
			if (w.has_peak) {
				json_object_set_new(o, "mem_peak_bytes", json_integer((json_int_t)w.mem_peak));
				json_object_set_new(o, "peak_scope", json_string(w.peak_scope));
			}
			if (w.has_throttle) {
				json_object_set_new(o, "nr_throttled", json_integer((json_int_t)w.nr_throttled));
				json_object_set_new(o, "throttled_usec", json_integer((json_int_t)w.throttled_usec));
			}
			if (w.has_oom) {
				json_object_set_new(o, "oom", json_integer((json_int_t)w.oom));
				json_object_set_new(o, "oom_kill", json_integer((json_int_t)w.oom_kill));
			}
			if (w.has_majfault)
				json_object_set_new(o, "pgmajfault", json_integer((json_int_t)w.pgmajfault));
			json_object_set_new(o, "sampler_cpu_s", json_real(w.sampler_cpu_s));
		}
		json_object_set_new(o, "processes", json_integer(account_nprocs(p->acct)));
		if (p->rts)
			json_object_set_new(o, "stats", signals_json(p, polls, npolls));
		if (sec) {
			json_t *l = json_object();
			json_object_set_new(l, "sent", json_integer((json_int_t)sec->counts.sent));
			json_object_set_new(l, "completed", json_integer((json_int_t)sec->counts.completed));
			json_object_set_new(l, "errors", json_integer((json_int_t)load_counts_errors(&sec->counts)));
			json_object_set_new(l, "p99_ms", json_real(hist_percentile_ms(&sec->latency, 99)));
			json_object_set_new(o, "load", l);
		}
		text = json_dumps(o, JSON_COMPACT);
		printf("%s\n", text);
		free(text);
		json_decref(o);
	} else {
		sbuf_addf(&sb, "[%3us]", p->second);
		if (ok) {
			sbuf_addf(&sb, " %s: cpu %.3f s (user %.3f sys %.3f)", w.backend, w.cpu_s,
				  w.user_s, w.system_s);
			mib(&sb, "anon p50", w.anon_p50);
			mib(&sb, "max", w.anon_max);
			if (w.has_peak) {
				mib(&sb, "peak", (double)w.mem_peak);
				sbuf_addf(&sb, " (%s)", w.peak_scope);
			}
			if (w.has_throttle)
				sbuf_addf(&sb, " throttled %llu (%.1f ms)", (unsigned long long)w.nr_throttled,
					  w.throttled_usec / 1000.0);
			if (w.has_oom)
				sbuf_addf(&sb, " oom_kill %llu", (unsigned long long)w.oom_kill);
			if (w.has_majfault)
				sbuf_addf(&sb, " majflt %llu", (unsigned long long)w.pgmajfault);
		} else
			sbuf_adds(&sb, " accounting unavailable");
		if (sec)
			sbuf_addf(&sb, " | load: sent %llu done %llu errors %llu p99 %.2f ms",
				  (unsigned long long)sec->counts.sent,
				  (unsigned long long)sec->counts.completed,
				  (unsigned long long)load_counts_errors(&sec->counts),
				  hist_percentile_ms(&sec->latency, 99));
		if (p->rts)
			add_signals_text(&sb, p, polls, npolls);
		printf("%s\n", sb.buf);
	}
	fflush(stdout);
	sbuf_release(&sb);
	rtstats_polls_free(polls, npolls);
	if (ok)
		account_window_release(&w);
	p->sec_start = now;
	if (sut_exited(p->sut)) {
		char desc[128];
		error("probe: impl %s %s during the probe (second %u); %s ends:", p->impl->name,
		      sut_exit_desc(p->sut, desc, sizeof(desc)), p->second, sut_stderr_path(p->sut));
		sut_print_tail(sut_stderr_path(p->sut), 0, 10);
		p->failed = 1;
		return 1;
	}
	if (account_window_begin(p->acct))
		return 1;
	return stop_flag ? 1 : 0;
}

static int on_second(void *ctx, unsigned index, const struct load_stats *sec)
{
	return tick(ctx, sec);
}

static int drive(struct probe *p, double seconds, double rate)
{
	struct load_config lc;
	struct load_result res;
	unsigned i;

	if (account_window_begin(p->acct))
		return -1;
	p->sec_start = now_ns();
	if (rate > 0) {
		bind_load(&lc, p->spec, sut_url(p->sut), rate, seconds, p->spec->seed);
		lc.netns_fd = sut_netns(p->sut);   /* a sandboxed one's loopback */
		lc.on_second = on_second;
		lc.ctx = p;
		lc.stop = &stop_flag;
		memset(&res, 0, sizeof(res));
		if (load_run(&lc, &res))
			return -1;
		fprintf(stderr, "probe: load offered %.1f/s achieved %.1f/s, generator cpu %.3f s\n",
			res.offered_rps, res.achieved_rps, res.generator_cpu_s);
		load_result_release(&res);
	} else {
		for (i = 0; i < (unsigned)(seconds + 0.5); i++) {
			sleep_until_ns(p->sec_start + 1000000000ull);
			while (!stop_flag && now_ns() < p->sec_start + 1000000000ull)
				sleep_until_ns(p->sec_start + 1000000000ull);
			if (tick(p, NULL))
				break;
		}
	}
	return 0;
}

struct probe_opts {
	const char *spec_path, *impl_name, *backend_s;
	double seconds, rate;
	int json, no_build;
};

static struct probe_opts po = { .seconds = 10 };

static const struct opt options[] = {
	OPT_STRING(0, "impl", "NAME", &po.impl_name, "the implementation to probe (required)"),
	OPT_DURATION("duration", &po.seconds, "how long to watch it (default 10 s)"),
	OPT_DURATION("seconds", &po.seconds, NULL),   /* the old name */
	OPT_RATE("rate", &po.rate, "drive load at R requests per second (1k = 1000)"),
	OPT_STRING(0, "backend", "auto|cgroup2|cgroup1|procfs", &po.backend_s,
		   "accounting backend (default: the spec's accounting.backend)"),
	OPT_BOOL(0, "no-build", &po.no_build, "skip the implementation's build command"),
	OPT_END(),
};

/* The accounting backend: --backend, else the spec's. 0, EXIT_USAGE (bad
 * name) or EXIT_ENV (not on this host), after one line. */
static int probe_backend(const struct spec *spec, const char *backend_s, enum acct_backend *out)
{
	*out = spec->accounting.backend;
	if (backend_s && account_backend_parse(backend_s, out))
		return error("probe: --backend: want auto, cgroup2, cgroup1 or procfs, got '%s'",
			     backend_s), EXIT_USAGE;
	if (*out != ACCT_AUTO && !account_available(*out))
		return error("probe: accounting backend %s is not available on this host",
			     account_backend_name(*out)), EXIT_ENV;
	return 0;
}

/* Build (unless --no-build), start and wait until healthy, logging into
 * dir; then start the runtime-stats poller. SIGINT/SIGTERM/SIGHUP stop any of it.
 * 0, or -1 after one line. */
static int probe_start(struct probe *p, const struct probe_opts *po, enum acct_backend backend,
		       const char *runs_dir, const char *dir)
{
	struct sut_config sc;
	struct sut_build_config bc;
	struct sbuf label = SBUF_INIT, blog = SBUF_INIT;
	struct sigaction sa;
	struct bind_sandbox sbx;
	const struct bind_sandbox *sb;
	char hide[PATH_MAX];
	int ret = -1, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* sandbox: always holds here as in a run: bwrap, its own uid */
	sb = bind_sandbox_always(p->spec, p->impl, runs_dir, &sbx, hide, &err);
	if (err)
		goto out;
	if (!po->no_build && p->impl->build) {
		sbuf_addf(&blog, "%s/%s.build.log", dir, p->impl->name);
		bind_build(&bc, p->spec, p->impl, NULL, blog.buf, sb);
		bc.backend = backend;
		bc.stop = &stop_flag;
		fprintf(stderr, "probe: building %s (log %s)\n", p->impl->name, blog.buf);
		if (sut_build(&bc))
			goto out;
	}
	sbuf_addf(&label, "probe.%d.%s", (int)getpid(), p->impl->name);
	bind_sut(&sc, p->spec, p->impl, NULL, dir, label.buf, sb);
	sc.backend = backend;
	sc.stop = &stop_flag;
	p->sut = sut_start(&sc);
	if (!p->sut)
		goto out;
	if (sb)
		fprintf(stderr, "probe: %s: sandbox: always: in bwrap as uid %d, its repo read-only: %s\n",
			p->impl->name, sb->uid, sut_argv_text(p->sut));
	p->acct = sut_account(p->sut);
	if (sut_wait_healthy(p->sut, p->impl->health_timeout_s))
		goto out;
	fprintf(stderr, "probe: %s healthy: pid %d at %s, accounting %s every %d ms, cpus %s (%s), logs %s\n",
		p->impl->name, (int)sut_pid(p->sut), sut_url(p->sut),
		account_backend_name(account_backend(p->acct)), p->spec->accounting.sample_ms,
		sut_cpus(p->sut) ? sut_cpus(p->sut) : "?", sut_cpus_method(p->sut), dir);
	if (sut_stats_url(p->sut)) {
		p->rts = rtstats_start_in(sut_netns(p->sut), sut_stats_url(p->sut),
					  p->impl->stats_poll_hz, p->impl->signals,
					  p->impl->nsignals, p->impl->stats_format,
					  p->spec->workload.tls.cacert,
					  p->spec->workload.tls.insecure);
		if (!p->rts)
			goto out;
	}
	ret = 0;
out:
	sbuf_release(&label);
	sbuf_release(&blog);
	return ret;
}

static int cmd_probe(struct cmd_ctx *c)
{
	struct spec *spec = NULL;
	struct probe p;
	struct sbuf dir = SBUF_INIT;
	enum acct_backend backend;
	char stamp[32];
	time_t now = time(NULL);
	int ret;

	po.spec_path = c->args[0];
	po.json = c->json;
	if (!po.impl_name)
		return error("probe: --impl NAME is required; see 'harness probe --help'"), EXIT_USAGE;
	if (po.seconds > 86400)
		return error("probe: --duration: at most 86400 s, got %g", po.seconds), EXIT_USAGE;
	spec = spec_load(po.spec_path);
	if (!spec)
		return EXIT_USAGE;
	memset(&p, 0, sizeof(p));
	p.spec = spec;
	p.json = po.json;
	p.impl = spec_impl_find(spec, po.impl_name);
	if (!p.impl) {
		error("probe: %s: no implementation named '%s'", po.spec_path, po.impl_name);
		ret = EXIT_USAGE;
		goto out;
	}
	if (p.impl->host) {
		error("probe: %s: implementation '%s' runs on another host (host: %s): probe"
		      " starts implementations here only", po.spec_path, po.impl_name, p.impl->host);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = probe_backend(spec, po.backend_s, &backend);
	if (!ret && backend == ACCT_PROCFS && p.impl->sandbox == SANDBOX_ALWAYS) {
		/* as the spec's check refuses it: a jail's limits are its cgroup's */
		error("probe: %s: sandbox: always: --backend procfs cannot enforce the sandbox's"
		      " memory, pids and cpu limits", po.impl_name);
		ret = EXIT_USAGE;
	}
	if (ret)
		goto out;
	ret = EXIT_ENV;
	sut_reap_leftovers();
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	sbuf_addf(&dir, "%s/probe-%s-%d/logs", c->runs_dir, stamp, (int)getpid());
	if (mkdir_p(dir.buf, 0755) || probe_start(&p, &po, backend, c->runs_dir, dir.buf) ||
	    drive(&p, po.seconds, po.rate))
		goto out;
	ret = p.failed ? EXIT_ENV : EXIT_OK;
out:
	rtstats_free(p.rts);
	if (p.sut) {
		sut_stop(p.sut);
		if (ret == EXIT_OK)
			fprintf(stderr, "probe: %s stopped\n", p.impl->name);
	}
	sut_free(p.sut);
	spec_free(spec);
	sbuf_release(&dir);
	return ret;
}

const struct cmd_desc cmd_probe_desc = {
	.name = "probe",
	.summary = "start one implementation and print its accounting and signals",
	.synopsis = "SPEC --impl NAME [options]",
	.about =
	"Build the implementation NAME of SPEC, start it on a free loopback port,\n"
	"wait until its health URL answers, then for --duration (default 10 s) print\n"
	"every second its CPU (user/system), anonymous memory, peak, throttling,\n"
	"OOM kills and major faults as the kernel accounts them (the backend is\n"
	"named on every line), and every runtime-stats signal of the spec. With\n"
	"--rate R it drives open-loop load at R requests/s with the spec's\n"
	"workload meanwhile and prints the second's requests and p99. Then it\n"
	"stops the implementation (SIGTERM, grace, SIGKILL) and exits.\n"
	"Logs go to RUNS_DIR/probe-<time>-<pid>/logs; --json prints one JSON object\n"
	"per second on stdout instead of text. An implementation whose spec says\n"
	"`sandbox: always` is built and run in bwrap as in a run (its own uid,\n"
	"its repo read-only, its own network: the load and the stats poller\n"
	"reach it from inside; needs root), said on stderr with the bwrap argv.\n"
	"\n"
	"Exit status: 0 done, 2 usage or spec error, 3 the implementation failed to\n"
	"build, start or become healthy, or exited during the probe.\n",
	.opts = options,
	.flags = CMD_RUNS_DIR | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_probe,
};
