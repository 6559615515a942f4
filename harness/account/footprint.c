/*
 * footprint: process memory from /proc and artifact sizes (footprint.h).
 */
#define _XOPEN_SOURCE 700
#include "account/footprint.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int footprint_pid(pid_t pid, int64_t *rss_kb, int64_t *pss_kb)
{
	char path[64], line[256];
	long long v;
	int got = 0;
	FILE *f;

	*rss_kb = *pss_kb = -1;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Rss: %lld kB", &v) == 1) {
			*rss_kb = v;
			got |= 1;
		} else if (sscanf(line, "Pss: %lld kB", &v) == 1) {
			*pss_kb = v;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* The process group of pid (field 5 of /proc/PID/stat), or -1. */
static pid_t pgrp_of(const char *pid)
{
	char path[300], buf[512], *p;
	int pgrp = -1;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the command may hold spaces and parentheses: after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %d", &pgrp) != 1)
		return -1;
	return pgrp;
}

int footprint_group(pid_t pgid, int64_t *rss_kb, int64_t *pss_kb)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int64_t r, p;
	int n = 0;

	*rss_kb = *pss_kb = -1;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || pgrp_of(e->d_name) != pgid)
			continue;
		if (footprint_pid((pid_t)atoi(e->d_name), &r, &p))
			continue;
		*rss_kb = (n ? *rss_kb : 0) + r;
		*pss_kb = (n ? *pss_kb : 0) + p;
		n++;
	}
	closedir(d);
	return n;
}

static int64_t walk_total;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode))
		walk_total += (int64_t)st->st_size;
	return 0;
}

int64_t footprint_artifact_bytes(const char *path, char *why, size_t whylen)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (why)
			snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return (int64_t)st.st_size;
	/* nftw keeps its state in a global: one walk at a time (the runner's
	 * thread only). */
	walk_total = 0;
	if (nftw(path, walk_one, 32, FTW_PHYS)) {
		if (why)
			snprintf(why, whylen, "%s: cannot walk the directory", path);
		return -1;
	}
	return walk_total;
}
