/*
 * sut: start, health, exit detection and stop of an implementation (see
 * sut.h for the contract; the build is sut_build.c, process creation
 * sut_spawn.c).
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/cpuset.h"
#include "sut/ctr.h"
#include "sandbox/jail.h"
#include "sandbox/netns.h"
#include "sandbox/portfwd.h"
#include "sut/sut.h"
#include "sut/sut_spawn.h"
#include "base/util.h"

#define TAIL_LINES 10

struct sut {
	char *name;
	pid_t pid;                      /* also the process group id */
	pid_t ext_main;                 /* a starter's main process (sut_proc.main), else 0 */
	pid_t watchdog;
	int wd_fd;
	int port;
	char url[64];
	char *health_url, *stats_url;
	int health_tcp;                 /* health.tcp: a connection accepted is healthy */
	uint64_t exec_ns, healthy_ns;   /* spawned; first found healthy (0: not yet) */
	char *ca_file;                  /* health over https: CA certificates, or NULL */
	int insecure;
	volatile sig_atomic_t *stop;    /* the config's; NULL: none */
	char *out_path, *err_path;
	long err_off;                   /* where this start's stderr begins */
	struct account *acct;
	int exited, status, stopped;
	char *cpus;
	const char *cpus_method;
	double grace_s;
	int netns_fd;                   /* jailed: its network namespace, else -1 */
	pid_t relay;                    /* jailed: the log relay, else -1 */
	struct portfwd *fwd;            /* jailed with dependencies: their relay */
	unsigned long relay_refused;    /* its refusals, once it is stopped */
	char *argv_text;
	const struct sut_starter *starter; /* started by another backend, or NULL */
};

/* ------------------------------------------------------------ helpers */

int sut_free_port(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &len))
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* A fixed port (implementations[].port) is held by a listener now: 1.
 * SO_REUSEADDR, so a previous instance's TIME_WAIT does not count. */
static int port_taken(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, taken;

	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	taken = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0;
	close(fd);
	return taken;
}

void sut_print_tail(const char *path, long from, int lines)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size, start;
	ssize_t n;
	char *p, *line, *save = NULL, *v[64];
	int nv = 0, i;

	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	start = size - (off_t)sizeof(buf) + 1;
	if (start < from)
		start = from;
	if (start < 0)
		start = 0;
	n = pread(fd, buf, sizeof(buf) - 1, start);
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "harness:   | (%s is empty)\n", path);
		return;
	}
	buf[n] = '\0';
	p = buf;
	if (start > from && (p = strchr(buf, '\n')))   /* skip a partial first line */
		p++;
	else
		p = buf;
	for (line = strtok_r(p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (nv == (int)ARRAY_SIZE(v)) {
			memmove(v, v + 1, sizeof(v[0]) * (ARRAY_SIZE(v) - 1));
			nv--;
		}
		v[nv++] = line;
	}
	for (i = nv > lines ? nv - lines : 0; i < nv; i++)
		fprintf(stderr, "harness:   | %s\n", v[i]);
}

/* ------------------------------------------------------------ start */

/* The sandbox's side channels around spawn_run (sut_config.jail). */
struct jail_fds {
	int info[2];    /* bwrap --info-fd: the pid of its child */
	int block[2];   /* bwrap --block-fd: it runs the command when a byte comes */
	int ow, ew;     /* the log relay's write ends, the arm's stdout/stderr */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void jail_fds_init(struct jail_fds *j)
{
	j->info[0] = j->info[1] = j->block[0] = j->block[1] = j->ow = j->ew = -1;
}

/* After spawn_run: the arm holds its ends; the harness keeps its own. */
static void jail_fds_spawned(struct jail_fds *j)
{
	close_fd(&j->ow);
	close_fd(&j->ew);
	close_fd(&j->info[1]);
	close_fd(&j->block[0]);
}

static void jail_fds_close(struct jail_fds *j)
{
	jail_fds_spawned(j);
	close_fd(&j->info[0]);
	close_fd(&j->block[1]);
}

/* A struct sut for cfg, checked (start command, working directory, cpus)
 * and given its port and URLs; NULL after error(). */
static struct sut *sut_new(const struct sut_config *cfg, const char *wd, cpu_set_t *cpus)
{
	const struct spec_impl *impl = cfg->impl;
	struct sut *s = xcalloc(1, sizeof(*s));
	struct stat st;

