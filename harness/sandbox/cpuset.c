/* cpuset: cpu lists, pinning and read-back (see cpuset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/cpuset.h"
#include "base/util.h"

int cpuset_parse(const char *list, cpu_set_t *set, const char *what)
{
	cpu_set_t allowed;
	const char *p = list;
	char *end;
	long lo, hi, c;

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	if (!list || !*list)
		return error("%s: empty cpu list", what);
	while (*p) {
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return error("%s: bad cpu list '%s' (want e.g. \"0-2,4\")", what, list);
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return error("%s: bad cpu range in '%s'", what, list);
			p = end;
		}
		if (hi >= CPU_SETSIZE)
			return error("%s: cpu %ld out of range in '%s'", what, hi, list);
		for (c = lo; c <= hi; c++) {
			if (!CPU_ISSET(c, &allowed)) {
				struct sbuf sb = SBUF_INIT;
				cpuset_format(&allowed, &sb);
				error("%s: cpu %ld is not available to the harness (allowed: %s)",
				      what, c, sb.buf);
				sbuf_release(&sb);
				return -1;
			}
			CPU_SET(c, set);
		}
		if (*p == ',')
			p++;
		else if (*p)
			return error("%s: bad cpu list '%s' (want e.g. \"0-2,4\")", what, list);
	}
	return 0;
}

void cpuset_format(const cpu_set_t *set, struct sbuf *sb)
{
	int c, start = -1, first = 1;

	for (c = 0; c <= CPU_SETSIZE; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, set);
		if (in && start < 0)
			start = c;
		if (!in && start >= 0) {
			if (!first)
				sbuf_adds(sb, ",");
			if (c - 1 > start)
				sbuf_addf(sb, "%d-%d", start, c - 1);
			else
				sbuf_addf(sb, "%d", start);
			first = 0;
			start = -1;
		}
	}
}

int cpuset_pin_self(const char *list)
{
	cpu_set_t set;

	if (cpuset_parse(list, &set, "generator cpus"))
		return -1;
	if (sched_setaffinity(0, sizeof(set), &set))
		return error("cannot pin to cpus %s: %s", list, strerror(errno));
	return 0;
}

char *cpuset_readback(pid_t pid)
{
	cpu_set_t set;
	struct sbuf sb = SBUF_INIT;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return NULL;
	cpuset_format(&set, &sb);
	return sbuf_detach(&sb, NULL);
}
