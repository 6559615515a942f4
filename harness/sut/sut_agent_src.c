/*
 * sut_agent_src: a rerun's checkout on the agent's host (see
 * sut_agent_src.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/gitfetch.h"
#include "sandbox/jail.h"
#include "sandbox/quota.h"
#include "sandbox/sandbox.h"
#include "sut/sut_agent_src.h"
#include "sut/sut_wire.h"
#include "base/util.h"

/* FETCHED: u ok, s message, s commit, s ref asked, s ref resolved,
 * s remote URL, s the checkout's path, u the host's failure (not the
 * fetch's: its directory, its disk quota). */
static void fetched(struct sbuf *reply, const char *msg, const struct gitfetch_result *r,
		    const char *path, int host)
{
	enc_u64(reply, msg == NULL);
	enc_str(reply, msg);
	enc_str(reply, r ? r->commit : NULL);
	enc_str(reply, r ? r->ref_asked : NULL);
	enc_str(reply, r ? r->ref_resolved : NULL);
	enc_str(reply, r ? r->remote_url : NULL);
	enc_str(reply, path);
	enc_u64(reply, (uint64_t)host);
}

static int make_dir(struct agent_src *s, struct sbuf *why)
{
	if (scratch_make(&s->dir, "harness-agent-src", why))
		return -1;
	if (chmod(s->dir.dir, 0755)) {
		sbuf_addf(why, "cannot open %s to the sandbox: %s", s->dir.dir, strerror(errno));
		scratch_remove(&s->dir);
		return -1;
	}
	return 0;
}

void agent_src_fetch(struct agent_src *s, struct dec *d, struct sbuf *reply)
{
	struct sut_wire_fetch f;
	struct gitfetch_result r;
	struct sbuf why = SBUF_INIT, path = SBUF_INIT;
	char *p;
	int host = 1;

	memset(&r, 0, sizeof(r));
	if (sut_wire_dec_fetch(d, &f)) {
		fetched(reply, "agent: malformed FETCH frame", NULL, NULL, 1);
		return;
	}
	if (s->dir.dir[0]) {
		sbuf_addf(&why, "agent: this agent already holds %s", s->path ? s->path : s->dir.dir);
		goto out;
	}
	if (f.name[0] == '.') {
		sbuf_addf(&why, "agent: '%s' is not a name for a checkout", f.name);
		goto out;
	}
	if (make_dir(s, &why))
		goto out;
	sbuf_addf(&path, "%s/", s->dir.dir);
	/* the arm's name as one path component */
	for (p = f.name; *p; p++)
		sbuf_add(&path, *p == '/' ? "_" : p, 1);
	/* its own disk (sandbox.disk_mb), as a local rerun's checkout, before
	 * a byte of it arrives; its image beside it, hidden from its jail
	 * (the directory is shown empty there); no room is this host's failure */
	if (f.disk_max_bytes && quota_make(path.buf, f.disk_max_bytes, "this agent's filesystem")) {
		sbuf_addf(&why, "no disk quota of sandbox.disk_mb %llu there (the agent's message is above)",
			  (unsigned long long)(f.disk_max_bytes >> 20));
		goto out;
	}
	s->quota = f.disk_max_bytes != 0;
	host = 0;
	if (f.password) {
		setenv(GITFETCH_ENV_PASSWORD, f.password, 1);
		if (f.user)
			setenv(GITFETCH_ENV_USER, f.user, 1);
	}
	if (gitfetch(f.repo, f.ref, path.buf, &r)) {
		char *shown = gitfetch_redact_url(f.repo);

		sbuf_addf(&why, "fetching %s at %s failed there (the agent's message is above)",
			  shown, f.ref ? f.ref : "HEAD");
		free(shown);
		if (s->quota)
			quota_remove(path.buf);
		s->quota = 0;
	} else
		s->path = sbuf_detach(&path, NULL);
	/* no credential outlives the fetch in this process */
	gitfetch_forget_credentials();
out:
	fetched(reply, why.len ? why.buf : NULL, why.len ? NULL : &r, s->path, why.len && host);
	gitfetch_result_release(&r);
	sut_wire_fetch_release(&f);
	sbuf_release(&why);
	sbuf_release(&path);
}

/* GIVE: s sandbox user, u uid (0: root's, frozen). GIVEN: u ok,
 * s message, u the sandbox user's gid there. Giving to a uid first checks
 * that the sandbox can run here at all (bwrap, the user: created when
 * missing), so a host that cannot jail fails the run before any build. */
void agent_src_give(struct agent_src *s, struct dec *d, struct sbuf *reply)
{
	char *user = dec_str(d);
	uint64_t uid = dec_u64(d);
	int gid = 0, ok = 0;

	if (d->bad || uid > 0x7fffffff) {
		enc_u64(reply, 0);
		enc_str(reply, "agent: malformed GIVE frame");
		enc_u64(reply, 0);
		goto out;
	}
	if (!s->path) {
		enc_u64(reply, 0);
		enc_str(reply, "agent: no fetched checkout to give");
		enc_u64(reply, 0);
		goto out;
	}
	/* the user's group; root's for a frozen tree */
	ok = uid == 0 ? !sandbox_give(s->path, 0, 0, 1)
		      : !sandbox_prepare(user, s->path, (int)uid, 1, &gid);
	enc_u64(reply, (uint64_t)ok);
	enc_str(reply, ok ? NULL : "could not give the checkout away there (the agent's message is above)");
	enc_u64(reply, (uint64_t)gid);
out:
	free(user);
}

void agent_src_remove(struct agent_src *s)
{
	if (s->quota && s->path)
		quota_remove(s->path);   /* unmounted first: then its directory goes */
	s->quota = 0;
	scratch_remove(&s->dir);
	free(s->path);
	s->path = NULL;
}
