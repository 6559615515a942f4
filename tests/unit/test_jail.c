/*
 * test_jail: the bwrap command line (every isolation flag, the hidden runs
 * directory made read-only after the checkout is bound into it, the
 * frozen tree read-only, its .git read-only), the recorded text, bwrap's
 * info JSON, the per-arm uids, and a socket made inside another network
 * namespace (root only: skipped otherwise, said so on stdout).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sandbox/netns.h"
#include "sandbox/portfwd.h"
#include "sandbox/sandbox.h"
#include "sut/sut_spawn.h"
#include "t.h"
#include "base/util.h"

static char tmpl[] = "/tmp/test_jail.XXXXXX";
static char *root;

/* Index of word w in argv, or -1. */
static int at(char **argv, const char *w)
{
	int i;

	for (i = 0; argv[i]; i++)
		if (!strcmp(argv[i], w))
			return i;
	return -1;
}

TEST(argv_has_every_isolation)
{
	struct sbuf wd = SBUF_INIT, git = SBUF_INIT;
	char *cmd[] = { "./srv", "--port", "8080", NULL };
	struct jail j = { NULL, 0 };
	char **v;
	int i;

	sbuf_addf(&wd, "%s/runs/r1/src/a", root);
	sbuf_addf(&git, "%s/.git", wd.buf);
	mkdir_p(git.buf, 0755);
	j.hide = NULL;
	{
		struct sbuf runs = SBUF_INIT;
		sbuf_addf(&runs, "%s/runs", root);
		j.hide = xstrdup(runs.buf);
		sbuf_release(&runs);
	}
	v = jail_argv(&j, wd.buf, cmd, 1);
	CHECK(v != NULL);
	if (!v)
		goto out;
	CHECK(!strcmp(v[0], JAIL_BWRAP));
	CHECK(at(v, "--unshare-all") > 0);
	CHECK(at(v, "--die-with-parent") > 0);
	CHECK(at(v, "--new-session") > 0);
	i = at(v, "--cap-drop");
	CHECK(i > 0 && !strcmp(v[i + 1], "ALL"));
	/* no nested user namespace: --disable-userns, with the user
	 * namespace it needs asked for, not only tried */
	CHECK(at(v, "--disable-userns") > at(v, "--unshare-user") && at(v, "--unshare-user") > 0);
	/* a fresh root: the system read-only, never the host's / */
	for (i = 0; v[i]; i++)
		CHECK(!(!strcmp(v[i], "/") && i > 0 && !strcmp(v[i - 1], "--ro-bind")));
	i = at(v, "/usr");
	CHECK(i > 0 && !strcmp(v[i - 1], "--ro-bind") && !strcmp(v[i + 1], "/usr"));
	i = at(v, "/etc");
	CHECK(i > 0 && !strcmp(v[i - 1], "--ro-bind"));
	CHECK(at(v, "/srv") < 0 && at(v, "/var") < 0 && at(v, "/root") < 0 && at(v, "/mnt") < 0);
	i = at(v, "--tmpfs");
	CHECK(i > 0 && !strcmp(v[i + 1], "/tmp"));
	i = at(v, "/var/tmp");
	CHECK(i > 0 && !strcmp(v[i - 1], "--tmpfs"));
	i = at(v, "/run");
	CHECK(i > 0 && !strcmp(v[i - 1], "--tmpfs"));
	/* the root made read-only last, after every mount on it */
	i = at(v, "--chdir");
	CHECK(i > 2 && !strcmp(v[i - 2], "--remount-ro") && !strcmp(v[i - 1], "/"));
	/* the runs directory: empty, then the checkout bound into it, then
	 * read-only */
	i = at(v, j.hide);
	CHECK(i > 0 && !strcmp(v[i - 1], "--tmpfs"));
	CHECK(at(v, "--bind") > i && !strcmp(v[at(v, "--bind") + 1], wd.buf));
	CHECK(at(v, "--remount-ro") > at(v, "--bind") &&
	      !strcmp(v[at(v, "--remount-ro") + 1], j.hide));
	i = at(v, git.buf);
	CHECK(i > 0 && !strcmp(v[i - 1], "--ro-bind"));
	i = at(v, "--info-fd");
	CHECK(i > 0 && !strcmp(v[i + 1], "3"));
	i = at(v, "--");
	CHECK(i > 0 && !strcmp(v[i + 1], "./srv") && !strcmp(v[i + 3], "8080") && !v[i + 4]);
	strv_free(v);

	j.frozen = 1;
	v = jail_argv(&j, wd.buf, cmd, 0);
	CHECK(v && at(v, "--bind") < 0 && at(v, "--info-fd") < 0);
	i = v ? at(v, wd.buf) : -1;
	CHECK(i > 0 && !strcmp(v[i - 1], "--ro-bind"));
	strv_free(v);
	CHECK(jail_argv(&j, "/nonexistent/x", cmd, 0) == NULL);
out:
	free((char *)j.hide);
	sbuf_release(&wd);
	sbuf_release(&git);
}