	s->pid = -1;
	s->watchdog = -1;
	s->wd_fd = -1;
	s->netns_fd = -1;
	s->relay = -1;
	s->name = xstrdup(impl->name);
	s->stop = cfg->stop;
	s->grace_s = cfg->stop_grace_s > 0 ? cfg->stop_grace_s : 3.0;
	s->cpus_method = "none";
	if (!cfg->starter && (!impl->start || !impl->start[0])) {
		error("impl %s: no start command", impl->name);
		goto fail;
	}
	if (!wd || stat(wd, &st) || !S_ISDIR(st.st_mode)) {
		error("impl %s: working directory %s does not exist", impl->name, wd ? wd : "(none)");
		goto fail;
	}
	if (impl->cpus && cpuset_parse(impl->cpus, cpus, impl->name))
		goto fail;
	s->port = cfg->port > 0 ? cfg->port : sut_free_port();
	if (s->port <= 0) {
		error("impl %s: no free port on 127.0.0.1: %s", impl->name, strerror(errno));
		goto fail;
	}
	if (cfg->port > 0 && !cfg->jail && port_taken(cfg->port)) {
		error("impl %s: its port %d (implementations[].port) is in use on 127.0.0.1",
		      impl->name, cfg->port);
		goto fail;
	}
	snprintf(s->url, sizeof(s->url), "%s://127.0.0.1:%d", cfg->https ? "https" : "http",
		 s->port);
	s->ca_file = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	s->insecure = cfg->insecure;
	s->health_url = impl->health_url ? spec_subst_port(impl->health_url, s->port) : NULL;
	s->health_tcp = impl->health_tcp;
	if (s->health_tcp) {
		struct sbuf u = SBUF_INIT;

		sbuf_addf(&u, "http://127.0.0.1:%d/", s->port);
		s->health_url = sbuf_detach(&u, NULL);
	}
	s->stats_url = impl->stats_url ? spec_subst_port(impl->stats_url, s->port) : NULL;
	return s;
fail:
	sut_free(s);
	return NULL;
}

/* LOG_DIR/NAME.stdout.log and .stderr.log, opened for appending, with the
 * harness's start marker; -1 after error(). */
static int sut_open_logs(struct sut *s, const struct sut_config *cfg, int *out, int *err)
{
	struct sbuf sb = SBUF_INIT;

	if (mkdir_p(cfg->log_dir, 0755))
		return -1;
	sbuf_addf(&sb, "%s/%s.stdout.log", cfg->log_dir, s->name);
	s->out_path = sbuf_detach(&sb, NULL);
	sbuf_addf(&sb, "%s/%s.stderr.log", cfg->log_dir, s->name);
	s->err_path = sbuf_detach(&sb, NULL);
	if ((*out = spawn_open_log(s->out_path)) < 0 || (*err = spawn_open_log(s->err_path)) < 0)
		return -1;
	dprintf(*out, "=== harness: start of %s on port %d at %.3f\n", s->name, s->port, now_wall());
	s->err_off = (long)lseek(*err, 0, SEEK_END);
	return 0;
}

/* The implementation's cgroup (or process-tree accounting) with its limits. */
static int sut_open_account(struct sut *s, const struct sut_config *cfg)
{
	const struct spec_impl *impl = cfg->impl;
	struct account_limits lim;

	memset(&lim, 0, sizeof(lim));
	lim.memory_max_bytes = cfg->memory_max_bytes ? cfg->memory_max_bytes : impl->memory_max_bytes;
	lim.pids_max = cfg->pids_max ? cfg->pids_max : impl->pids_max;
	lim.cpus = impl->cpus;
	lim.cpu_max = cfg->cpu_max;
	lim.cpu_weight_raise = 1;       /* a measured arm (account_weight.c) */
	s->acct = account_create(cfg->backend, cfg->cgroup_name ? cfg->cgroup_name : impl->name,
				 &lim, cfg->sample_ms);
	if (s->acct && cfg->jail && account_backend(s->acct) == ACCT_PROCFS)
		return jail_refuse_procfs(s->name);
	return s->acct ? 0 : -1;
}

/* Wrap *ARGV in bwrap (jail.h) with the sandbox's environment, and give
 * the arm pipes to a relay process instead of the log files, so it can
 * never truncate or forge them. */
static int jail_prepare(struct sut *s, const struct sut_config *cfg, const char *wd,
			char ***argv, char ***env, struct spawn *sp, struct jail_fds *j)
{
	char **jargv = jail_argv(cfg->jail, wd, *argv, 1);

	if (!jargv)
		return -1;
	strv_free(*argv);
	*argv = jargv;
	strv_free(*env);
	*env = spawn_env_jail(cfg->impl, s->port);
	if (pipe2(j->info, O_CLOEXEC) || pipe2(j->block, O_CLOEXEC))
		return error("impl %s: pipe: %s", s->name, strerror(errno));
	s->relay = spawn_relay(sp->out_fd, sp->err_fd, cfg->log_max_bytes, s->acct, &j->ow, &j->ew);
	if (s->relay < 0)
		return -1;
	sp->out_fd = j->ow;
	sp->err_fd = j->ew;
	sp->keep_fd = j->info[1];
	sp->keep_fd2 = j->block[0];
	return 0;
}

/* The sandboxed process (bwrap's child, pid 1 of its namespace) holds the
 * network namespace the harness connects through: open it, forward the
 * dependencies' ports into it, then let bwrap run the command. */
static int jail_release(struct sut *s, const struct sut_config *cfg, struct jail_fds *j)
{
	pid_t child = jail_child_pid(j->info[0], 10000);

	if (child <= 0 || (s->netns_fd = netns_open(child)) < 0) {
		sut_print_tail(s->err_path, s->err_off, TAIL_LINES);
		return -1;
	}
	if (cfg->nforward &&
	    !(s->fwd = portfwd_start(s->netns_fd, cfg->forward_ports, cfg->nforward,
				    cfg->relay_max)))
		return -1;
	if (write(j->block[1], "g", 1) != 1)
		return error("impl %s: cannot release the sandbox: %s", s->name, strerror(errno));
	return 0;
}

/* The watchdog that outlives a killed harness, and where its CPUs are. */
static void sut_watch(struct sut *s, const struct spec_impl *impl, const char *quota_dir)
{
	s->watchdog = spawn_watchdog(s->pid, s->acct, quota_dir, &s->wd_fd);
	if (s->watchdog < 0)
		warning("impl %s: no watchdog process (%s): a killed harness may leave it running",
			impl->name, strerror(errno));
	if (impl->cpus) {
		s->cpus_method = account_has_cpuset(s->acct)
			? (account_backend(s->acct) == ACCT_CGROUP2 ? "cgroup2 cpuset" : "cgroup1 cpuset")
			: "sched_setaffinity";
	}
	s->cpus = cpuset_readback(s->pid);
}

/* Started by cfg->starter (sut.h): its process, accounting and
 * namespace are the sut's from here. */
static int sut_start_ext(struct sut *s, const struct sut_config *cfg, const char *wd, int out,
			 int err)
{
	struct sut_proc p;

	memset(&p, 0, sizeof(p));
	p.pid = p.main = -1;
	p.netns_fd = -1;
	if (cfg->starter->start(cfg->starter->ctx, cfg, wd, s->port, out, err, &p))
		return -1;
	s->starter = cfg->starter;
	s->pid = p.pid;
	s->acct = p.acct;
	s->netns_fd = p.netns_fd;
	s->fwd = p.fwd;
	s->argv_text = p.argv_text;
	s->watchdog = spawn_watchdog(s->pid, s->acct, cfg->quota_dir, &s->wd_fd);
	if (s->watchdog < 0)
		warning("impl %s: no watchdog process (%s): a killed harness may leave it running",
			s->name, strerror(errno));
	if (p.cpus_method)
		s->cpus_method = p.cpus_method;
	s->cpus = cpuset_readback(p.main);
	s->ext_main = p.main;
	return 0;
}

struct sut *sut_start(const struct sut_config *cfg)
{
	const struct spec_impl *impl = cfg->impl;
	const char *wd = cfg->workdir ? cfg->workdir : impl->repo;
	struct jail_fds j;
	struct spawn sp;
	struct sbuf what = SBUF_INIT;
	char **env = NULL, **argv = NULL;
	int out = -1, err = -1;
	cpu_set_t cpus;
	struct sut *s;

