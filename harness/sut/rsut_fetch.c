/*
 * rsut_fetch: the coordinator's end of FETCH and GIVE (see rsut_fetch.h).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/frame.h"
#include "sut/rsut_fetch.h"
#include "sut/sut_wire.h"
#include "base/util.h"

struct rsut_src {
	struct agent_link link;
	char *path;
};

/* The reply of type want into payload: 0, or -1 when the channel broke
 * (a fetch has no time limit here, as a local one). */
static int wait_for(struct rsut_src *s, int want, struct sbuf *payload)
{
	const char *why = "";
	int type;

	for (;;) {
		struct pollfd p = { .fd = s->link.from, .events = POLLIN };

		if (poll(&p, 1, 1000) <= 0)
			continue;
		if (frame_read(s->link.from, &type, payload, 10000, &why)) {
			s->link.lost = 1;
			return -1;
		}
		if (type == want)
			return 0;
	}
}

/* FETCHED into out and s->path; its message (malloc'd) when it says no,
 * *host 1 when that was the host's failure (not the fetch's). */
static int read_fetched(struct rsut_src *s, const struct sbuf *payload,
			struct gitfetch_result *out, char **msg, int *host)
{
	struct dec d;
	uint64_t ok;

	dec_init(&d, payload->buf, payload->len);
	ok = dec_u64(&d);
	*msg = dec_str(&d);
	out->commit = dec_str(&d);
	out->ref_asked = dec_str(&d);
	out->ref_resolved = dec_str(&d);
	out->remote_url = dec_str(&d);
	s->path = dec_str(&d);
	*host = dec_u64(&d) == 1;
	if (d.bad || (ok && (!out->commit || !s->path))) {
		free(*msg);
		*msg = xstrdup("malformed FETCHED frame");
		*host = 1;
		return -1;
	}
	return ok ? 0 : -1;
}

struct rsut_src *rsut_fetch(const char *dest, const struct agent_opts *opts, const char *name,
			    const char *repo, const char *ref, uint64_t disk_bytes,
			    struct gitfetch_result *out, int *env_error)
{
	struct rsut_src *s = xcalloc(1, sizeof(*s));
	struct agent_opts o = *opts;
	struct sut_wire_fetch f;
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	char *msg = NULL;

	*env_error = 1;
	memset(out, 0, sizeof(*out));
	o.sut = 1;
	if (agent_link_open(&s->link, dest, &o)) {
		free(s);
		return NULL;
	}
	memset(&f, 0, sizeof(f));
	f.name = (char *)name;
	f.repo = (char *)repo;
	f.ref = (char *)ref;
	f.password = getenv(GITFETCH_ENV_PASSWORD);
	f.user = f.password ? getenv(GITFETCH_ENV_USER) : NULL;
	f.disk_max_bytes = disk_bytes;
	sut_wire_enc_fetch(&sb, &f);
	if (agent_link_send(&s->link, FRAME_FETCH, &sb) || wait_for(s, FRAME_FETCHED, &payload)) {
		error("fetching %s on %s: the agent's connection was lost", name, dest);
		goto fail;
	}
	if (read_fetched(s, &payload, out, &msg, env_error)) {
		error("%s on %s: %s", name, dest, msg ? msg : "not fetched");
		goto fail;
	}
	*env_error = 0;
	free(msg);
	explicit_bzero(sb.buf, sb.len);
	sbuf_release(&sb);
	sbuf_release(&payload);
	return s;
fail:
	free(msg);
	if (sb.buf)
		explicit_bzero(sb.buf, sb.len);
	sbuf_release(&sb);
	sbuf_release(&payload);
	gitfetch_result_release(out);
	rsut_src_close(s);
	return NULL;
}

const char *rsut_src_path(const struct rsut_src *s) { return s->path; }
const char *rsut_src_dest(const struct rsut_src *s) { return s->link.dest; }

int rsut_src_give(struct rsut_src *s, const char *user, int uid)
{
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	struct dec d;
	char *msg = NULL;
	int ret = -1;

	enc_str(&sb, user);
	enc_u64(&sb, (uint64_t)uid);
	if (agent_link_send(&s->link, FRAME_GIVE, &sb) || wait_for(s, FRAME_GIVEN, &payload)) {
		error("%s on %s: the agent holding it was lost", s->path, s->link.dest);
		goto out;
	}
	dec_init(&d, payload.buf, payload.len);
	if (dec_u64(&d) == 1 && !d.bad) {
		ret = 0;
		goto out;
	}
	msg = dec_str(&d);
	error("%s on %s: %s", s->path, s->link.dest, msg ? msg : "malformed GIVEN frame");
out:
	free(msg);
	sbuf_release(&sb);
	sbuf_release(&payload);
	return ret;
}

void rsut_src_close(struct rsut_src *s)
{
	if (!s)
		return;
	agent_link_close(&s->link);
	free(s->path);
	free(s);
}
