/*
 * armops_local: an implementation on this host (armops.h): started by
 * sut.c (own process group and cgroup, pinned, watchdog, a jail when
 * sandboxed), accounted by account.c, its runtime stats polled by
 * rtstats.c from here (from inside its namespace when jailed). Its
 * operations serve armops_ctr.c too (armops_local.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "account/footprint.h"
#include "sut/armops.h"
#include "sut/armops_local.h"
#include "sut/bind.h"
#include "sut/rtstats.h"
#include "sandbox/sandbox.h"
#include "sut/sut.h"
#include "base/util.h"

struct local_inst {
	struct armops_inst base;     /* first: armops.c hands out &base */
	struct sut *sut;
	struct rtstats *rts;         /* its poller, once healthy; or NULL */
	double cpu0;                 /* cpu_begin's reading */
	void *ext;                   /* armops_local_start_with's */
};

static struct local_inst *local(struct armops_inst *i)
{
	return (struct local_inst *)i;
}

static int local_command(const struct armops_site *s, const struct sut_build_config *bc)
{
	(void)s;
	return sut_build(bc);
}

int armops_local_address(const struct armops_site *s, char **addr)
{
	(void)s;
	*addr = NULL;
	return 0;
}

int armops_local_tree_give(const struct armops_site *s, int uid, int gid)
{
	return sandbox_give(s->workdir ? s->workdir : s->impl->repo, uid, gid, 1);
}

int armops_local_prepare(const struct armops_site *s, int uid, int give, int *gid)
{
	return sandbox_prepare(s->spec->sandbox.user, s->workdir ? s->workdir : s->impl->repo,
			       uid, give, gid);
}

void armops_local_place(const struct armops_site *s, struct sbuf *out)
{
	(void)s;
	(void)out;
}

void armops_local_bind(const struct armops_site *s, const struct bind_sandbox *sb,
		       struct sut_config *cfg)
{
	bind_sut(cfg, s->spec, s->impl, s->workdir, s->log_dir, s->label, sb);
	cfg->stop = s->stop;
	if (s->port)
		cfg->port = s->port;
	if (s->plain) {               /* a dependency */
		cfg->https = 0;
		cfg->ca_file = NULL;
		cfg->insecure = 0;
	}
}

struct armops_inst *armops_local_start_with(const struct sut_config *cfg, void *ext)
{
	struct local_inst *l;
	struct sut *sut = sut_start(cfg);

	if (!sut)
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->sut = sut;
	l->ext = ext;
	return &l->base;
}

static struct armops_inst *local_start(const struct armops_site *s, const struct bind_sandbox *sb,
				       int *unhealthy, struct armops_hits *hits)
{
	struct sut_config cfg;

	(void)unhealthy;             /* its health is armops_health's */
	(void)hits;
	armops_local_bind(s, sb, &cfg);
	return armops_local_start_with(&cfg, NULL);
}

struct sut *armops_local_sut(struct armops_inst *i)
{
	return local(i)->sut;
}

void *armops_local_ext(struct armops_inst *i)
{
	return local(i)->ext;
}

/* How long a healthy implementation has to accept on its assigned port
 * (sut_wait_listening): at once when its health URL uses {port}; a health
 * endpoint on another port may come up before the port under load. */
#define LISTEN_TIMEOUT_S 5.0

int armops_local_health(struct armops_inst *i, double timeout_s)
{
	struct local_inst *l = local(i);
	const struct armops_site *s = i->site;

	/* an implementation must also accept on its assigned port, where
	 * the load goes (a dependency's port is its own business) */
	if (sut_wait_healthy(l->sut, timeout_s) ||
	    (!s->plain && sut_wait_listening(l->sut, LISTEN_TIMEOUT_S)))
		return -1;
	if (!s->plain && sut_stats_url(l->sut) && !l->rts)
		l->rts = rtstats_start_in(sut_netns(l->sut), sut_stats_url(l->sut),
					  s->impl->stats_poll_hz, s->impl->signals,
					  s->impl->nsignals, s->impl->stats_format,
					  s->spec->workload.tls.cacert,
					  s->spec->workload.tls.insecure);
	return 0;
}

void armops_local_stop(struct armops_inst *i)
{
	struct local_inst *l = local(i);

	if (l->rts)
		rtstats_free(l->rts);
	sut_stop(l->sut);
	sut_free(l->sut);
	free(l);
}

