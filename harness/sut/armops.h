/*
 * armops: where an implementation (an arm or a dependency) runs, behind one
 * table of operations (anchors: curl's struct Curl_ssl, git's
 * transport-internal.h, the load engine's two transports). The runner
 * calls only these; each backend is one file:
 *
 *   armops_local.c   on this host: sut.c (process group, cgroup, jail),
 *                    account.c, rtstats.c
 *   armops_agent.c   on impl.host through an agent in its --sut role
 *                    (rsut.h), started over ssh
 *   armops_ctr.c     a container (impl.container) through the engine's
 *                    CLI on this host (ctr.h, sut_ctr.h); the local
 *                    backend's ops (armops_local.h) on its process
 *
 * A new backend is one file with one `const struct
 * armops` and one line in armops_pick(); the runner does not change. It
 * fills every op (none is optional; an op that has nothing to do returns
 * what the local backend returns for "none": see each op), and builds
 * its configurations with bind_sut / bind_build (the one spec-to-config
 * mapping), as both backends here do. A dependency's env carries
 * HARNESS_DEP_DIR, a directory on this host: a backend whose processes
 * do not see this host's files drops it (armops_agent.c). tests/unit/fake_arm.h is a third,
 * complete backend to copy from.
 *
 * Two objects:
 *  - a site (struct armops_site): WHERE one implementation runs and with
 *    what, filled once by the runner at the arm's or dependency's first
 *    use (runner_arm_site, runner_dep_site), alive as long as the run;
 *    every pointer in it is borrowed and must outlive every instance
 *    started from it; the backend never frees or changes it;
 *  - an instance (struct armops_inst): one running start of it, from
 *    armops_start to armops_stop, owned by the caller. Each backend embeds
 *    struct armops_inst first in its own instance struct.
 *
 * Who calls what, when (all from the runner's thread; nothing here is
 * thread-safe):
 *   run start:  armops_address (a dependency's, before the spec is bound
 *             to its ports), armops_prepare (a jailed arm: its sandbox)
 *   build, version, reset, setup:  armops_command (no instance needed);
 *             an @base control's tree then armops_tree_give(0, 0)
 *   window:   armops_start -> armops_health -> (armops_acct_begin ..
 *             armops_acct_end, armops_stats, armops_exited, armops_lost)*
 *             -> armops_stop; an instance that exited is stopped and a new
 *             one started.
 *   idle:     while another arm is measured: armops_freeze(1) ..
 *             armops_cpu_begin .. armops_cpu_end .. armops_freeze(0).
 *   limits:   armops_limits after a window or a failed health wait.
 *
 * Errors: functions returning int return 0 on success and -1 after one
 * error() line (the caller exits 3 unless it says otherwise), except
 * where stated. Queries on an instance never fail: they return NULL, -1
 * or 0 for "unknown/none" as documented per op.
 */
#ifndef HARNESS_ARMOPS_H
#define HARNESS_ARMOPS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "account/account.h"
#include "sandbox/quota.h"
#include "spec/spec.h"

struct bind_sandbox;
struct rsut_src;
struct rtstats;
struct sbuf;
struct sut_build_config;

/* Where and with what one implementation runs (see above). */
struct armops_site {
	const struct armops *ops;      /* armops_pick(impl), or a test's */
	const struct spec *spec;       /* accounting, workload.tls, sandbox limits */
	const struct spec_impl *impl;  /* start, env, health, stats, cpus, limits, host */
	const char *workdir;           /* NULL: impl->repo (on the host it runs on) */
	const char *log_dir;           /* here: <impl name>.stdout.log / .stderr.log */
	const char *label;             /* its cgroup label: "harness.<run>.<name>" */
	int port;                      /* fixed port (a dependency's); 0: a free one */
	int plain;                     /* 1: not served over workload.tls (a dependency) */
	/* agent backend: a rerun's checkout fetched on impl.host (rsut_fetch.h),
	 * or NULL; other backends ignore it */
	struct rsut_src *src;
	volatile sig_atomic_t *stop;   /* a signal handler's flag: waits give up */
};

/* One running start of a site's implementation (see above). */
struct armops_inst {
	const struct armops *ops;
	const struct armops_site *site;
};

/* What one start cost before any load (account/footprint.h): exec to
 * its first healthy answer, its processes' memory then. */
struct armops_footprint {
	double startup_ms;              /* NAN unknown */
	int64_t rss_kb, pss_kb;         /* -1 unknown */
};

