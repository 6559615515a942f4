/* rtsched: real-time scheduling of the generator's threads (rtsched.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/rtsched.h"
#include "base/testhook.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

int rtsched_enter(void)
{
	struct sched_param p = { .sched_priority = RTSCHED_PRIORITY };

	if (testhooks()->no_rt)
		return EPERM;
	/* pid 0: the calling thread (Linux schedules threads, not processes). */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p))
		return errno ? errno : EPERM;
	return 0;
}

static void *probe_main(void *arg)
{
	*(int *)arg = rtsched_enter();
	return NULL;
}

int rtsched_probe(void)
{
	pthread_t t;
	int r = EAGAIN, err;

	if (testhooks()->no_rt)
		return EPERM;
	err = pthread_create(&t, NULL, probe_main, &r);
	if (err)
		return err;
	pthread_join(t, NULL);
	return r;
}

const char *rtsched_fact(int probe)
{
	return probe ? "other" : "fifo";
}

void rtsched_short_slice(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.policy = 0;                /* SCHED_OTHER */
	attr.runtime = 100000;          /* 100 us */
	syscall(SYS_sched_setattr, 0, &attr, 0);
}
