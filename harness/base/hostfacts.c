/*
 * hostfacts: read and compare host facts (see hostfacts.h for the list).
 */
#include "base/hostfacts.h"
#include "base/util.h"
#include "base/rtsched.h"
#include "base/testhook.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

void hostfacts_set(struct hostfacts *h, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (!strcmp(h->keys[i], key)) {
			free(h->values[i]);
			h->values[i] = xstrdup(value ? value : "");
			return;
		}
	}
	h->keys = xrealloc(h->keys, (h->n + 1) * sizeof(*h->keys));
	h->values = xrealloc(h->values, (h->n + 1) * sizeof(*h->values));
	h->keys[h->n] = xstrdup(key);
	h->values[h->n] = xstrdup(value ? value : "");
	h->n++;
}

const char *hostfacts_get(const struct hostfacts *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->keys[i], key))
			return h->values[i];
	return NULL;
}

void hostfacts_release(struct hostfacts *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->keys[i]);
		free(h->values[i]);
	}
	free(h->keys);
	free(h->values);
	h->n = 0;
	h->keys = NULL;
	h->values = NULL;
}

/* The first line of a small file, trimmed; 0, or -1 when unreadable. */
static int read_line(const char *path, struct sbuf *out)
{
	sbuf_reset(out);
	if (access(path, R_OK))
		return -1;
	{
		struct sbuf sb = SBUF_INIT;
		char *nl;
		/* read_file() prints on failure; access() above keeps the
		 * common "not there" case silent. */
		if (read_file(path, &sb, 1 << 20)) {
			sbuf_release(&sb);
			return -1;
		}
		nl = strchr(sb.buf, '\n');
		if (nl)
			*nl = '\0';
		sbuf_adds(out, sb.buf);
		sbuf_release(&sb);
	}
	while (out->len && isspace((unsigned char)out->buf[out->len - 1]))
		out->buf[--out->len] = '\0';
	return 0;
}

/* The value of "key<spaces>: value" in a /proc file. */
static int proc_field(const char *path, const char *key, struct sbuf *out)
{
	struct sbuf sb = SBUF_INIT;
	size_t klen = strlen(key);
	char *line, *save = NULL;
	int ret = -1;

	sbuf_reset(out);
	if (access(path, R_OK) || read_file(path, &sb, 16 << 20))
		goto out;
	for (line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p;
		if (strncmp(line, key, klen))
			continue;
		p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		sbuf_adds(out, p);
		ret = 0;
		break;
	}
out:
	sbuf_release(&sb);
	return ret;
}

static void fact_file(struct hostfacts *h, const char *key, const char *path)
{
	struct sbuf v = SBUF_INIT;

	hostfacts_set(h, key, read_line(path, &v) || !v.len ? "unknown" : v.buf);
	sbuf_release(&v);
}

static void fact_boost(struct hostfacts *h)
{
	struct sbuf v = SBUF_INIT;
	const char *val = "unknown";

	if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", &v) == 0)
		val = !strcmp(v.buf, "1") ? "off" : "on";
	else if (read_line("/sys/devices/system/cpu/cpufreq/boost", &v) == 0)
		val = !strcmp(v.buf, "1") ? "on" : "off";
	hostfacts_set(h, "boost", val);
	sbuf_release(&v);
}

