/*
 * rtsched: how the load generator's threads are scheduled.
 *
 * A generator that sleeps between sends must wake on time; on a busy
 * shared host a SCHED_OTHER thread waits behind other tasks' slices (7-28
 * ms late at p99 at load 5-20 on a 2-core VM: the generator gate then
 * voided most windows, the host behind, not the generator). So each
 * worker thread asks SCHED_FIFO at priority RTSCHED_PRIORITY (the lowest
 * real-time one): it preempts every SCHED_OTHER task when it wakes, runs
 * its few microseconds and sleeps again. What protects the host from a
 * runaway real-time thread is the kernel's RT throttling
 * (sched_rt_runtime_us, 950000 of every 1000000 us by default) and the
 * generator gate's CPU limit (a generator that busy voids its window).
 *
 * Only the calling thread changes (Linux scheduling is per thread), and
 * with SCHED_RESET_ON_FORK: a process forked by such a thread starts
 * SCHED_OTHER at nice 0's weight, so implementations the harness starts
 * never inherit it (they are forked by other threads anyway).
 *
 * The closed loop (load.h `closed`) does not ask: it has no schedule to
 * keep, and its CPU grows with the server's answers.
 *
 * Not permitted (no CAP_SYS_NICE and RLIMIT_RTPRIO 0, a container without
 * it), the thread stays SCHED_OTHER and asks a short slice instead
 * (rtsched_short_slice); the host fact `generator_sched` (hostfacts.h)
 * says which, the runner warns once, `check` warns (hosttune.h
 * generator_rt).
 *
 * Threads: every function acts on the calling thread only; none keeps
 * state. TEST-ONLY: HARNESS_TEST_NO_RT (testhook.h) makes rtsched_enter
 * and rtsched_probe answer EPERM, as a host that refuses.
 */
#ifndef HARNESS_RTSCHED_H
#define HARNESS_RTSCHED_H

#define RTSCHED_PRIORITY 1

/* Put the calling thread under SCHED_FIFO, priority RTSCHED_PRIORITY,
 * reset on fork. 0, or the errno of the refusal (nothing changed). */
int rtsched_enter(void);

/* Whether a thread of this process may enter (a short-lived thread tries
 * it; the caller's own scheduling is untouched): 0, or the errno. */
int rtsched_probe(void);

/* The host fact's value for a probe's answer: "fifo" (0) or "other". */
const char *rtsched_fact(int probe);

/*
 * Ask the scheduler for a short slice (EEVDF, Linux >= 6.12: sched_runtime
 * of a SCHED_OTHER thread is its slice, here 100 us): a woken thread gets
 * an early deadline instead of waiting out another task's slice. The
 * fallback when rtsched_enter is refused; older kernels ignore it.
 */
void rtsched_short_slice(void);

#endif