	jail_fds_init(&j);
	s = sut_new(cfg, wd, &cpus);
	if (!s || sut_open_logs(s, cfg, &out, &err))
		goto fail;
	if (cfg->starter) {
		if (sut_start_ext(s, cfg, wd, out, err))
			goto fail;
		goto out;
	}
	if (sut_open_account(s, cfg))
		goto fail;
	env = spawn_env(impl, s->port, cfg->run_as_uid, wd);
	argv = spec_subst_port_argv(impl->start, s->port);
	memset(&sp, 0, sizeof(sp));
	sp.out_fd = out;
	sp.err_fd = err;
	if (cfg->jail && jail_prepare(s, cfg, wd, &argv, &env, &sp, &j))
		goto fail;
	s->argv_text = jail_argv_text(argv);
	sp.argv = argv;
	sp.envp = env;
	sp.cwd = wd;
	sp.acct = s->acct;
	if (impl->cpus && !account_has_cpuset(s->acct))
		sp.cpus = &cpus;
	sp.uid = cfg->run_as_uid;
	sp.gid = cfg->run_as_gid;
	sbuf_addf(&what, "impl %s: start", impl->name);
	sp.what = what.buf;
	s->exec_ns = now_ns();
	s->pid = spawn_run(&sp);
	jail_fds_spawned(&j);
	if (s->pid < 0)
		goto fail;
	account_attach(s->acct, s->pid);
	if (cfg->jail && jail_release(s, cfg, &j))
		goto fail;
	sut_watch(s, impl, cfg->quota_dir);
	goto out;
fail:
	if (s)
		sut_free(s);
	s = NULL;
out:
	close_fd(&out);
	close_fd(&err);
	jail_fds_close(&j);
	strv_free(env);
	strv_free(argv);
	sbuf_release(&what);
	return s;
}

/* ------------------------------------------------------------ health */

static size_t discard(char *p, size_t sz, size_t n, void *ud)
{
	return sz * n;
}

/* One try of the health URL through a multi handle, polled every 50 ms so
 * a set stop flag ends the try at once (an easy perform would block up to
 * its 1 s timeout). CURLE_ABORTED_BY_CALLBACK when stopped. */
static CURLcode health_try(CURL *c, volatile sig_atomic_t *stop)
{
	CURLM *m = curl_multi_init();
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	CURLMsg *msg;
	int running = 1, left;

	if (!m)
		return rc;
	if (curl_multi_add_handle(m, c) != CURLM_OK)
		goto out;
	rc = CURLE_ABORTED_BY_CALLBACK;
	while (running) {
		if (stop && *stop)
			goto remove;
		if (curl_multi_perform(m, &running) != CURLM_OK) {
			rc = CURLE_RECV_ERROR;
			goto remove;
		}
		if (running)
			curl_multi_poll(m, NULL, 0, 50, NULL);
	}
	rc = CURLE_RECV_ERROR;
	while ((msg = curl_multi_info_read(m, &left)))
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
remove:
	curl_multi_remove_handle(m, c);
out:
	curl_multi_cleanup(m);
	return rc;
}

int sut_wait_healthy(struct sut *s, double timeout_s)
{
	CURL *c = NULL;
	uint64_t t0 = now_ns(), deadline;
	long code = 0;
	CURLcode rc = CURLE_OK;
	char desc[128];
	int ret = -1, stopped = 0;

	if (timeout_s <= 0)
		timeout_s = 30;
	deadline = t0 + (uint64_t)(timeout_s * 1e9);
	if (!s->health_url) {
		if (!sut_exited(s))
			return 0;
		error("impl %s %s right after start; %s ends:", s->name,
		      spawn_status_desc(s->status, desc, sizeof(desc)), s->err_path);
		sut_print_tail(s->err_path, s->err_off, TAIL_LINES);
		return -1;
	}
	c = curl_easy_init();
	if (!c)
		return error("impl %s: cannot initialise libcurl", s->name);
	curl_easy_setopt(c, CURLOPT_URL, s->health_url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	if (s->health_tcp)
		curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	netns_curl(c, &s->netns_fd);
	if (s->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, s->ca_file);
	if (s->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	for (;;) {
		long left_ms = (long)((deadline - now_ns()) / 1000000);
		if (sut_exited(s)) {
			error("impl %s %s before becoming healthy at %s; %s ends:", s->name,
			      spawn_status_desc(s->status, desc, sizeof(desc)), s->health_url, s->err_path);
			break;
		}
		if (s->stop && *s->stop) {
			error("impl %s: interrupted while waiting for %s", s->name, s->health_url);
			stopped = 1;
			break;
		}
		if (now_ns() >= deadline) {
			if (rc != CURLE_OK)
				error("impl %s: not healthy after %.1f s at %s (last try: %s); %s ends:",
				      s->name, timeout_s, s->health_url, curl_easy_strerror(rc),
				      s->err_path);
			else
				error("impl %s: not healthy after %.1f s at %s (last answer: HTTP %ld); %s ends:",
				      s->name, timeout_s, s->health_url, code, s->err_path);
			break;
		}
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms < 1000 ? (left_ms > 10 ? left_ms : 10) : 1000L);
		rc = health_try(c, s->stop);
		code = 0;
		if (rc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (rc == CURLE_OK && (s->health_tcp || (code >= 200 && code < 300))) {
			s->healthy_ns = now_ns();
			ret = 0;
			break;
		}
		usleep(50000);
	}
	if (ret && !stopped)
		sut_print_tail(s->err_path, s->err_off, TAIL_LINES);
	curl_easy_cleanup(c);
	return ret;
}

/* The last non-empty line of path from byte offset from into buf ("" when
 * none), after the last different line before it when there is one
 * ("bind() ... failed (98: Address already in use) | still could not
 * bind()"): the reason a server gives when it exits, for a one-line
 * error. */
static void last_line(const char *path, long from, char *buf, size_t n)
{
	char tail[1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t start;
	ssize_t got;
	char *b, *e, *p;

	buf[0] = '\0';
	if (fd < 0)
		return;
	start = lseek(fd, 0, SEEK_END) - (off_t)sizeof(tail) + 1;
	got = pread(fd, tail, sizeof(tail) - 1, start < from ? from : start);
	close(fd);
	if (got <= 0)
		return;
	while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r'))
		got--;
	tail[got] = '\0';
	b = strrchr(tail, '\n');
	if (!b) {
		snprintf(buf, n, "%s", tail);
		return;
	}
	*b = '\0';
	for (p = b; (e = strrchr(tail, '\n')) || p > tail; p = e) {
		const char *prev = e ? e + 1 : tail;

		if (*prev && strcmp(prev, b + 1)) {
			snprintf(buf, n, "%.500s | %.500s", prev, b + 1);
			return;
		}
		if (!e)
			break;
		*e = '\0';
	}
	snprintf(buf, n, "%s", b + 1);
}

/* One connect to 127.0.0.1:port, in the sut's namespace when jailed. */
static int port_accepts(const struct sut *s)
{
	struct sockaddr_in sa;
	int fd = netns_socket(s->netns_fd, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)s->port);
	ok = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return ok;
}

int sut_wait_listening(struct sut *s, double timeout_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	char desc[128], why[1024];

	for (;;) {
		if (port_accepts(s))
			return 0;
		if (sut_exited(s)) {
			last_line(s->err_path, s->err_off, why, sizeof(why));
			error("impl %s %s before listening on its assigned port %d%s%s", s->name,
			      spawn_status_desc(s->status, desc, sizeof(desc)), s->port,
			      why[0] ? ": " : " (its stderr is empty)", why);
			break;
		}
		if ((s->stop && *s->stop) || now_ns() >= deadline) {
			if (s->stop && *s->stop)
				return -1;
			error("impl %s answered its health check at %s but does not listen on its"
			      " assigned port %d after %.1f s: its start or env must use {port}",
			      s->name, s->health_url ? s->health_url : "(none)", s->port, timeout_s);
			break;
		}
		usleep(50000);
	}
	sut_print_tail(s->err_path, s->err_off, TAIL_LINES);
	return -1;
}

/* ------------------------------------------------------------ state */

int sut_port(const struct sut *s) { return s->port; }

double sut_startup_ms(const struct sut *s)
{
	if (!s->healthy_ns || s->healthy_ns < s->exec_ns)
		return NAN;
	return (double)(s->healthy_ns - s->exec_ns) / 1e6;
}
const char *sut_url(const struct sut *s) { return s->url; }
const char *sut_stats_url(const struct sut *s) { return s->stats_url; }
pid_t sut_pid(const struct sut *s) { return s->pid; }
pid_t sut_tree_pgid(const struct sut *s) { return s->starter ? s->ext_main : s->pid; }
int sut_netns(const struct sut *s) { return s->netns_fd; }
const char *sut_argv_text(const struct sut *s) { return s->argv_text; }
const char *sut_stdout_path(const struct sut *s) { return s->out_path; }
const char *sut_stderr_path(const struct sut *s) { return s->err_path; }
int sut_exit_status(const struct sut *s) { return s->status; }
const char *sut_cpus(const struct sut *s) { return s->cpus; }
const char *sut_cpus_method(const struct sut *s) { return s->cpus_method; }
struct account *sut_account(struct sut *s) { return s->acct; }

unsigned long sut_relay_refused(struct sut *s)
{
	return s->fwd ? portfwd_refused(s->fwd) : s->relay_refused;
}

const char *sut_exit_desc(const struct sut *s, char *buf, size_t n)
{
	if (!s->exited) {
		snprintf(buf, n, "running");
		return buf;
	}
	return spawn_status_desc(s->status, buf, n);
}

/* Reap the leader if it has exited (block: wait for it). */
static int reap(struct sut *s, int block)
{
	struct rusage ru;
	int st;
	pid_t r;

	if (s->exited || s->pid <= 0)
		return s->exited;
	do
		r = wait4(s->pid, &st, block ? 0 : WNOHANG, &ru);
	while (r < 0 && errno == EINTR);
	if (r == s->pid) {
		s->exited = 1;
		s->status = st;
		if (!s->starter)  /* a starter's process is not its tree's root */
			account_note_reaped(s->acct, &ru);
	} else if (r < 0 && errno == ECHILD) {
		s->exited = 1;          /* reaped elsewhere: status unknown */
		s->status = 0;
	}
	return s->exited;
}

int sut_exited(struct sut *s)
{
	if (s->stopped)
		return 0;
	return reap(s, 0);
}

/* Its starter stops it (a container: the engine's SIGTERM, SIGKILL after
 * the grace), its process ends with it, then nothing of it is left. */
static void sut_stop_ext(struct sut *s)
{
	uint64_t deadline;

	if (s->acct)
		account_freeze(s->acct, 0);
	s->starter->stop(s->starter->ctx, s->grace_s);
	deadline = now_ns() + 2000000000ull;
	while (!reap(s, 0) && now_ns() < deadline)
		usleep(10000);
	if (s->acct && account_nprocs(s->acct) > 0)
		account_kill_all(s->acct, 2.0);
	spawn_kill_all(s->pid, NULL);
	reap(s, 1);
	s->starter->remove(s->starter->ctx);
}

void sut_stop(struct sut *s)
{
	uint64_t deadline;
	int n;

	if (!s || s->stopped || s->pid <= 0)
		return;
	if (s->starter) {
		sut_stop_ext(s);
		goto stopped;
	}
	/* a frozen implementation would sleep through SIGTERM's grace */
	if (s->acct)
		account_freeze(s->acct, 0);
	if (!reap(s, 0) || (s->acct && account_nprocs(s->acct) > 0)) {
		/* whatever left the group (setsid daemons) but not the cgroup,
		 * first: procfs finds them through the leader, which the
		 * group's SIGTERM may end (and orphan them) at once */
		if (s->acct)
			account_signal_all(s->acct, SIGTERM);
		kill(-s->pid, SIGTERM);
		deadline = now_ns() + (uint64_t)(s->grace_s * 1e9);
		while (now_ns() < deadline) {
			reap(s, 0);
			n = s->acct ? account_nprocs(s->acct) : 0;
			/* procfs lists the reaped leader no more: n counts the rest */
			if (s->exited && n <= 0)
				break;
			usleep(10000);
		}
	}
	spawn_kill_all(s->pid, s->acct);
	reap(s, 1);
stopped:
	s->stopped = 1;
	spawn_relay_wait(s->relay, 2.0);
	s->relay = -1;
	s->relay_refused = portfwd_refused(s->fwd);
	portfwd_stop(s->fwd);
	s->fwd = NULL;
	spawn_watchdog_release(s->watchdog, s->wd_fd);
	s->watchdog = -1;
	s->wd_fd = -1;
}

void sut_free(struct sut *s)
{
	if (!s)
		return;
	sut_stop(s);
	spawn_watchdog_release(s->watchdog, s->wd_fd);
	spawn_relay_wait(s->relay, 2.0);
	portfwd_stop(s->fwd);
	if (s->netns_fd >= 0)
		close(s->netns_fd);
	account_free(s->acct);
	if (s->starter)
		s->starter->remove(s->starter->ctx);
	free(s->argv_text);
	free(s->name);
	free(s->health_url);
	free(s->ca_file);
	free(s->stats_url);
	free(s->out_path);
	free(s->err_path);
	free(s->cpus);
	free(s);
}

void sut_reap_leftovers(void)
{
	ctr_reap_leftovers();      /* armops_ctr.c's containers (ctr.h) */
	account_reap_leftovers();
}
