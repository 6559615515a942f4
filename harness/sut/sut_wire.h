/*
 * sut_wire: the payloads of the agent protocol's --sut frames
 * (docs/AGENT_PROTOCOL.md, "The --sut role"): what the coordinator sends
 * to start an implementation on the agent's host (SUT_START), and the
 * accounting window and host facts the agent sends back (ACCT, SUT_UP).
 * Shared by both ends (rsut.c, sut_agent.c) so they cannot drift apart.
 *
 * Ownership: a decoded struct owns every string and array in it; its
 * _release frees them and zeroes it. Decoders return 0, or -1 on a
 * malformed payload (nothing to release then).
 */
#ifndef HARNESS_SUT_WIRE_H
#define HARNESS_SUT_WIRE_H

#include "account/account.h"
#include "base/frame.h"
#include "sandbox/jail.h"
#include "sandbox/quota.h"
#include "base/hostfacts.h"
#include "sut/rtstats.h"
#include "spec/spec.h"
#include "sut/sut.h"

/* Since protocol 5: the sandbox a command or implementation runs in on
 * the agent's host, as a local arm's (jail.h, sandbox.h). */
struct sut_wire_sandbox {
	int on;                   /* 0: the agent's own user, no jail */
	char *user;               /* the sandbox user there (NULL: the default) */
	int uid;                  /* the arm's own uid (the coordinator's choice) */
	int ro;                   /* its working directory bound read-only */
	double cpu_max;           /* cores; 0: none */
	char *hide;               /* a directory shown empty, or NULL */
	/* since protocol 8, bind_sut's or bind_build's (sandbox.log_mb,
	 * sandbox.relay_connections) */
	uint64_t log_max_bytes;   /* each log file's cap; 0: none */
	unsigned relay_max;       /* dependency connections relayed at once */
};

/* Since protocol 8: what a jailed command or implementation hit there,
 * beside its cgroup's counts: its working directory's disk quota full
 * (quota.h quota_full's figures), "" when not (or no quota there). */
struct sut_wire_hits {
	struct account_limit_hits kernel;
	char disk_full[QUOTA_FULL_LEN];
};

struct sut_wire_start {
	/* impl: name, repo (the working directory on the agent's host),
	 * start, env, health_url, health_timeout_s, cpus, memory_max_bytes,
	 * pids_max, stats_url, stats_poll_hz, stats_format, signals; nothing
	 * else is sent. "{port}" is left for the agent. */
	struct spec_impl impl;
	char *label;              /* its cgroup label */
	int port;                 /* 0: the agent chooses a free one */
	enum acct_backend backend;
	int sample_ms;
	double stop_grace_s;
	int https, insecure;
	char *ca_file;            /* a path on the agent's host, or NULL */
	struct sut_wire_sandbox sandbox;
};

/* SUT_START; BUILD is the same payload (impl.start holding the command's
 * argv; health, port and https unused) followed by f timeout s. */
void sut_wire_enc_start(struct sbuf *sb, const struct sut_wire_start *w);
int sut_wire_dec_start(struct dec *d, struct sut_wire_start *w);
void sut_wire_start_release(struct sut_wire_start *w);

/*
 * The one spec-to-config mapping across the wire (sut_wire_config.c).
 * The coordinator's end (rsut.c) sends what bind_sut (a start) or
 * bind_build (a command: its argv bc->impl->build, cgroup label) made of
 * the spec: the impl's strings copied with "{host}" replaced by addr
 * (127.0.0.1 when jailed: its own loopback there), its limits (the impl's,
 * the sandbox's where it sets none: bind.c's rule, applied once, there;
 * a jail's log cap and relay cap as bind made them), sb the sandbox there
 * or NULL. The agent's end (sut_agent.c) rebuilds
 * that configuration from the request, adding only what its host alone
 * has: the jail and the sandbox group (sandboxed), the log directory or
 * path, the stop flag (the caller sets them, or they stay zero). The
 * configurations point into w (and im), which must outlive them.
 */
void sut_wire_request_start(struct sut_wire_start *w, const struct sut_config *c,
			    const char *addr, const struct sut_wire_sandbox *sb);
void sut_wire_request_build(struct sut_wire_start *w, const struct sut_build_config *bc,
			    const char *label, const char *addr,
			    const struct sut_wire_sandbox *sb);
void sut_wire_start_config(const struct sut_wire_start *w, const struct jail *jail, int gid,
			   struct sut_config *c);
void sut_wire_build_config(const struct sut_wire_start *w, struct spec_impl *im,
			   const struct jail *jail, int gid, struct sut_build_config *bc);

/* An accounting window (account.h) without its samples, which were
 * streamed before it (ACCT_SAMPLE): their number only, *nsamples when
 * decoded (the decoded window has none). The decoded backend and
 * peak_scope point at static strings, as account_window_end leaves them. */
void sut_wire_enc_window(struct sbuf *sb, const struct account_window *w);
int sut_wire_dec_window(struct dec *d, struct account_window *w, uint64_t *nsamples);

/* ACCT_SAMPLE: one accounting sample as the agent's sampler takes it. */
void sut_wire_enc_sample(struct sbuf *sb, const struct account_sample *s);
int sut_wire_dec_sample(struct dec *d, struct account_sample *s);

/* STATS_POLL: one runtime-stats poll taken on the agent's host (rtstats.h),
 * t its time on the protocol's clock (agent.h agent_wall_ns). The decoded
 * poll is the caller's (rtstats_poll_release); its t_ns and wall unset. */
void sut_wire_enc_poll(struct sbuf *sb, int64_t t, const struct rtstats_poll *p);
int sut_wire_dec_poll(struct dec *d, int64_t *t, struct rtstats_poll *p);

/* FETCH: a commit for the agent to fetch on its host and keep while it
 * lives; user and password: the coordinator's environment credentials
 * (gitfetch.h), NULL when none; disk_max_bytes (since protocol 8): the
 * checkout's disk quota there (sandbox.disk_mb, quota.h), 0 none. */
struct sut_wire_fetch {
	char *name, *repo, *ref, *user, *password;
	uint64_t disk_max_bytes;
};
void sut_wire_enc_fetch(struct sbuf *sb, const struct sut_wire_fetch *f);
int sut_wire_dec_fetch(struct dec *d, struct sut_wire_fetch *f);
void sut_wire_fetch_release(struct sut_wire_fetch *f);

/* Since protocol 7, at the end of SUT_UP and ACCT (since 8 BUILT too):
 * the sandbox limits the implementation or command hit there
 * (account.h): u has pids, u forks refused, u has oom, u OOM kills, then
 * (since 8) s its disk quota full (absent: not). The decoder zeroes h on
 * a short payload. */
void sut_wire_enc_hits(struct sbuf *sb, const struct sut_wire_hits *h);
int sut_wire_dec_hits(struct dec *d, struct sut_wire_hits *h);

void sut_wire_enc_facts(struct sbuf *sb, const struct hostfacts *h);
int sut_wire_dec_facts(struct dec *d, struct hostfacts *h);

#endif
