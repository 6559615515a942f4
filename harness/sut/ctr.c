/*
 * ctr: the engine found and asked (ctr.h): its version, the CLI run with
 * its output captured, inspect of containers and images, the provenance
 * line, and the leftovers of a killed harness.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "account/account.h"
#include "sut/ctr.h"
#include "base/util.h"

#define OUT_MAX (1024 * 1024)

const char *ctr_engine_name(int kind)
{
	return kind == CTR_DOCKER ? "docker" : "podman";
}

/* The absolute path of a program in PATH, or NULL. malloc'd. */
static char *which(const char *prog)
{
	const char *path = getenv("PATH");
	struct sbuf sb = SBUF_INIT;
	const char *p, *end;

	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		sbuf_reset(&sb);
		sbuf_addf(&sb, "%.*s/%s", (int)(end - p), p, prog);
		if (end > p && !access(sb.buf, X_OK))
			return sbuf_detach(&sb, NULL);
	}
	sbuf_release(&sb);
	return NULL;
}

/* The last non-empty line of text (for one-line errors), in place. */
static const char *last_line(struct sbuf *sb)
{
	char *s = sb->buf, *nl;

	while (sb->len && (s[sb->len - 1] == '\n' || s[sb->len - 1] == ' '))
		s[--sb->len] = '\0';
	nl = strrchr(s, '\n');
	return nl ? nl + 1 : s;
}

/* The engine's version, asked once per process and kind (one engine
 * call costs 0.1-1 s on a loaded host; a run starts containers often). */
static char *cached_version[2];

int ctr_engine_open(int kind, struct ctr_engine *e)
{
	const char *name = ctr_engine_name(kind);
	char *argv[] = { NULL, "version", "--format", "{{.Client.Version}}", NULL };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char *runc;
	int rc;

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->path = which(name);
	if (!e->path)
		return error("container engine %s not found in PATH (Debian package %s)", name,
			     kind == CTR_DOCKER ? "docker.io" : "podman");
	argv[0] = e->path;
	if (cached_version[kind == CTR_DOCKER]) {
		e->version = xstrdup(cached_version[kind == CTR_DOCKER]);
		goto runtime;
	}
	rc = ctr_exec(argv, 30, &out, &err);
	if (rc != 0) {
		if (rc > 0)
			error("%s version: exit %d: %s", e->path, rc, last_line(&err));
		goto fail;
	}
	e->version = xstrdup(last_line(&out));
	cached_version[kind == CTR_DOCKER] = xstrdup(e->version);
runtime:
	/* crun (podman's default where installed) refuses hosts with cgroup
	 * v1 controllers ("hybrid mode not supported"): runc takes them */
	runc = kind == CTR_PODMAN && account_detect() == ACCT_CGROUP1 ? which("runc") : NULL;
	if (runc)
		e->runtime = "runc";
	free(runc);
	sbuf_release(&out);
	sbuf_release(&err);
	return 0;
fail:
	sbuf_release(&out);
	sbuf_release(&err);
	ctr_engine_release(e);
	return -1;
}

void ctr_engine_release(struct ctr_engine *e)
{
	free(e->path);
	free(e->version);
	e->path = e->version = NULL;
}

/* ------------------------------------------------------------ exec */

/* The child: stdin /dev/null, stdout/stderr to the pipes, own group. */
static void exec_child(char *const *argv, const char *cwd, int out_w, int err_w)
{
	int fd = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0 ||
	    (cwd && chdir(cwd)))
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	execv(argv[0], argv);
	_exit(127);
}

/* Read both pipes until both close or the deadline; 0, or -1 timed out. */
static int drain(int out_r, int err_r, struct sbuf *out, struct sbuf *err, uint64_t deadline)
{
	struct pollfd p[2] = { { out_r, POLLIN, 0 }, { err_r, POLLIN, 0 } };
	struct sbuf *dst[2] = { out, err };
	char buf[4096];
	int open_n = 2, i;

	while (open_n) {
		int64_t left = (int64_t)(deadline - now_ns()) / 1000000;

		if (left <= 0)
			return -1;
		if (poll(p, 2, left > 200 ? 200 : (int)left) < 0 && errno != EINTR)
			return -1;
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				p[i].fd = -1;
				open_n--;
			} else if (dst[i] && dst[i]->len < OUT_MAX) {
				sbuf_add(dst[i], buf, (size_t)n);
			}
		}
	}
	return 0;
}

