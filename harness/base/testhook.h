/*
 * testhook: the TEST-ONLY environment variables, read once at start
 * (main, before any command runs) into one struct; nothing else in the
 * program reads a HARNESS_TEST_* variable, and nothing reads one on a
 * hot path or inside a loop. Every hook is named HARNESS_TEST_*; never
 * set one in production (a run that used one says so in its events).
 *
 * The hooks:
 *
 *   HARNESS_TEST_STALL_GENERATOR=STAGE:IMPL:RATE:N[,...]
 *       The local load generator stalls RUNNER_TEST_STALL_MS once, half
 *       way through the window's schedule, in the first N windows of the
 *       cell (stage x implementation x rate; RATE `*` any, N `all` every
 *       window), so that the `generator` gate fails on them for its own
 *       reasons (runner_testhook.c, load.h test_stall_ms;
 *       tests/e2e/replace.sh). Recorded as a `test_stall` event.
 *
 *   HARNESS_TEST_AGENT_SKEW_MS=MS
 *       `harness agent` adds MS (a number, may be negative or fractional)
 *       to its protocol clock, as a host with a skewed clock would; the
 *       coordinator's offset measurement must find it (agent.h;
 *       tests/e2e/agent_load.sh, tests/e2e/agent_run.sh).
 *
 *   HARNESS_TEST_CGROUP2_ROOT=DIR
 *       The cgroup v2 backend takes DIR for the hierarchy's mount point
 *       (account_cgroup2.c): test_account checks creation and limits on a
 *       fake tree of files on hosts without a usable v2 hierarchy.
 *
 *   HARNESS_TEST_NO_SHORT_SLICE=anything
 *       The load generator's threads do not ask the scheduler for a short
 *       slice (rtsched_short_slice; only asked when real-time scheduling
 *       is refused), to compare lateness with and without.
 *
 *   HARNESS_TEST_NO_RT=anything
 *       The generator's threads are refused real-time scheduling, as on
 *       a host without CAP_SYS_NICE (rtsched.h: EPERM; they run
 *       SCHED_OTHER with a short slice, the host fact generator_sched
 *       reads "other"): the fallback's warning, and lateness with and
 *       without (tests/e2e/generator_rt.sh).
 *
 *   HARNESS_TEST_HOST_FACTS=KEY=VALUE[,...]
 *       hostfacts_read() reports these values for these keys (e.g.
 *       governor=performance,boost=off,smt=off), as a tuned or untuned
 *       host would: host.require and check's tuning warnings
 *       (hosttune.h) judge them (tests/e2e/story.sh). A run stores them
 *       as its host facts and records a test_host_facts event.
 *
 * Unset (and in unit tests, which do not call testhook_read) every hook
 * is off: the struct is all zeros. A unit test that sets one calls
 * testhook_read after setenv (and again after unsetenv).
 */
#ifndef HARNESS_TESTHOOK_H
#define HARNESS_TESTHOOK_H

struct testhooks {
	/* HARNESS_TEST_STALL_GENERATOR, or NULL when unset or empty; points
	 * into the environment (not owned). */
	const char *stall_generator;
	double agent_skew_ms;       /* HARNESS_TEST_AGENT_SKEW_MS, 0 unset */
	int no_short_slice;         /* HARNESS_TEST_NO_SHORT_SLICE set */
	int no_rt;                  /* HARNESS_TEST_NO_RT set */
	/* HARNESS_TEST_CGROUP2_ROOT, or NULL; in the environment (not owned). */
	const char *cgroup2_root;
	/* HARNESS_TEST_HOST_FACTS, or NULL; in the environment (not owned). */
	const char *host_facts;
};

/* Reads every hook from the environment; main calls it once, first (a
 * unit test after it sets or unsets one). */
void testhook_read(void);

/* The hooks read at start (all off before testhook_read). */
const struct testhooks *testhooks(void);

#endif
