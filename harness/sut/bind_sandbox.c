/*
 * bind_sandbox: the sandbox of a `sandbox: always` implementation started
 * outside a run, by `harness probe` and `harness load SPEC --impl`, as a
 * run gives it (runner.c ensure_sandbox, runner_arm.c): bwrap, the sandbox
 * user, a uid of its own, its repo read-only, the runs directory shown
 * empty. The caller reaches it through sut_netns (load and stats).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sut/bind.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

const struct bind_sandbox *bind_sandbox_always(const struct spec *spec,
					       const struct spec_impl *impl, const char *hide,
					       struct bind_sandbox *sb, char *hide_abs, int *err)
{
	int uid;

	*err = 0;
	if (impl->sandbox != SANDBOX_ALWAYS)
		return NULL;
	memset(sb, 0, sizeof(*sb));
	if (!realpath(hide, hide_abs)) {
		*err = error("%s: cannot resolve %s: %s", impl->name, hide, strerror(errno));
		return NULL;
	}
	if (sandbox_uids(1, &uid) || sandbox_prepare(spec->sandbox.user, impl->repo, uid, 0, &sb->gid)) {
		*err = -1;
		return NULL;
	}
	sb->uid = uid;
	sb->jail.hide = hide_abs;
	sb->jail.frozen = 1;         /* a trusted repo: bound read-only, never given away */
	sb->forward_ports = impl->dep_forward;   /* none unless bound to a run's dependencies */
	sb->nforward = impl->ndep_forward;
	return sb;
}
