/*
 * agent_link: starting an agent over ssh (or locally), the version check,
 * and the clock exchange.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_link.h"
#include "base/frame.h"

int agent_dest_is_local(const char *dest)
{
	return !strcmp(dest, "local");
}

int agent_dest_check(const char *dest, const char **why)
{
	const char *p;

	if (!*dest) {
		*why = "empty destination";
		return -1;
	}
	if (dest[0] == '-') {
		*why = "a destination may not start with '-'";
		return -1;
	}
	for (p = dest; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			*why = "a destination has no spaces or control characters";
			return -1;
		}
	}
	return 0;
}

int agent_binary_check(const char *binary, const char **why)
{
	const char *p;

	if (!*binary) {
		*why = "empty path";
		return -1;
	}
	/* ssh hands the remote command to the user's shell as one string:
	 * allow only characters no shell treats specially. */
	for (p = binary; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/._-+~", *p))) {
			*why = "only letters, digits and / . _ - + ~ are allowed (it goes to the remote shell)";
			return -1;
		}
	}
	return 0;
}

/* argv for running the agent (with --version when version) at dest; the
 * strings are owned by o, dest and static storage; free the array. */
static char **agent_argv(const char *dest, const struct agent_opts *o, int version,
			 const char *self)
{
	size_t n = 0, i;
	char **av = xcalloc(16 + 2 * o->nssh_options, sizeof(*av));
	const char *bin = o->binary ? o->binary : "harness";

	if (agent_dest_is_local(dest)) {
		av[n++] = (char *)(o->binary ? o->binary : self);
	} else {
		av[n++] = (char *)"ssh";
		av[n++] = (char *)"-T";
		/* The user's options first: ssh keeps the first value given. */
		for (i = 0; i < o->nssh_options; i++) {
			av[n++] = (char *)"-o";
			av[n++] = (char *)o->ssh_options[i];
		}
		av[n++] = (char *)"-o";
		av[n++] = (char *)"BatchMode=yes";
		av[n++] = (char *)"-o";
		av[n++] = (char *)"ConnectTimeout=10";
		av[n++] = (char *)"-o";
		av[n++] = (char *)"ServerAliveInterval=2";
		av[n++] = (char *)"--";
		av[n++] = (char *)dest;
		av[n++] = (char *)bin;
	}
	av[n++] = (char *)"agent";
	if (version)
		av[n++] = (char *)"--version";
	else if (o->sut)
		av[n++] = (char *)"--sut";
	av[n] = NULL;
	return av;
}

/* Start argv with pipes to its standard input (*to, or /dev/null when
 * to is NULL) and from its standard output. Its own process group, so a
 * terminal's ^C reaches the coordinator only (which stops the load). */
static pid_t spawn(char **argv, int *to, int *from)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	pid_t pid;

	if ((to && pipe2(in, O_CLOEXEC)) || pipe2(out, O_CLOEXEC)) {
		error("cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		int devnull = -1;

		setpgid(0, 0);
		if (to) {
			dup2(in[0], 0);
		} else {
			devnull = open("/dev/null", O_RDONLY);
			dup2(devnull, 0);
		}
		dup2(out[1], 1);
		/* Nothing else of ours: not the run's lock or database, nor
		 * another agent's pipes (ssh must see EOF when we die). */
		for (devnull = 3; devnull < 4096; devnull++)
			close(devnull);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (to) {
		close(in[0]);
		*to = in[1];
	}
	close(out[1]);
	*from = out[0];
	return pid;
fail:
	if (in[0] >= 0) {
		close(in[0]);
		close(in[1]);
	}
	if (out[0] >= 0) {
		close(out[0]);
		close(out[1]);
	}
	return -1;
}

/* waitpid with a deadline (ms); past it, SIGKILL and reap. Exit status
 * as the shell reports it (128 + signal). */
static int reap(pid_t pid, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		if (now_ns() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 128 + SIGKILL;
		}
		usleep(5000);
	}
}