/* A listening unix socket of this process at path (mode 0777); its fd. */
static int listen_unix(const char *path)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(path, 0777) ||
	    listen(fd, 4)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Is "--ro-bind /dev/null path" in v? */
static int masked(char **v, const char *path)
{
	int i;

	for (i = 2; v && v[i]; i++)
		if (!strcmp(v[i], path) && !strcmp(v[i - 1], "/dev/null") &&
		    !strcmp(v[i - 2], "--ro-bind"))
			return 1;
	return 0;
}

/* Host sockets under what the jail binds (its tree; a system directory:
 * /opt, made here and removed) get /dev/null bound over them; one
 * elsewhere (not bound: not there at all) and one nothing listens on
 * any more are left alone. Fails without usock's masks (a read-only
 * bind does not stop connect()). */
TEST(argv_masks_host_sockets)
{
	struct sbuf wd = SBUF_INIT, in = SBUF_INIT, out = SBUF_INIT, opt = SBUF_INIT,
		    optdir = SBUF_INIT, stale = SBUF_INIT;
	char *cmd[] = { "./srv", NULL };
	struct jail j = { NULL, 0 };
	int fin, fout, fopt = -1, fstale;
	struct stat st;
	char **v;

	sbuf_addf(&wd, "%s/masks/wd", root);
	mkdir_p(wd.buf, 0755);
	sbuf_addf(&in, "%s/in.sock", wd.buf);
	sbuf_addf(&stale, "%s/stale.sock", wd.buf);
	sbuf_addf(&out, "%s/masks/out.sock", root);
	fin = listen_unix(in.buf);
	fout = listen_unix(out.buf);
	fstale = listen_unix(stale.buf);
	CHECK(fin >= 0 && fout >= 0 && fstale >= 0);
	if (fstale >= 0)
		close(fstale);   /* its file stays, nothing listens */
	if (!lstat("/opt", &st) && S_ISDIR(st.st_mode)) {
		sbuf_addf(&optdir, "/opt/test_jail.%d", (int)getpid());
		sbuf_addf(&opt, "%s/s", optdir.buf);
		if (!mkdir(optdir.buf, 0755))
			fopt = listen_unix(opt.buf);
		CHECK(fopt >= 0);
	} else
		printf("# no /opt here: the system directory case skipped\n");
	v = jail_argv(&j, wd.buf, cmd, 0);
	CHECK(v != NULL);
	CHECK(masked(v, in.buf));
	CHECK(!masked(v, out.buf) && !masked(v, stale.buf));
	if (fopt >= 0)
		CHECK(masked(v, opt.buf));
	/* after the binds it covers, before the root is made read-only */
	CHECK(v && at(v, in.buf) > at(v, wd.buf) && at(v, in.buf) < at(v, "--chdir"));
	strv_free(v);
	if (fin >= 0)
		close(fin);
	if (fout >= 0)
		close(fout);
	if (fopt >= 0)
		close(fopt);
	if (optdir.len) {
		unlink(opt.buf);
		rmdir(optdir.buf);
	}
	sbuf_release(&wd);
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&opt);
	sbuf_release(&optdir);
	sbuf_release(&stale);
}

