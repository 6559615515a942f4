/*
 * t.h: the unit-test harness. Each tests/unit/test_<module>.c is a program:
 *
 *   TEST(parses_rungs) { CHECK(x == 3); NEAR(p99, 5.0, 0.05, "1% bucket error"); }
 *   int main(void) { RUN(parses_rungs); return t_done(); }
 *
 * Every test prints "ok - <file>: <name>" or "not ok - <file>: <name>";
 * tests/run.sh counts them across all programs and prints the closing
 * "N passed, N failed" line.
 */
#ifndef T_H
#define T_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int t_cur_failed, t_passed, t_failed;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stdout, "#   %s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                                \
			t_cur_failed = 1;                                        \
		}                                                                \
	} while (0)

/* |got - want| <= tol; `why` says where the tolerance comes from. */
#define NEAR(got, want, tol, why)                                                \
	do {                                                                     \
		double g_ = (double)(got), w_ = (double)(want), t_ = (double)(tol); \
		if (!(fabs(g_ - w_) <= t_)) {                                    \
			fprintf(stdout, "#   %s:%d: %s = %.9g, want %.9g +- %.3g (%s)\n", \
				__FILE__, __LINE__, #got, g_, w_, t_, why);     \
			t_cur_failed = 1;                                        \
		}                                                                \
	} while (0)

#define CHECK_STR(got, want)                                                     \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (!g_ || !w_ || strcmp(g_, w_) != 0) {                         \
			fprintf(stdout, "#   %s:%d: %s = \"%s\", want \"%s\"\n",  \
				__FILE__, __LINE__, #got, g_ ? g_ : "(null)",   \
				w_ ? w_ : "(null)");                             \
			t_cur_failed = 1;                                        \
		}                                                                \
	} while (0)

#define RUN(name)                                                                \
	do {                                                                     \
		t_cur_failed = 0;                                                \
		name();                                                          \
		if (t_cur_failed) {                                              \
			t_failed++;                                              \
			printf("not ok - %s: %s\n", __FILE__, #name);            \
		} else {                                                         \
			t_passed++;                                              \
			printf("ok - %s: %s\n", __FILE__, #name);                \
		}                                                                \
		fflush(stdout);                                                  \
	} while (0)

/* Removes dir and all below it (rm -rf, a test's own scratch directory). */
static inline void t_rm_rf(const char *dir)
{
	char *argv[] = { (char *)"rm", (char *)"-rf", (char *)dir, NULL };
	pid_t pid = fork();

	if (pid == 0) {
		execvp("rm", argv);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static inline int t_done(void)
{
	return t_failed ? 1 : 0;
}

#endif
