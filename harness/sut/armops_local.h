/*
 * armops_local.h: the local backend's operations (armops_local.c), for a
 * backend whose instances are processes on this host started another way
 * (armops_ctr.c: a container's attach process, through a struct
 * sut_starter). Such a backend starts with armops_local_bind and
 * armops_local_start_with, and fills its table with these for every op
 * it does not do differently (each as documented on its op in armops.h).
 * Internal to the sut module.
 */
#ifndef HARNESS_ARMOPS_LOCAL_H
#define HARNESS_ARMOPS_LOCAL_H

#include "sut/armops.h"
#include "sut/sut.h"

/* The sut configuration of s's implementation started in sandbox sb (NULL:
 * trusted): bind_sut's, with the site's port, stop flag, and plain
 * (http) for a dependency. */
void armops_local_bind(const struct armops_site *s, const struct bind_sandbox *sb,
		       struct sut_config *cfg);
/* sut_start(cfg) as a local instance carrying ext (the caller's, never
 * freed here); NULL after sut_start's error() line. */
struct armops_inst *armops_local_start_with(const struct sut_config *cfg, void *ext);
struct sut *armops_local_sut(struct armops_inst *i);
void *armops_local_ext(struct armops_inst *i);
/* Stop and free the instance (not its ext). */
void armops_local_stop(struct armops_inst *i);

int armops_local_address(const struct armops_site *s, char **addr);
int armops_local_tree_give(const struct armops_site *s, int uid, int gid);
int armops_local_prepare(const struct armops_site *s, int uid, int give, int *gid);
void armops_local_place(const struct armops_site *s, struct sbuf *out);
int armops_local_health(struct armops_inst *i, double timeout_s);
int armops_local_exited(struct armops_inst *i);
int armops_local_lost(struct armops_inst *i, const char **why);
const char *armops_local_exit_desc(struct armops_inst *i, char *buf, size_t n);
const char *armops_local_stderr_hint(struct armops_inst *i);
const char *armops_local_url(struct armops_inst *i);
int armops_local_port(struct armops_inst *i);
int armops_local_netns(struct armops_inst *i);
const char *armops_local_cpus(struct armops_inst *i);
const char *armops_local_cpus_method(struct armops_inst *i);
const char *armops_local_argv_text(struct armops_inst *i);
void armops_local_facts(struct armops_inst *i,
			void (*put)(void *ctx, const char *scope, const char *key, const char *value),
			void *ctx);
struct rtstats *armops_local_stats(struct armops_inst *i);
void armops_local_limits(struct armops_inst *i, struct armops_hits *h);
void armops_local_footprint(struct armops_inst *i, struct armops_footprint *out);
int armops_local_acct_begin(struct armops_inst *i);
int armops_local_acct_end(struct armops_inst *i, struct account_window *out);
int armops_local_freeze(struct armops_inst *i, int on, const char **freezer);
int armops_local_cpu_begin(struct armops_inst *i);
int armops_local_cpu_end(struct armops_inst *i, double *cpu_s);
/* The table entries of every op such a backend does as the local one:
 * `ARMOPS_LOCAL_OPS,` in its struct armops, beside its own name, flags,
 * command, start, stop, describe, via and acct_end. */
#define ARMOPS_LOCAL_OPS \
	.address = armops_local_address, \
	.tree_give = armops_local_tree_give, \
	.prepare = armops_local_prepare, \
	.place = armops_local_place, \
	.health = armops_local_health, \
	.exited = armops_local_exited, \
	.lost = armops_local_lost, \
	.exit_desc = armops_local_exit_desc, \
	.stderr_hint = armops_local_stderr_hint, \
	.url = armops_local_url, \
	.port = armops_local_port, \
	.netns = armops_local_netns, \
	.cpus = armops_local_cpus, \
	.cpus_method = armops_local_cpus_method, \
	.argv_text = armops_local_argv_text, \
	.facts = armops_local_facts, \
	.stats = armops_local_stats, \
	.limits = armops_local_limits, \
	.footprint = armops_local_footprint, \
	.acct_begin = armops_local_acct_begin, \
	.freeze = armops_local_freeze, \
	.cpu_begin = armops_local_cpu_begin, \
	.cpu_end = armops_local_cpu_end

#endif
