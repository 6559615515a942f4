/* hosttune: tuning items from the host facts (hosttune.h). */
#include "base/hosttune.h"

#include <string.h>

#include "base/hostfacts.h"
#include "base/util.h"

const char *const hosttune_names[] = {
	"governor_performance", "boost_off", "smt_off", "generator_rt", NULL
};

static const struct {
	const char *fact, *want, *how;
} items[HOSTTUNE_ITEMS] = {
	{ "governor", "performance", "cpupower frequency-set -g performance" },
	{ "boost", "off", "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo, or 0 > .../cpufreq/boost" },
	{ "smt", "off", "echo off > /sys/devices/system/cpu/smt/control" },
	{ "generator_sched", "fifo", "run the harness as root, with CAP_SYS_NICE, or with RLIMIT_RTPRIO >= 1: ulimit -r 1" },
};

int hosttune_known(const struct hostfacts *f, int i)
{
	const char *v = hostfacts_get(f, items[i].fact);

	return v && strcmp(v, "unknown");
}

int hosttune_ok(const struct hostfacts *f, int i)
{
	const char *v = hostfacts_get(f, items[i].fact);

	return v && !strcmp(v, items[i].want);
}

void hosttune_describe(const struct hostfacts *f, int i, struct sbuf *out)
{
	const char *v = hostfacts_get(f, items[i].fact);

	if (!v || !strcmp(v, "unknown"))
		sbuf_addf(out, "%s is unknown (cannot be read on this host), want %s", items[i].fact,
			  items[i].want);
	else
		sbuf_addf(out, "%s is %s, want %s (%s)", items[i].fact, v, items[i].want,
			  items[i].how);
}

int hosttune_refuse(unsigned require, const char *where)
{
	struct hostfacts f = HOSTFACTS_INIT;
	struct sbuf why = SBUF_INIT;
	int n;

	if (!require)
		return 0;
	hostfacts_read(&f);
	n = hosttune_unmet(&f, require, &why);
	if (n)
		error("%s: this host is not tuned as %s", where, why.buf);
	sbuf_release(&why);
	hostfacts_release(&f);
	return n > 0;
}

int hosttune_unmet(const struct hostfacts *f, unsigned require, struct sbuf *out)
{
	int i, n = 0;

	for (i = 0; i < HOSTTUNE_ITEMS; i++) {
		if (!(require & (1u << i)) || hosttune_ok(f, i))
			continue;
		sbuf_addf(out, "%s%s: ", n ? "; " : "host.require: ", hosttune_names[i]);
		hosttune_describe(f, i, out);
		n++;
	}
	return n;
}
