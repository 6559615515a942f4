/*
 * runlock: the run directory's lock (see runlock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/runlock.h"
#include "base/util.h"

/* a reader's probe holds the lock for a few microseconds: 20 tries, 5 ms apart */
#define TAKE_TRIES 20
#define TAKE_GAP_NS 5000000ull

int runlock_take(const char *dir)
{
	struct sbuf p = SBUF_INIT;
	int fd, i, rc = -1;

	sbuf_addf(&p, "%s/.lock", dir);
	fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	for (i = 0; fd >= 0 && i < TAKE_TRIES; i++) {
		rc = flock(fd, LOCK_EX | LOCK_NB);
		if (!rc || errno != EWOULDBLOCK)
			break;
		sleep_until_ns(now_ns() + TAKE_GAP_NS);
	}
	if (fd < 0 || rc < 0) {
		error("%s: another harness process is using this run", dir);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	sbuf_release(&p);
	return fd; /* kept open (and locked) until the process exits */
}

int runlock_held(const char *dir)
{
	struct sbuf p = SBUF_INIT;
	int fd, ret = -1;

	sbuf_addf(&p, "%s/.lock", dir);
	fd = open(p.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			ret = 0;
		else
			error("%s: %s", p.buf, strerror(errno));
		goto out;
	}
	/* shared, never waiting: it fails only while an owner holds it */
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		flock(fd, LOCK_UN);
		ret = 0;
	} else if (errno == EWOULDBLOCK) {
		ret = 1;
	} else {
		error("%s: flock: %s", p.buf, strerror(errno));
	}
out:
	if (fd >= 0)
		close(fd);
	sbuf_release(&p);
	return ret;
}

const char *runlock_status(const char *dir, const char *stored, char **why)
{
	struct sbuf sb = SBUF_INIT;

	*why = NULL;
	if (!stored || strcmp(stored, "running") || runlock_held(dir))
		return stored;
	sbuf_addf(&sb, "its process is gone: nothing holds %s/.lock; `harness resume` continues it",
		  dir);
	*why = sbuf_detach(&sb, NULL);
	return "abandoned";
}
