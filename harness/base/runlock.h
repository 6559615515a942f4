/*
 * runlock: the lock a live run holds on its directory, and what readers
 * (`status`, `runs`) learn from it.
 *
 * `run`, `rerun` and `resume` take DIR/.lock (flock, exclusive) before
 * they write the run's database and hold it until the process exits; the
 * kernel drops it when the process dies, however it dies (kill -9, a
 * reboot), so "nobody holds the lock" is the evidence that a run stored
 * as `running` has no process any more: it reads `abandoned`. A pid
 * would not do: pids are reused.
 *
 * Threads: none of its own. Ownership: strings returned are static or
 * the caller's, as stated.
 */
#ifndef HARNESS_RUNLOCK_H
#define HARNESS_RUNLOCK_H

/*
 * Take DIR's lock for the life of the process: the descriptor (close-on-
 * exec; closing it releases the lock), or -1 after one error() when
 * another process holds it. A reader's probe (runlock_held) holds the
 * lock shared for microseconds: a take retries for 100 ms first.
 */
int runlock_take(const char *dir);

/*
 * 1 when a live process holds DIR's lock, 0 when none does (or DIR has no
 * lock file: no process ever ran there or it was copied), -1 after one
 * error() when it cannot be told (the file cannot be opened).
 */
int runlock_held(const char *dir);

/*
 * The status to show for the run in DIR stored as `stored`: "abandoned"
 * when it is stored "running" and nobody holds DIR's lock, with *why
 * (malloc'd, the caller's) saying so; else stored and *why NULL.
 */
const char *runlock_status(const char *dir, const char *stored, char **why);

#endif