/* What a jailed implementation did past its sandbox's limits. */
struct armops_hits {
	struct account_limit_hits kernel;  /* forks refused, OOM kills (account.h) */
	unsigned long relay_refused;    /* at sandbox.relay_connections */
	char disk_full[QUOTA_FULL_LEN]; /* its disk quota full: the figures
					   (quota_full), else "" */
};

struct armops {
	const char *name;              /* "local", "agent", ... */
	/* 1 when armops_cpu_begin/_end can run while its accounting window
	 * (armops_acct_begin) is open; 0 when they share one (the agent
	 * backend): the runner then does not measure a dependency's idle CPU,
	 * whose window is open for dependency_headroom. */
	int cpu_beside_window;

	/* ---- site operations (no instance) ---- */

	/* Run bc->impl->build to completion (build, version, reset, setup),
	 * bc as bind_build made it (the one spec-to-config mapping); where it
	 * runs, with the same limits and jail. sut_build's returns: 0 exit 0,
	 * 1 another exit with bc->quiet, else -1 after one error() line. */
	int (*command)(const struct armops_site *s, const struct sut_build_config *bc);
	/* Where this host reaches its ports: *addr malloc'd, or NULL for this
	 * host's loopback. 0, or -1 after an error(). */
	int (*address)(const struct armops_site *s, char **addr);
	/* Hand its tree (workdir, or the fetched checkout) to uid, group gid
	 * (-1: the sandbox user's there), read-only to it when uid is 0 (an
	 * @base control frozen after its build). 0, or -1 after an error(). */
	int (*tree_give)(const struct armops_site *s, int uid, int gid);
	/* The sandbox where it runs made ready for uid (sandbox_prepare
	 * there: bwrap, the sandbox user, its tree given to uid when give,
	 * else reachable by it); *gid the sandbox user's group where this
	 * host knows it, else -1 (an agent prepares the rest at its start).
	 * 0, or -1 after an error(). */
	int (*prepare)(const struct armops_site *s, int uid, int give, int *gid);
	/* How a message says where it runs: appends "" here, " on HOST" there. */
	void (*place)(const struct armops_site *s, struct sbuf *out);

	/* ---- instance lifecycle ---- */

	/* Start it, with sb its sandbox (NULL: trusted, the harness's user);
	 * sb as runner_arm_sandbox fills it for this host, each backend taking
	 * what applies where it runs. NULL after one error() line: the host's
	 * failure when *unhealthy is 0; the implementation's (started, then
	 * exited or never healthy) when 1, with *hits what it hit. A backend
	 * may wait for health here (the agent's does); armops_health then
	 * returns 0 at once. */
	struct armops_inst *(*start)(const struct armops_site *s, const struct bind_sandbox *sb,
				     int *unhealthy, struct armops_hits *hits);
	/* Wait until healthy (its health URL, else alive), at most timeout_s.
	 * 0, or -1 after an error() line (exited, timed out, stop flag). On
	 * success its runtime-stats poller (armops_stats) runs. */
	int (*health)(struct armops_inst *i, double timeout_s);
	/* Stop it (its process tree and cgroup, its poller), keep the end of
	 * its logs in site->log_dir, free i. NULL: no-op. */
	void (*stop)(struct armops_inst *i);

	/* ---- queries (never fail) ---- */

	int (*exited)(struct armops_inst *i);      /* non-blocking: 1 once gone */
	/* 1 when gone by no doing of its own (an agent's link broke); *why
	 * owned by i. */
	int (*lost)(struct armops_inst *i, const char **why);
	/* "exited with status 1" (buf, or a string owned by i) */
	const char *(*exit_desc)(struct armops_inst *i, char *buf, size_t n);
	/* where its stderr can be read, for a message: a path, or a phrase */
	const char *(*stderr_hint)(struct armops_inst *i);
	const char *(*url)(struct armops_inst *i); /* where the load goes */
	int (*port)(struct armops_inst *i);
	int (*netns)(struct armops_inst *i);       /* its namespace here, or -1 */
	const char *(*cpus)(struct armops_inst *i);        /* NULL unknown */
	const char *(*cpus_method)(struct armops_inst *i); /* NULL unknown */
	/* the exact argv started (a jail's), NULL when not recorded */
	const char *(*argv_text)(struct armops_inst *i);
	/* The text of an arm's sut_start event ("NAME started on ...");
	 * appended to ev. */
	void (*describe)(struct armops_inst *i, const char *name, unsigned starts,
			 struct sbuf *ev);
	/* How a dependency's dep_start event says where it runs: "" here,
	 * " through an agent on HOST" (owned by i or static). */
	const char *(*via)(struct armops_inst *i);
	/* The facts of the host it runs on, beside this host's (host_facts
	 * "<scope>.<arm>.<key>"): put called once per fact (a local arm:
	 * arm.<name>.cpu_weight, account_cpu_weight). */
	void (*facts)(struct armops_inst *i,
		      void (*put)(void *ctx, const char *scope, const char *key, const char *value),
		      void *ctx);
	/* Its runtime stats (rtstats.h), owned by i; NULL when none. */
	struct rtstats *(*stats)(struct armops_inst *i);
	/* The sandbox limits it hit so far (kernel counts, relay refusals;
	 * h->disk_full where the backend reads the quota itself, as an
	 * agent's host does: the runner reads this host's, runner_arm_disk_check). */
	void (*limits)(struct armops_inst *i, struct armops_hits *h);
	/* Its footprint, read now (once healthy, before any load): unknown
	 * fields where the backend cannot read them (an agent's, today). */
	void (*footprint)(struct armops_inst *i, struct armops_footprint *out);