int ctr_exec(char *const *argv, double timeout_s, struct sbuf *out, struct sbuf *err)
{
	return ctr_exec_in(argv, NULL, timeout_s, out, err);
}

int ctr_exec_in(char *const *argv, const char *cwd, double timeout_s, struct sbuf *out,
		struct sbuf *err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, st = 0, timed_out;
	uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		error("%s: pipe: %s", argv[0], strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		error("%s: fork: %s", argv[0], strerror(errno));
		goto fail;
	}
	if (pid == 0)
		exec_child(argv, cwd, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	timed_out = drain(po[0], pe[0], out, err, deadline);
	close(po[0]);
	close(pe[0]);
	if (timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return error("%s %s: no answer within %g s (killed)", argv[0], argv[1], timeout_s);
	if (!WIFEXITED(st))
		return error("%s %s: killed by signal %d", argv[0], argv[1], WTERMSIG(st));
	if (WEXITSTATUS(st) == 127 || WEXITSTATUS(st) == 126)
		return error("%s: cannot be run", argv[0]);
	return WEXITSTATUS(st);
fail:
	if (po[0] >= 0) {
		close(po[0]);
		close(po[1]);
	}
	return -1;
}

/* ------------------------------------------------------------ inspect */

/* ENGINE inspect [--type T] --format FMT NAME: its output's last line
 * into *val (malloc'd). 0, or -1 after error(). */
static int inspect(const struct ctr_engine *e, const char *type, const char *name,
		   const char *fmt, char **val)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char *argv[] = { e->path, "inspect", "--type", (char *)type, "--format", (char *)fmt,
			 (char *)name, NULL };
	int rc = ctr_exec(argv, 30, &out, &err);

	*val = NULL;
	if (rc > 0)
		error("%s inspect %s: %s", ctr_engine_name(e->kind), name, last_line(&err));
	else if (!rc)
		*val = xstrdup(last_line(&out));
	sbuf_release(&out);
	sbuf_release(&err);
	return rc ? -1 : 0;
}

int ctr_inspect_pid(const struct ctr_engine *e, const char *name, pid_t *pid)
{
	char *v = NULL;
	int ret = inspect(e, "container", name, "{{.State.Pid}}", &v);

	*pid = ret ? 0 : (pid_t)atol(v);
	free(v);
	return ret;
}

int ctr_image_info(const struct ctr_engine *e, const char *image, char **id, char **digest)
{
	*digest = NULL;
	if (inspect(e, "image", image, "{{.Id}}", id))
		return -1;
	/* podman 4 gives a local build or import its manifest's digest
	 * (localhost/NAME@sha256:...); docker none: RepoDigests empty */
	if (inspect(e, "image", image, "{{range .RepoDigests}}{{.}} {{end}}", digest))
		*digest = xstrdup("");
	return 0;
}

int ctr_userns(const struct ctr_engine *e)
{
	char *argv[] = { e->path, "info", "--format", "{{json .SecurityOptions}}", NULL };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	int rc, ret = -1;

	if (e->kind != CTR_DOCKER)
		return 1;
	rc = ctr_exec(argv, 30, &out, &err);
	if (rc > 0)
		error("%s info: exit %d: %s", e->path, rc, last_line(&err));
	else if (!rc)
		ret = out.len && strstr(out.buf, "name=userns") != NULL;
	sbuf_release(&out);
	sbuf_release(&err);
	return ret;
}

int ctr_provenance(const struct ctr_engine *e, const struct spec_impl *im, const char *workdir,
		   char **version, char **full)
{
	char *ref = ctr_image_ref(im, workdir), *id = NULL, *digest = NULL;
	struct sbuf sb = SBUF_INIT;
	const char *hex;
	size_t n;
	int ret = -1;

	*version = *full = NULL;
	if (ctr_image_info(e, ref, &id, &digest))
		goto out;
	n = strlen(digest);
	while (n && digest[n - 1] == ' ')
		digest[--n] = '\0';
	hex = strncmp(id, "sha256:", 7) ? id : id + 7;
	sbuf_addf(&sb, "container %s %.12s, %s %s", ref, hex, ctr_engine_name(e->kind), e->version);
	*version = sbuf_detach(&sb, NULL);
	sbuf_addf(&sb, "image %s sha256:%s (digest %s), %s %s", ref, hex,
		  *digest ? digest : "none: built here", ctr_engine_name(e->kind), e->version);
	if (e->runtime)
		sbuf_addf(&sb, " --runtime=%s", e->runtime);
	if (im->ctr.containerfile)
		sbuf_addf(&sb, ", %s sha256 %s", im->ctr.containerfile,
			  im->ctr.cf_hash[0] ? im->ctr.cf_hash : "(not in the spec's tree)");
	*full = sbuf_detach(&sb, NULL);
	ret = 0;
out:
	free(ref);
	free(id);
	free(digest);
	return ret;
}

/* ------------------------------------------------------------ leftovers */

/* The start time of pid (clock ticks since boot, /proc/PID/stat field
 * 22), 0 when it does not exist: with the pid, an owner PID reuse cannot
 * impersonate. */
static unsigned long long pid_starttime(pid_t pid)
{
	struct sbuf sb = SBUF_INIT, path = SBUF_INIT;
	unsigned long long t = 0;
	const char *p;
	int field;

	sbuf_addf(&path, "/proc/%ld/stat", (long)pid);
	if (!access(path.buf, R_OK) && !read_file(path.buf, &sb, 4096) &&
	    (p = strrchr(sb.buf, ')'))) {
		for (field = 2; *p && field < 22; p++)
			if (*p == ' ')
				field++;
		t = strtoull(p, NULL, 10);
	}
	sbuf_release(&sb);
	sbuf_release(&path);
	return t;
}

const char *ctr_owner(void)
{
	static char owner[64];

	if (!owner[0])
		snprintf(owner, sizeof(owner), "h%ld_%llu", (long)getpid(),
			 pid_starttime(getpid()));
	return owner;
}

void ctr_mark(const char *name)
{
	struct sbuf sb = SBUF_INIT;
	int fd;

	if (mkdir(CTR_MARK_DIR, 0700) && errno != EEXIST)
		goto out;
	sbuf_addf(&sb, "%s/%s", CTR_MARK_DIR, name);
	fd = open(sb.buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
out:
	sbuf_release(&sb);
}

void ctr_unmark(const char *name)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s/%s", CTR_MARK_DIR, name);
	unlink(sb.buf);
	sbuf_release(&sb);
}

/* "harness-h<pid>_<start>-..." of an owner no longer alive: 1. */
static int owner_dead(const char *name)
{
	long pid;
	unsigned long long start;

	if (sscanf(name, "harness-h%ld_%llu-", &pid, &start) != 2)
		return 0;
	return pid_starttime((pid_t)pid) != start;
}

/* rm -f the container with whichever engine has it. */
static void remove_one(const char *name)
{
	const char *engines[] = { "podman", "docker" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(engines); i++) {
		char *path = which(engines[i]);
		char *argv[] = { path, "rm", "--force", (char *)name, NULL };
		int rc = path ? ctr_exec(argv, 60, NULL, NULL) : -1;

		free(path);
		if (rc == 0)
			break;
	}
}

int ctr_reap_leftovers(void)
{
	DIR *d = opendir(CTR_MARK_DIR);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !owner_dead(de->d_name))
			continue;
		warning("removing container %s left by a harness that is gone", de->d_name);
		remove_one(de->d_name);
		ctr_unmark(de->d_name);
		n++;
	}
	closedir(d);
	return n;
}