static int check_version(const char *dest, const struct agent_opts *o, const char *self)
{
	char **av = agent_argv(dest, o, 1, self);
	char mine[256], got[512];
	size_t n = 0;
	uint64_t end = now_ns() + 30000000000ull;
	int from = -1, st, ret = -1;
	pid_t pid = spawn(av, NULL, &from);

	if (pid < 0)
		goto out;
	/* Read its one line (30 s: ssh's connect and login). */
	while (n < sizeof(got) - 1) {
		struct pollfd p = { .fd = from, .events = POLLIN };
		uint64_t now = now_ns();
		ssize_t k;

		if (now >= end)
			break;
		if (poll(&p, 1, (int)((end - now) / 1000000 + 1)) <= 0)
			continue;
		k = read(from, got + n, sizeof(got) - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	got[n] = 0;
	while (n && (got[n - 1] == '\n' || got[n - 1] == '\r'))
		got[--n] = 0;
	st = reap(pid, 2000);
	agent_version_line(mine, sizeof(mine));
	if (st == 255 && !agent_dest_is_local(dest)) {
		error("agent %s: ssh failed (exit 255; its message is above)", dest);
	} else if (st == 127 || (st && !n)) {
		error("agent %s: '%s agent --version' did not run (exit %d): is harness installed"
		      " there? (--agent-binary PATH)", dest,
		      o->binary ? o->binary : agent_dest_is_local(dest) ? self : "harness", st);
	} else if (strcmp(got, mine)) {
		error("agent %s: version mismatch: it says '%s', this coordinator is '%s'"
		      " (install the same harness on both, or point --agent-binary at it)",
		      dest, got, mine);
	} else {
		ret = 0;
	}
out:
	if (from >= 0)
		close(from);
	free(av);
	return ret;
}

char *agent_dest_address(const char *dest, const struct agent_opts *o)
{
	char **av = xcalloc(8 + 2 * o->nssh_options, sizeof(*av));
	struct sbuf out = SBUF_INIT;
	char buf[4096], *addr = NULL, *line, *save = NULL;
	size_t n = 0, i;
	int from = -1;
	pid_t pid;

	if (agent_dest_is_local(dest)) {
		free(av);
		return xstrdup("127.0.0.1");
	}
	av[n++] = (char *)"ssh";
	av[n++] = (char *)"-G";
	for (i = 0; i < o->nssh_options; i++) {
		av[n++] = (char *)"-o";
		av[n++] = (char *)o->ssh_options[i];
	}
	av[n++] = (char *)"--";
	av[n++] = (char *)dest;
	pid = spawn(av, NULL, &from);
	if (pid < 0)
		goto out;
	for (;;) {
		ssize_t k = read(from, buf, sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || out.len > (1u << 20))
			break;
		sbuf_add(&out, buf, (size_t)k);
	}
	if (reap(pid, 5000) != 0 || !out.buf)
		goto out;
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "hostname ", 9) && line[9]) {
			addr = xstrdup(line + 9);
			break;
		}
	}
out:
	if (!addr)
		error("%s: 'ssh -G' did not say which host it names", dest);
	if (from >= 0)
		close(from);
	sbuf_release(&out);
	free(av);
	return addr;
}

int agent_link_send(struct agent_link *l, int type, const struct sbuf *payload)
{
	if (l->lost || frame_write(l->to, type, payload ? payload->buf : "",
				   payload ? payload->len : 0)) {
		l->lost = 1;
		return -1;
	}
	return 0;
}

