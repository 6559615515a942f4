/*
 * test_rtsched: a generator thread runs SCHED_FIFO at priority 1 with
 * reset-on-fork, only that thread; a process it forks runs SCHED_OTHER;
 * the probe leaves its caller alone; refused, nothing changes.
 */
#include "t.h"
#include "base/rtsched.h"
#include "base/testhook.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

struct seen {
	int enter;          /* rtsched_enter's answer */
	int policy;         /* sched_getscheduler(0) after it */
	int prio;
	int child_policy;   /* of a child forked by the thread, -1 none */
};

static void *thread_main(void *arg)
{
	struct seen *s = arg;
	struct sched_param p;
	int fd[2], st;
	pid_t pid;

	s->enter = rtsched_enter();
	s->policy = sched_getscheduler(0);
	s->prio = sched_getparam(0, &p) ? -1 : p.sched_priority;
	s->child_policy = -1;
	if (pipe(fd))
		return NULL;
	pid = fork();
	if (pid == 0) {
		char c = (char)sched_getscheduler(0);

		(void)!write(fd[1], &c, 1);
		_exit(0);
	}
	if (pid > 0) {
		char c;

		if (read(fd[0], &c, 1) == 1)
			s->child_policy = c;
		waitpid(pid, &st, 0);
	}
	close(fd[0]);
	close(fd[1]);
	return NULL;
}

static struct seen run_thread(void)
{
	struct seen s = { -1, -1, -1, -1 };
	pthread_t t;

	if (!pthread_create(&t, NULL, thread_main, &s))
		pthread_join(t, NULL);
	return s;
}

/* Whether this process may use real-time scheduling at all (root,
 * CAP_SYS_NICE, RLIMIT_RTPRIO): asked of the kernel directly. */
static int permitted(void)
{
	return rtsched_probe() == 0;
}

TEST(thread_fifo_child_other)
{
	struct seen s = run_thread();

	if (!permitted()) {
		printf("# real-time refused here: only the refusal is checked\n");
		CHECK(s.enter != 0);
		CHECK(s.policy == SCHED_OTHER);
		return;
	}
	CHECK(s.enter == 0);
	CHECK(s.policy == (SCHED_FIFO | SCHED_RESET_ON_FORK));
	CHECK(s.prio == RTSCHED_PRIORITY);
	CHECK(s.child_policy == SCHED_OTHER);
	/* Only that thread: this one is untouched. */
	CHECK(sched_getscheduler(0) == SCHED_OTHER);
	CHECK_STR(rtsched_fact(rtsched_probe()), "fifo");
}

TEST(probe_leaves_caller_alone)
{
	rtsched_probe();
	CHECK(sched_getscheduler(0) == SCHED_OTHER);
}

TEST(refused_changes_nothing)
{
	struct seen s;

	setenv("HARNESS_TEST_NO_RT", "1", 1);
	testhook_read();
	s = run_thread();
	CHECK(s.enter == EPERM);
	CHECK(s.policy == SCHED_OTHER);
	CHECK(s.child_policy == SCHED_OTHER);
	CHECK(rtsched_probe() == EPERM);
	CHECK_STR(rtsched_fact(rtsched_probe()), "other");
	unsetenv("HARNESS_TEST_NO_RT");
	testhook_read();
}

int main(void)
{
	RUN(thread_fifo_child_other);
	RUN(probe_leaves_caller_alone);
	RUN(refused_changes_nothing);
	return t_done();
}
