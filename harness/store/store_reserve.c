/*
 * store_reserve: the room a run keeps for the words that end it, and
 * whether its filesystem is full (see store.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "store/store.h"
#include "base/util.h"

#define RESERVE_BYTES (1 << 20)

int store_disk_full(const struct store *st)
{
	struct sbuf dir = SBUF_INIT;
	const char *slash = strrchr(st->path, '/');
	struct statvfs v;
	int full;

	if (slash)
		sbuf_add(&dir, st->path, (size_t)(slash - st->path) + 1);
	else
		sbuf_adds(&dir, ".");
	full = !statvfs(dir.buf, &v) && (uint64_t)v.f_bavail * v.f_frsize < RESERVE_BYTES;
	sbuf_release(&dir);
	return full;
}

static void reserve_path(const struct store *st, struct sbuf *p)
{
	sbuf_addf(p, "%s.reserve", st->path);
}

void store_reserve(struct store *st)
{
	struct sbuf p = SBUF_INIT;
	int fd, err;

	reserve_path(st, &p);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	err = fd < 0 ? errno : posix_fallocate(fd, 0, RESERVE_BYTES);
	if (fd >= 0)
		close(fd);
	if (err) {
		warning("%s: cannot keep %d KiB in reserve for a full disk: %s", p.buf,
			RESERVE_BYTES >> 10, strerror(err));
		unlink(p.buf);
	}
	sbuf_release(&p);
}

void store_reserve_release(struct store *st)
{
	struct sbuf p = SBUF_INIT;

	reserve_path(st, &p);
	unlink(p.buf);
	sbuf_release(&p);
}