int agent_link_open(struct agent_link *l, const char *dest, const struct agent_opts *o)
{
	char self[4096], mine[256], **av = NULL, *line = NULL;
	struct sbuf payload = SBUF_INIT;
	const char *why = "";
	struct dec d;
	ssize_t k;
	int type, r, ret = -1;
	uint64_t proto;

	memset(l, 0, sizeof(*l));
	l->to = l->from = -1;
	l->dest = xstrdup(dest);
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[k > 0 ? k : 0] = 0;
	signal(SIGPIPE, SIG_IGN);
	if (agent_dest_check(dest, &why)) {
		error("agent '%s': %s", dest, why);
		goto out;
	}
	if (check_version(dest, o, self))
		goto out;
	av = agent_argv(dest, o, 0, self);
	l->pid = spawn(av, &l->to, &l->from);
	if (l->pid < 0) {
		l->pid = 0;
		goto out;
	}
	r = frame_read(l->from, &type, &payload, 30000, &why);
	if (r || type != FRAME_HELLO) {
		error("agent %s: no HELLO from the agent (%s)", dest,
		      r == 1 ? "it exited" : r == -2 ? "timed out" : r ? why : "another frame came");
		goto out;
	}
	dec_init(&d, payload.buf, payload.len);
	proto = dec_u64(&d);
	line = dec_str(&d);
	l->host = dec_str(&d);
	l->address = dec_str(&d);
	agent_version_line(mine, sizeof(mine));
	if (d.bad || proto != AGENT_PROTOCOL || !line || strcmp(line, mine) || !l->address) {
		error("agent %s: version mismatch in HELLO: '%s', this coordinator is '%s'", dest,
		      line ? line : "?", mine);
		goto out;
	}
	ret = 0;
out:
	free(line);
	free(av);
	sbuf_release(&payload);
	if (ret)
		agent_link_close(l);
	return ret;
}

void agent_clock_round(int64_t t1, int64_t t2, int64_t t3, int64_t t4, int64_t *offset,
		       int64_t *rtt)
{
	*offset = ((t2 - t1) + (t3 - t4)) / 2;
	*rtt = (t4 - t1) - (t3 - t2);
	if (*rtt < 0)
		*rtt = 0;
}

int agent_link_sync(struct agent_link *l, int rounds)
{
	struct sbuf sb = SBUF_INIT, payload = SBUF_INIT;
	int64_t best_rtt = INT64_MAX, best_off = 0;
	const char *why = "";
	int i, type, r, ret = -1;

	for (i = 0; i < rounds; i++) {
		int64_t t1, t2, t3, t4, off, rtt;
		struct dec d;

		sbuf_reset(&sb);
		t1 = agent_wall_ns();
		enc_i64(&sb, t1);
		if (agent_link_send(l, FRAME_TIME, &sb)) {
			error("agent %s: connection lost", l->dest);
			goto out;
		}
		/* Frames of a load still draining are skipped: only a reply
		 * ends the round. */
		do {
			r = frame_read(l->from, &type, &payload, 10000, &why);
		} while (!r && type != FRAME_TIME_REPLY && type != FRAME_ERROR);
		t4 = agent_wall_ns();
		if (r || type != FRAME_TIME_REPLY) {
			l->lost = 1;
			error("agent %s: clock exchange failed (%s)", l->dest,
			      r == 1 ? "connection closed" : r == -2 ? "no reply in 10 s" :
			      r ? why : "the agent reported an error");
			goto out;
		}
		dec_init(&d, payload.buf, payload.len);
		if (dec_i64(&d) != t1) {
			l->lost = 1;
			error("agent %s: clock exchange out of step", l->dest);
			goto out;
		}
		t2 = dec_i64(&d);
		t3 = dec_i64(&d);
		if (d.bad) {
			l->lost = 1;
			error("agent %s: malformed clock reply", l->dest);
			goto out;
		}
		agent_clock_round(t1, t2, t3, t4, &off, &rtt);
		if (rtt < best_rtt) {
			best_rtt = rtt;
			best_off = off;
		}
	}
	l->offset_ns = best_off;
	l->uncert_ns = best_rtt / 2;
	ret = 0;
out:
	sbuf_release(&sb);
	sbuf_release(&payload);
	return ret;
}

void agent_link_close(struct agent_link *l)
{
	if (l->to >= 0)
		close(l->to);
	if (l->from >= 0)
		close(l->from);
	l->to = l->from = -1;
	/* Its standard input is closed: the agent exits, and ssh with it. */
	if (l->pid > 0)
		reap(l->pid, 3000);
	l->pid = 0;
	free(l->dest);
	free(l->host);
	free(l->address);
	l->dest = l->host = l->address = NULL;
}