TEST(argv_text_quotes)
{
	char *v[] = { "/usr/bin/bwrap", "--", "sh", "-c", "echo 'hi' $X", "", NULL };
	char *t = jail_argv_text(v);

	CHECK(!strcmp(t, "/usr/bin/bwrap -- sh -c 'echo '\\''hi'\\'' $X' ''"));
	free(t);
}

TEST(child_pid_from_info)
{
	int p[2];
	const char js[] = "{\n    \"child-pid\": 4242,\n    \"net-namespace\": 1\n}\n";

	CHECK(!pipe(p));
	CHECK(write(p[1], js, sizeof(js) - 1) == (ssize_t)sizeof(js) - 1);
	CHECK(jail_child_pid(p[0], 1000) == 4242);
	close(p[1]);
	CHECK(jail_child_pid(p[0], 1000) == -1);    /* EOF: bwrap failed */
	close(p[0]);
}

TEST(uids_distinct_and_unused)
{
	int u[4], i, j;

	CHECK(sandbox_uids(4, u) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(u[i] >= SANDBOX_UID_MIN);
		for (j = 0; j < i; j++)
			CHECK(u[i] != u[j]);
	}
	CHECK(sandbox_uids(17, u) == -1);
}

/* A listener inside a fresh network namespace (a child in unshare): the
 * harness's socket reaches it only when made there. */
TEST(socket_in_namespace)
{
	int sync_[2], ns, fd, port = 0;
	struct sockaddr_in sa;
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped socket_in_namespace: needs root\n");
		return;
	}
	CHECK(!pipe(sync_));
	pid = fork();
	if (!pid) {
		socklen_t len = sizeof(sa);
		int l;

		if (unshare(CLONE_NEWNET))
			_exit(1);
		/* a new namespace's lo is down: listen on any address, just
		 * to hold the namespace with a process in it */
		l = socket(AF_INET, SOCK_STREAM, 0);
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
		    getsockname(l, (struct sockaddr *)&sa, &len))
			_exit(1);
		port = ntohs(sa.sin_port);
		if (write(sync_[1], &port, sizeof(port)) != sizeof(port))
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync_[1]);
	CHECK(read(sync_[0], &port, sizeof(port)) == sizeof(port));
	close(sync_[0]);
	ns = netns_open(pid);
	CHECK(ns > 0);
	/* a socket made in the namespace lives there: its lo is down, so a
	 * connect to 127.0.0.1 fails with ENETUNREACH, not ECONNREFUSED as
	 * it would on the harness's own loopback (nothing listens on the
	 * port here: it was chosen in the namespace) */
	fd = netns_socket(ns, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 && errno == ENETUNREACH);
	close(fd);
	/* and the thread is back in its own namespace afterwards: its lo is
	 * up (refused, or something of the host's answering: never
	 * unreachable) */
	fd = netns_socket(-1, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	errno = 0;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		CHECK(errno == ECONNREFUSED);
	close(fd);
	close(ns);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}


static int host_listener(int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		return -1;
	*port = ntohs(sa.sin_port);
	return fd;
}

/* In a child's new network namespace (lo brought up), a forwarded port
 * reaches the harness's listener both ways, half-close included; a port
 * not forwarded is refused there even though the host listens on it. */
