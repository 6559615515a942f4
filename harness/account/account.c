/*
 * account: the module's entry: detection of the backends and the factory
 * that creates or opens an accounting context with the right backend.
 * The shared base the backends build on is account_base.c, beneath them.
 */
#include <stdlib.h>
#include <string.h>

#include "account/account.h"
#include "account/account_backend.h"
#include "base/util.h"

int account_available(enum acct_backend b)
{
	switch (b) {
	case ACCT_AUTO: return 1;
	case ACCT_CGROUP2: return acct_cgroup2_usable();
	case ACCT_CGROUP1: return acct_cgroup1_usable();
	case ACCT_PROCFS: return 1;
	}
	return 0;
}

enum acct_backend account_detect(void)
{
	if (acct_cgroup2_usable())
		return ACCT_CGROUP2;
	if (acct_cgroup1_usable())
		return ACCT_CGROUP1;
	return ACCT_PROCFS;
}

struct account *account_create(enum acct_backend backend, const char *label,
			       const struct account_limits *lim, int sample_ms)
{
	static const struct account_limits none;

	struct account *a;

	if (!lim)
		lim = &none;
	if (backend == ACCT_AUTO) {
		backend = account_detect();
		if (backend == ACCT_PROCFS)
			return account_create(ACCT_PROCFS, label, lim, sample_ms);
		a = account_create(backend, label, lim, sample_ms);
		if (a)
			return a;
		/* e.g. a cgroup namespace whose root holds processes: controllers
		 * listed but not delegable. Limits cannot be dropped silently. */
		if (lim->memory_max_bytes || lim->pids_max || lim->cpu_max > 0) {
			error("accounting backend auto: %s is unusable here and procfs cannot enforce the memory/pids/cpu limits of %s",
			      account_backend_name(backend), label);
			return NULL;
		}
		warning("accounting backend auto: %s is unusable here, using procfs for %s",
			account_backend_name(backend), label);
		return acct_procfs_create(sample_ms);
	}
	switch (backend) {
	case ACCT_CGROUP2:
		return acct_cgroup2_create(label, lim, sample_ms);
	case ACCT_CGROUP1:
		return acct_cgroup1_create(label, lim, sample_ms);
	default:
		if (lim->memory_max_bytes || lim->pids_max || lim->cpu_max > 0)
			warning("accounting backend procfs cannot enforce memory, pids or cpu limits for %s",
				label);
		return acct_procfs_create(sample_ms);
	}
}

struct account *account_open_dirs(enum acct_backend backend, const char *const *dirs,
				  size_t ndirs, int sample_ms)
{
	switch (backend) {
	case ACCT_CGROUP2:
		if (ndirs < 1)
			break;
		return acct_cgroup2_open(dirs[0], sample_ms);
	case ACCT_CGROUP1:
		if (ndirs < 2)
			break;
		return acct_cgroup1_open(dirs[0], dirs[1], ndirs > 2 ? dirs[2] : NULL, sample_ms);
	case ACCT_PROCFS:
		return acct_procfs_create(sample_ms);
	default:
		break;
	}
	error("account: backend %s needs its directories", account_backend_name(backend));
	return NULL;
}

int account_reap_leftovers(void)
{
	return acct_cgroup2_reap() + acct_cgroup1_reap();
}