/* "always [madvise] never" -> "madvise". */
static void fact_thp(struct hostfacts *h)
{
	struct sbuf v = SBUF_INIT;
	char *a, *b;

	if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", &v) == 0 &&
	    (a = strchr(v.buf, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		hostfacts_set(h, "thp", a + 1);
	} else {
		hostfacts_set(h, "thp", "unknown");
	}
	sbuf_release(&v);
}

static void fact_smt(struct hostfacts *h)
{
	struct sbuf v = SBUF_INIT;
	const char *val = "unknown";

	if (read_line("/sys/devices/system/cpu/smt/active", &v) == 0)
		val = !strcmp(v.buf, "1") ? "on" : "off";
	hostfacts_set(h, "smt", val);
	sbuf_release(&v);
}

static void fact_cgroup(struct hostfacts *h)
{
	struct statfs fs;
	const char *mode = "v1";

	if (statfs("/sys/fs/cgroup", &fs) == 0 && (unsigned long)fs.f_type == CGROUP2_SUPER_MAGIC)
		mode = "v2";
	else if (statfs("/sys/fs/cgroup/unified", &fs) == 0 &&
		 (unsigned long)fs.f_type == CGROUP2_SUPER_MAGIC)
		mode = "hybrid";
	hostfacts_set(h, "cgroup_mode", mode);
}

/* HARNESS_TEST_HOST_FACTS (testhook.h): KEY=VALUE pairs, comma-separated. */
static void test_overrides(struct hostfacts *h)
{
	const char *p = testhooks()->host_facts;
	char key[64], val[128];

	while (p && *p) {
		size_t n = strcspn(p, ","), k = strcspn(p, "=");

		if (k < n && k < sizeof(key) && n - k - 1 < sizeof(val)) {
			memcpy(key, p, k);
			key[k] = 0;
			memcpy(val, p + k + 1, n - k - 1);
			val[n - k - 1] = 0;
			hostfacts_set(h, key, val);
		}
		p += n + (p[n] == ',');
	}
}

int hostfacts_read(struct hostfacts *h)
{
	struct utsname u;
	struct sbuf v = SBUF_INIT;
	char num[64];
	long n;

	hostfacts_release(h);
	if (uname(&u) == 0) {
		sbuf_addf(&v, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		hostfacts_set(h, "kernel", v.buf);
		hostfacts_set(h, "hostname", u.nodename);
	} else {
		hostfacts_set(h, "kernel", "unknown");
		hostfacts_set(h, "hostname", "unknown");
	}
	if (proc_field("/proc/cpuinfo", "model name", &v) &&
	    proc_field("/proc/cpuinfo", "Processor", &v))
		sbuf_reset(&v);
	hostfacts_set(h, "cpu_model", v.len ? v.buf : "unknown");
	n = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(num, sizeof(num), "%ld", n);
	hostfacts_set(h, "cpus_online", n > 0 ? num : "unknown");
	fact_file(h, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	fact_boost(h);
	fact_thp(h);
	fact_smt(h);
	if (proc_field("/proc/meminfo", "MemTotal", &v) == 0) {
		char *sp = strchr(v.buf, ' ');
		if (sp)
			*sp = '\0';  /* "16314660 kB" -> "16314660" */
		hostfacts_set(h, "mem_total_kb", v.buf);
	} else {
		hostfacts_set(h, "mem_total_kb", "unknown");
	}
	if (read_line("/proc/loadavg", &v) == 0) {
		char *sp = strchr(v.buf, ' ');
		if (sp)
			*sp = '\0';
		hostfacts_set(h, "loadavg_1m", v.buf);
	} else {
		hostfacts_set(h, "loadavg_1m", "unknown");
	}
	fact_cgroup(h);
	hostfacts_set(h, "generator_sched", rtsched_fact(rtsched_probe()));
	sbuf_release(&v);
	test_overrides(h);
	return 0;
}

static int loadavg_same(const char *a, const char *b)
{
	double x, y;

	if (parse_double(a, &x) || parse_double(b, &y))
		return !strcmp(a, b);
	return x - y <= HOSTFACTS_LOADAVG_TOL && y - x <= HOSTFACTS_LOADAVG_TOL;
}

static void note(struct sbuf *what, int *n, const char *key, const char *a, const char *b)
{
	(*n)++;
	if (!what)
		return;
	if (*n > 1)
		sbuf_adds(what, "; ");
	sbuf_addf(what, "%s: %s -> %s", key, a ? a : "(none)", b ? b : "(none)");
}

int hostfacts_drift(const struct hostfacts *base, const struct hostfacts *now,
		    struct sbuf *what)
{
	int n = 0;
	size_t i;

	for (i = 0; i < base->n; i++) {
		const char *k = base->keys[i], *a = base->values[i];
		const char *b = hostfacts_get(now, k);

		if (!b)
			note(what, &n, k, a, NULL);
		else if (!strcmp(k, "loadavg_1m") ? !loadavg_same(a, b) : strcmp(a, b) != 0)
			note(what, &n, k, a, b);
	}
	for (i = 0; i < now->n; i++)
		if (!hostfacts_get(base, now->keys[i]))
			note(what, &n, now->keys[i], NULL, now->values[i]);
	return n;
}
