/*
 * bind: the spec, bound to the mechanisms. One place maps a spec's
 * workload to a load configuration, and an implementation of the spec to
 * the configuration that builds and starts it; the runner (run, resume,
 * rerun), `harness load` and `harness probe` all go through here, so the
 * three cannot drift apart.
 *
 * The functions fill a caller's struct (zeroed first) and never fail;
 * every pointer they store points into the spec, the impl or the caller's
 * strings, which must outlive the configuration. Callers set what is
 * theirs afterwards (load: on_second, ctx, stop; sut: backend override).
 *
 * {port} substitution is the spec's (spec_subst_port, used by sut);
 * {dep.NAME.port} and {dep.NAME.host} substitution is here (bind_deps).
 */
#ifndef HARNESS_BIND_H
#define HARNESS_BIND_H

#include <stdint.h>

#include "load/load.h"
#include "spec/spec.h"
#include "sut/sut.h"

/*
 * The load configuration of spec's workload against url at rate for
 * duration_s, with the given arrival seed. A templated workload's pool is
 * drawn from the spec's seed (every load replays the same stream), of
 * workload.pool entries (0: the engine's default); a caller that keeps
 * one pool for many loads sets cfg->pool. spec NULL: no requests (the
 * caller sets them) and the spec language's workload defaults, which
 * test_bind checks against a spec that sets none.
 */
void bind_load(struct load_config *cfg, const struct spec *spec, const char *url,
	       double rate, double duration_s, uint64_t seed);

/* The arrival seed of one phase of one window: every window (and its
 * warm-up, stream 1, and measured load, stream 2) gets its own
 * reproducible stream derived from the spec's seed. */
uint64_t bind_window_seed(const struct spec *spec, int64_t window_id, uint64_t stream);

/* Who runs an implementation's code: NULL (trusted: the harness's own
 * user, the impl's own limits), or the sandbox user (untrusted code of a
 * rerun: the spec's sandbox limits where the impl sets none). */
struct bind_sandbox {
	int uid, gid;
	struct jail jail;       /* bwrap's view (jail.h) */
	const int *forward_ports;       /* relayed into its namespace (sut.h) */
	size_t nforward;
	/* its working directory is its disk quota's mount point (quota.h: a
	 * local rerun's checkout), detached by its commands' watchdogs if
	 * the harness dies (sut.h quota_dir); NULL: none */
	const char *quota_dir;
};

/*
 * For `probe` and `load` (no run): the sandbox of impl when its spec says
 * `sandbox: always`, as a run gives it: bwrap installed, the sandbox user
 * (spec sandbox.user, created when missing: needs root), a fresh uid of
 * its own, its repo read-only (and reachable by that uid), hide (the runs
 * directory, resolved into hide_abs, PATH_MAX bytes) shown empty inside.
 * Returns sb, filled, or NULL: without sandbox: always (*err 0), or after
 * one error() line when it cannot be prepared (*err -1). bind_sandbox.c.
 */
const struct bind_sandbox *bind_sandbox_always(const struct spec *spec,
					       const struct spec_impl *impl, const char *hide,
					       struct bind_sandbox *sb, char *hide_abs, int *err);

/*
 * Start configuration of impl in workdir (NULL: impl->repo), logging
 * into log_dir, accounted under the cgroup label `label`.
 */
void bind_sut(struct sut_config *cfg, const struct spec *spec, const struct spec_impl *impl,
	      const char *workdir, const char *log_dir, const char *label,
	      const struct bind_sandbox *sandbox);

/*
 * Build configuration of impl in workdir (NULL: impl->repo), its output
 * appended to log_path. Untrusted builds get the spec's sandbox timeout
 * and limits; trusted builds none (they are interrupted by a signal like
 * everything else).
 */
void bind_build(struct sut_build_config *cfg, const struct spec *spec,
		const struct spec_impl *impl, const char *workdir, const char *log_path,
		const struct bind_sandbox *sandbox);

/* ------------------------------------------------------ dependencies */

/*
 * tmpl[0..len) with every {dep.NAME.port} replaced by ports[i] of spec's
 * dependency NAME (index i) and every {dep.NAME.host} by 127.0.0.1 (they
 * listen on loopback), or by its address when it runs on another host
 * (spec_dep.address). A reference naming no dependency is left as it is
 * (the validator refused it). Returns a malloc'd, NUL-terminated string;
 * *outlen (when non-NULL) gets its length.
 */
char *bind_subst_deps(const char *tmpl, size_t len, const struct spec *spec, const int *ports,
		      size_t *outlen);

/*
 * Bind the spec to its dependencies' ports (ports[spec->ndeps], chosen
 * before anything starts and kept across restarts): rewrites in place
 * every string that may refer to them: implementations' start, env,
 * health and stats URLs; dependencies' start, env, health, version and
 * setup; requests' path, header values and body. Called once, before the
 * arms copy the implementations. Each implementation's dep_forward (spec.h,
 * allocated here, freed by spec_free) gets the ports of the dependencies
 * it is told about: those its start, reset, env, health or stats refer to,
 * and those any request names, on this host (one with dependencies[].host
 * is not on its loopback); a sandbox relays those and no other.
 */
void bind_deps(struct spec *spec, const int *ports);

#endif