	/* ---- measurement ---- */

	/* Its accounting window (account.h) where it runs: 0, or -1 quiet
	 * (the window then has no accounting). */
	int (*acct_begin)(struct armops_inst *i);
	int (*acct_end)(struct armops_inst *i, struct account_window *out);
	/* Freeze (on 1) or thaw (0) it while another arm is measured: 0 with
	 * *freezer the mechanism (static), -ENOTSUP where it cannot be (left
	 * running), another negative errno when the freezer refused. */
	int (*freeze)(struct armops_inst *i, int on, const char **freezer);
	/* Its CPU seconds from _begin to _end (idle arms); -1 quiet when
	 * unknown. _end is called once after every _begin that returned 0. */
	int (*cpu_begin)(struct armops_inst *i);
	int (*cpu_end)(struct armops_inst *i, double *cpu_s);
};

extern const struct armops armops_local;
extern const struct armops armops_agent;
extern const struct armops armops_ctr;

/* The backend impl runs on: the container's for impl->ctr.present, the
 * agent's for impl->host, else local. */
const struct armops *armops_pick(const struct spec_impl *impl);

/* A zeroed site for impl with armops_pick's backend; the caller fills
 * the rest. */
void armops_site_init(struct armops_site *s, const struct spec *spec,
		      const struct spec_impl *impl);

/* The calls, dispatched through the site's or instance's ops (each as
 * documented on its op). armops_stop(NULL) is a no-op. */
int armops_command(const struct armops_site *s, const struct sut_build_config *bc);
int armops_address(const struct armops_site *s, char **addr);
int armops_tree_give(const struct armops_site *s, int uid, int gid);
int armops_prepare(const struct armops_site *s, int uid, int give, int *gid);
void armops_place(const struct armops_site *s, struct sbuf *out);
struct armops_inst *armops_start(const struct armops_site *s, const struct bind_sandbox *sb,
				 int *unhealthy, struct armops_hits *hits);
int armops_health(struct armops_inst *i, double timeout_s);
void armops_stop(struct armops_inst *i);
int armops_exited(struct armops_inst *i);
int armops_lost(struct armops_inst *i, const char **why);
const char *armops_exit_desc(struct armops_inst *i, char *buf, size_t n);
const char *armops_stderr_hint(struct armops_inst *i);
const char *armops_url(struct armops_inst *i);
int armops_port(struct armops_inst *i);
int armops_netns(struct armops_inst *i);
const char *armops_cpus(struct armops_inst *i);
const char *armops_cpus_method(struct armops_inst *i);
const char *armops_argv_text(struct armops_inst *i);
void armops_describe(struct armops_inst *i, const char *name, unsigned starts,
		     struct sbuf *ev);
const char *armops_via(struct armops_inst *i);
void armops_facts(struct armops_inst *i,
		  void (*put)(void *ctx, const char *scope, const char *key, const char *value),
		  void *ctx);
void armops_footprint(struct armops_inst *i, struct armops_footprint *out);
struct rtstats *armops_stats(struct armops_inst *i);
void armops_limits(struct armops_inst *i, struct armops_hits *h);
int armops_acct_begin(struct armops_inst *i);
int armops_acct_end(struct armops_inst *i, struct account_window *out);
int armops_freeze(struct armops_inst *i, int on, const char **freezer);
int armops_cpu_begin(struct armops_inst *i);
int armops_cpu_end(struct armops_inst *i, double *cpu_s);

#endif