TEST(dependency_port_forwarded)
{
	int ready[2], go[2], res[2], port, other, l, l2, ns, a, n, k;
	struct portfwd *f;
	char buf[16], got[64];
	struct timeval tmo = { 5, 0 };
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped dependency_port_forwarded: needs root\n");
		return;
	}
	l = host_listener(&port);
	l2 = host_listener(&other);
	CHECK(l >= 0 && l2 >= 0);
	CHECK(!pipe(ready) && !pipe(go) && !pipe(res));
	pid = fork();
	if (!pid) {
		struct ifreq ifr;
		struct sockaddr_in sa;
		int s, c, k, refused;
		char out[16];

		if (unshare(CLONE_NEWNET))
			_exit(1);
		s = socket(AF_INET, SOCK_DGRAM, 0);
		memset(&ifr, 0, sizeof(ifr));
		strcpy(ifr.ifr_name, "lo");
		if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
			_exit(1);
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(go[0], out, 1) != 1)
			_exit(1);
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa.sin_port = htons((uint16_t)other);
		c = socket(AF_INET, SOCK_STREAM, 0);
		refused = connect(c, (struct sockaddr *)&sa, sizeof(sa)) == -1 && errno == ECONNREFUSED;
		close(c);
		sa.sin_port = htons((uint16_t)port);
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) || write(c, "ping", 4) != 4)
			_exit(1);
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
		shutdown(c, SHUT_WR);
		k = (int)read(c, out, sizeof(out) - 1);
		out[k > 0 ? k : 0] = '\0';
		snprintf(got, sizeof(got), "%s %s", refused ? "refused" : "reached", out);
		if (write(res[1], got, strlen(got)) < 0)
			_exit(1);
		_exit(0);
	}
	CHECK(read(ready[0], buf, 1) == 1);
	ns = netns_open(pid);
	f = portfwd_start(ns, &port, 1, 0);
	CHECK(f != NULL);
	CHECK(write(go[1], "g", 1) == 1);
	a = accept(l, NULL, NULL);
	CHECK(a >= 0);
	/* a relay that lost the half-close fails here, never hangs */
	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	n = 0;
	/* until the sandbox's half-close arrives as end-of-file (not the
	 * receive timeout) */
	while ((k = (int)read(a, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += k;
	buf[n] = '\0';
	CHECK_STR(buf, "ping");
	CHECK(k == 0);
	CHECK(write(a, "pong", 4) == 4);
	close(a);
	n = (int)read(res[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, "refused pong");
	CHECK(f && portfwd_count(f) == 1);
	waitpid(pid, NULL, 0);
	portfwd_stop(f);
	close(ns);
	close(l);
	close(l2);
}

/* lo's IPv4 address in the calling thread's namespace: 127.0.0.1, or
 * none (0.0.0.0 removes it, as `ifconfig lo 0.0.0.0` does). */
static int lo_addr(in_addr_t a)
{
	struct ifreq ifr;
	struct sockaddr_in *sa = (struct sockaddr_in *)&ifr.ifr_addr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = a;
	ret = ioctl(s, SIOCSIFADDR, &ifr);
	if (!ret && a) {
		ifr.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return ret;
}

/* bwrap reports its child before the child's namespace has taken
 * 127.0.0.1 (EADDRNOTAVAIL on a loaded host): the relay waits for the
 * address instead of failing the arm's start. Here the child's lo has no
 * address for 300 ms after the relay starts binding. */
TEST(forward_waits_for_the_loopback)
{
	int ready[2], port, l, ns;
	struct portfwd *f;
	char c;
	double t0;
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped forward_waits_for_the_loopback: needs root\n");
		return;
	}
	l = host_listener(&port);
	CHECK(l >= 0 && !pipe(ready));
	pid = fork();
	if (!pid) {
		if (unshare(CLONE_NEWNET) || lo_addr(htonl(INADDR_LOOPBACK)) || lo_addr(0))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		usleep(300000);
		if (lo_addr(htonl(INADDR_LOOPBACK)))
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(read(ready[0], &c, 1) == 1);
	ns = netns_open(pid);
	{   /* the address is gone: a plain bind there fails as bwrap's did */
		int fd = netns_socket(ns, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in sa;

		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons((uint16_t)port);
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 &&
		      errno == EADDRNOTAVAIL);
		close(fd);
	}
	t0 = now_wall();
	f = portfwd_start(ns, &port, 1, 0);
	CHECK(f != NULL);
	/* it waited for the address (300 ms, less what the check above took) */
	CHECK(now_wall() - t0 > 0.1 && now_wall() - t0 < 5);
	portfwd_stop(f);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ns);
	close(l);
}

/* A child in a network namespace of its own (its loopback up) that
 * writes ready, waits for go, then holds n connections open to port on
 * its loopback, writes done and waits to be killed. Its pid, or -1. */
static pid_t ns_clients(int port, int n, int ready[2], int go[2], int done[2])
{
	struct sockaddr_in sa;
	pid_t pid = fork();
	char c;
	int i;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWNET) || lo_addr(htonl(INADDR_LOOPBACK)))
		_exit(1);
	if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
		_exit(1);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < n; i++)
		if (connect(socket(AF_INET, SOCK_STREAM, 0), (struct sockaddr *)&sa, sizeof(sa)))
			_exit(1);
	if (write(done[1], "d", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* At most max_conns relayed at once: of 5 connections held open from
 * the namespace, 2 are relayed and 3 closed at once and counted. */
TEST(forward_caps_connections)
{
	int ready[2], go[2], done[2], port, l, ns;
	struct portfwd *f;
	double t0;
	char c;
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped forward_caps_connections: needs root\n");
		return;
	}
	l = host_listener(&port);
	CHECK(l >= 0 && !pipe(ready) && !pipe(go) && !pipe(done));
	pid = ns_clients(port, 5, ready, go, done);
	CHECK(pid > 0 && read(ready[0], &c, 1) == 1);
	ns = netns_open(pid);
	f = portfwd_start(ns, &port, 1, 2);
	CHECK(f != NULL);
	CHECK(write(go[1], "g", 1) == 1 && read(done[0], &c, 1) == 1);
	/* the relay thread closes them as it accepts them: bounded wait */
	for (t0 = now_wall(); f && portfwd_refused(f) < 3 && now_wall() - t0 < 5;)
		usleep(10000);
	CHECK(f && portfwd_refused(f) == 3);
	CHECK(f && portfwd_count(f) == 2);
	portfwd_stop(f);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ns);
	close(l);
}

/* The harness out of descriptors: a connection it cannot take is shed
 * (taken with the spare descriptor, closed, counted), never left
 * waiting on a readable listener the relay would spin on. */
TEST(forward_sheds_without_descriptors)
{
	int ready[2], go[2], done[2], port, l, ns, fd;
	struct rlimit old, low;
	struct portfwd *f;
	double t0;
	char c;
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped forward_sheds_without_descriptors: needs root\n");
		return;
	}
	l = host_listener(&port);
	CHECK(l >= 0 && !pipe(ready) && !pipe(go) && !pipe(done));
	pid = ns_clients(port, 10, ready, go, done);
	CHECK(pid > 0 && read(ready[0], &c, 1) == 1);
	ns = netns_open(pid);
	f = portfwd_start(ns, &port, 1, 0);
	CHECK(f != NULL);
	/* room for two relayed connections (two descriptors each) */
	fd = dup(0);
	CHECK(fd >= 0 && !getrlimit(RLIMIT_NOFILE, &old));
	low = old;
	low.rlim_cur = (rlim_t)fd + 4;
	close(fd);
	CHECK(!setrlimit(RLIMIT_NOFILE, &low));
	CHECK(write(go[1], "g", 1) == 1 && read(done[0], &c, 1) == 1);
	for (t0 = now_wall(); f && portfwd_count(f) + portfwd_refused(f) < 10 && now_wall() - t0 < 5;)
		usleep(10000);
	CHECK(!setrlimit(RLIMIT_NOFILE, &old));
	CHECK(f && portfwd_count(f) + portfwd_refused(f) == 10);
	CHECK(f && portfwd_refused(f) >= 1);
	portfwd_stop(f);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ns);
	close(l);
}

int main(void)
{
	root = mkdtemp(tmpl);
	RUN(argv_has_every_isolation);
	RUN(argv_masks_host_sockets);
	RUN(argv_text_quotes);
	RUN(child_pid_from_info);
	RUN(uids_distinct_and_unused);
	RUN(socket_in_namespace);
	RUN(dependency_port_forwarded);
	RUN(forward_waits_for_the_loopback);
	RUN(forward_caps_connections);
	RUN(forward_sheds_without_descriptors);
	t_rm_rf(root);
	return t_done();
}
