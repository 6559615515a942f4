/*
 * load_hold: requests the host held back (load.h host_void_ms).
 *
 * A real-time worker (base/rtsched.h) preempts every SCHED_OTHER task the
 * moment its timer fires, so when it wakes late for a request it was
 * waiting for, and it neither ran nor blocked on its own account in the
 * meantime, nothing but the host held it: the hypervisor paused the VM,
 * or the kernel ran something above every SCHED_OTHER task (interrupts,
 * a higher real-time priority, RT throttling). An implementation run as
 * the harness starts it (SCHED_OTHER) cannot: however much CPU it burns,
 * the worker runs first. So such a request's lateness says nothing about
 * the implementation, and its latency (which a stall of the host inflates
 * for the implementation's requests in flight as much as for this one)
 * is not the implementation's either: it is void.
 *
 * What counts as the thread's own (never void): its CPU between the
 * mark (the start of its wait) and the wake-up (own_ns, subtracted from
 * the lateness: a request is void only when lateness minus all of it
 * exceeds the limit), a major page fault meanwhile (it blocked on a disk
 * read, which memory pressure, perhaps the implementation's, causes), a
 * wait for the coordinator (load_record.c wait_slot: the coordinator is
 * SCHED_OTHER), and any wake-up without a mark before it (the first wait
 * of a run, the TEST-ONLY stall). A SCHED_OTHER worker never marks.
 *
 * Threads: each function reads and writes its own thread's fields only.
 */
#include <sys/resource.h>
#include <sys/time.h>

#include "load/load_internal.h"
#include "base/util.h"

/* The calling thread's CPU (ns) and major faults. */
static void thread_usage(uint64_t *cpu_ns, uint64_t *majflt)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		*cpu_ns = UINT64_MAX;
		*majflt = UINT64_MAX;
		return;
	}
	*cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
		  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	*majflt = (uint64_t)ru.ru_majflt;
}

void load_hold_mark(struct load_thread *th)
{
	if (!th->rt || !(th->sh->cfg->host_void_ms > 0))
		return;
	thread_usage(&th->hold_cpu, &th->hold_majflt);
	th->hold_wall = now_ns();
	th->hold_armed = th->hold_cpu != UINT64_MAX;
}

void load_hold_check(struct load_thread *th, uint64_t now)
{
	uint64_t cpu, majflt;

	th->held_ok = 0;
	if (!th->hold_armed)
		return;
	th->hold_armed = 0;
	thread_usage(&cpu, &majflt);
	if (cpu == UINT64_MAX || cpu < th->hold_cpu || majflt != th->hold_majflt ||
	    now < th->hold_wall)
		return;
	th->own_ns = cpu - th->hold_cpu;
	th->held_ok = 1;
}

void load_hold_spoil(struct load_thread *th)
{
	th->hold_armed = 0;
	th->held_ok = 0;
}

int load_hold_void(const struct load_thread *th, uint64_t intended, uint64_t now)
{
	uint64_t limit;

	if (!th->held_ok || now <= intended || intended < th->hold_wall)
		return 0;
	limit = (uint64_t)(th->sh->cfg->host_void_ms * 1e6);
	/* All of the thread's own CPU since the mark counts against the
	 * host: what is left is time it was not run at all. */
	return now - intended > th->own_ns && now - intended - th->own_ns > limit;
}