int armops_local_exited(struct armops_inst *i)
{
	return sut_exited(local(i)->sut);
}

int armops_local_lost(struct armops_inst *i, const char **why)
{
	(void)i;
	(void)why;
	return 0;
}

const char *armops_local_exit_desc(struct armops_inst *i, char *buf, size_t n)
{
	return sut_exit_desc(local(i)->sut, buf, n);
}

const char *armops_local_stderr_hint(struct armops_inst *i)
{
	return sut_stderr_path(local(i)->sut);
}

const char *armops_local_url(struct armops_inst *i)
{
	return sut_url(local(i)->sut);
}

int armops_local_port(struct armops_inst *i)
{
	return sut_port(local(i)->sut);
}

int armops_local_netns(struct armops_inst *i)
{
	return sut_netns(local(i)->sut);
}

const char *armops_local_cpus(struct armops_inst *i)
{
	return sut_cpus(local(i)->sut);
}

const char *armops_local_cpus_method(struct armops_inst *i)
{
	return sut_cpus_method(local(i)->sut);
}

const char *armops_local_argv_text(struct armops_inst *i)
{
	return sut_argv_text(local(i)->sut);
}

static void local_describe(struct armops_inst *i, const char *name, unsigned starts,
			   struct sbuf *ev)
{
	struct sut *s = local(i)->sut;

	sbuf_addf(ev, "%s started on %s (start %u); cpus %s (%s)", name, sut_url(s), starts,
		  sut_cpus(s) ? sut_cpus(s) : "?", sut_cpus_method(s) ? sut_cpus_method(s) : "none");
}

static const char *local_via(struct armops_inst *i)
{
	(void)i;
	return "";
}

void armops_local_facts(struct armops_inst *i,
			void (*put)(void *ctx, const char *scope, const char *key, const char *value),
			void *ctx)
{
	const char *w = account_cpu_weight(sut_account(local(i)->sut));

	/* this host's facts are the run's own; the arm's CPU weight is its */
	if (w)
		put(ctx, "arm", "cpu_weight", w);
}

struct rtstats *armops_local_stats(struct armops_inst *i)
{
	return local(i)->rts;
}

/* its process group (the sut is its leader) from /proc, exec to healthy
 * from sut */
void armops_local_footprint(struct armops_inst *i, struct armops_footprint *out)
{
	struct local_inst *l = local(i);

	out->startup_ms = sut_startup_ms(l->sut);
	footprint_group(sut_tree_pgid(l->sut), &out->rss_kb, &out->pss_kb);
}

void armops_local_limits(struct armops_inst *i, struct armops_hits *h)
{
	struct sut *s = local(i)->sut;

	if (sut_account(s))
		account_limit_hits(sut_account(s), &h->kernel);
	h->relay_refused = sut_relay_refused(s);
}

int armops_local_acct_begin(struct armops_inst *i)
{
	struct account *a = sut_account(local(i)->sut);

	return a ? account_window_begin(a) : -1;
}

int armops_local_acct_end(struct armops_inst *i, struct account_window *out)
{
	struct account *a = sut_account(local(i)->sut);

	return a ? account_window_end(a, out) : -1;
}

int armops_local_freeze(struct armops_inst *i, int on, const char **freezer)
{
	struct account *a = sut_account(local(i)->sut);

	*freezer = NULL;
	if (!a)
		return -ENOTSUP;
	*freezer = account_freezer(a);
	return account_freeze(a, on);
}

int armops_local_cpu_begin(struct armops_inst *i)
{
	struct account *a = sut_account(local(i)->sut);

	return a ? account_cpu_now(a, &local(i)->cpu0) : -1;
}

int armops_local_cpu_end(struct armops_inst *i, double *cpu_s)
{
	struct account *a = sut_account(local(i)->sut);
	double cpu;

	if (!a || account_cpu_now(a, &cpu))
		return -1;
	*cpu_s = cpu - local(i)->cpu0 > 0 ? cpu - local(i)->cpu0 : 0;
	return 0;
}

const struct armops armops_local = {
	.name = "local",
	.cpu_beside_window = 1,
	.command = local_command,
	ARMOPS_LOCAL_OPS,
	.start = local_start,
	.stop = armops_local_stop,
	.describe = local_describe,
	.via = local_via,
	.acct_end = armops_local_acct_end,
};
