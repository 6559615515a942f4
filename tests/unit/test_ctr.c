/*
 * test_ctr: the container engine's argv (every flag the harness relies
 * on), the spec's container block (its checks and its Containerfile in
 * the spec hash), the CLI runner, and the accounting of a cgroup found
 * from a pid. No engine is needed: tests/e2e/containers.sh runs podman.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "account/account.h"
#include "sut/ctr.h"
#include "spec/spec.h"
#include "t.h"
#include "base/util.h"

static const char *const head =
	"version: 1\nname: t\nslo: { threshold_ms: 20 }\n"
	"workload: { requests: [ { name: r, path: / } ] }\n"
	"stages: { ladder: { start_rps: 10, step: 2, max_rps: 20, window_s: 5, discard_s: 1 } }\n";

static char dir[] = "/tmp/test_ctr.XXXXXX";

static struct spec *parse(const char *impls, struct sbuf *errs)
{
	struct sbuf sb = SBUF_INIT, path = SBUF_INIT;
	struct spec *s;

	sbuf_adds(&sb, head);
	sbuf_adds(&sb, impls);
	sbuf_addf(&path, "%s/t.yaml", dir);
	s = spec_parse_diag(sb.buf, sb.len, path.buf, dir, errs);
	sbuf_release(&sb);
	sbuf_release(&path);
	return s;
}

static int has(char **argv, const char *word)
{
	for (; argv && *argv; argv++)
		if (!strcmp(*argv, word))
			return 1;
	return 0;
}

static int index_of(char **argv, const char *word)
{
	int i;

	for (i = 0; argv && argv[i]; i++)
		if (!strcmp(argv[i], word))
			return i;
	return -1;
}

static const char *const boxed =
	"implementations:\n"
	"  - name: Boxed\n"
	"    container: { containerfile: Containerfile, args: [--port, \"{port}\"],\n"
	"                 env: { MODE: \"p{port}\" } }\n"
	"    env: { A: b }\n"
	"    health: { url: \"http://127.0.0.1:{port}/\" }\n"
	"    cpus: \"0\"\n"
	"    limits: { memory_mb: 64, pids: 100 }\n";

static void write_cf(const char *text)
{
	struct sbuf p = SBUF_INIT;
	FILE *f;

	sbuf_addf(&p, "%s/Containerfile", dir);
	f = fopen(p.buf, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	sbuf_release(&p);
}

TEST(create_argv_has_limits_ulimits_and_lifecycle_off)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s = parse(boxed, &errs);
	struct ctr_engine e = { CTR_PODMAN, "/usr/bin/podman", "4.3.1", "runc" };
	struct ctr_create c;
	char **v;
	int img;

	CHECK(s != NULL);
	if (!s)
		return;
	memset(&c, 0, sizeof(c));
	c.impl = &s->impls[0];
	c.name = "harness-h1_2-x-1";
	c.owner = "h1_2";
	c.image = "localhost/x:1";
	c.port = 8080;
	c.lim.memory_bytes = 64 << 20;
	c.lim.pids = 100;
	c.lim.cpu_max = 1.5;
	c.lim.cpus = "0";
	c.lim.nofile = 20000;
	c.lim.nproc = 4096;
	v = ctr_argv_create(&e, &c);
	CHECK_STR(v[0], "/usr/bin/podman");
	CHECK_STR(v[1], "--runtime=runc");
	CHECK_STR(v[2], "create");
	CHECK(has(v, "--name=harness-h1_2-x-1"));
	CHECK(has(v, "--label=harness.owner=h1_2"));
	CHECK(has(v, "--network=none"));
	CHECK(has(v, "--pull=never"));
	CHECK(has(v, "--restart=no"));
	CHECK(has(v, "--no-healthcheck"));
	CHECK(has(v, "--memory=67108864b"));
	CHECK(has(v, "--memory-swap=67108864b"));
	CHECK(has(v, "--pids-limit=100"));
	CHECK(has(v, "--cpu-quota=150000"));
	CHECK(has(v, "--cpuset-cpus=0"));
	CHECK(has(v, "--ulimit=nofile=20000:20000"));
	CHECK(has(v, "--ulimit=nproc=4096:4096"));
	CHECK(has(v, "--env=A=b"));
	CHECK(has(v, "--env=MODE=p8080"));
	CHECK(!has(v, "--cap-drop=all"));
	img = index_of(v, "localhost/x:1");
	/* the image, then its arguments with {port} substituted, last */
	CHECK(img > 0 && v[img + 1] && !strcmp(v[img + 1], "--port") && v[img + 2] &&
	      !strcmp(v[img + 2], "8080") && !v[img + 3]);
	strv_free(v);
	c.untrusted = 1;
	c.host_network = 1;
	v = ctr_argv_create(&e, &c);
	CHECK(has(v, "--network=host"));
	CHECK(has(v, "--cap-drop=all"));
	CHECK(has(v, "--read-only"));
	CHECK(has(v, "--security-opt=no-new-privileges"));
	CHECK(has(v, "--uidmap=0:200000:65536"));
	strv_free(v);
	/* docker has no --uidmap (its daemon's --userns-remap: sut_ctr.c
	 * refuses an untrusted container without it) */
	e.kind = CTR_DOCKER;
	e.path = "/usr/bin/docker";
	e.runtime = NULL;
	v = ctr_argv_create(&e, &c);
	CHECK_STR(v[1], "create");
	CHECK(has(v, "--cap-drop=all"));
	CHECK(has(v, "--read-only"));
	CHECK(!has(v, "--uidmap=0:200000:65536"));
	CHECK(!has(v, "--gidmap=0:200000:65536"));
	strv_free(v);
	spec_free(s);
	sbuf_release(&errs);
}

TEST(build_argv_has_no_network_and_the_limits)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s;
	struct ctr_engine e = { CTR_PODMAN, "/usr/bin/podman", "4.3.1", NULL };
	struct ctr_limits lim = { 64 << 20, 0, 2, NULL, 1024, 512 };
	char **v;
	char *ref;

	write_cf("FROM scratch\n");
	s = parse(boxed, &errs);
	CHECK(s != NULL);
	if (!s)
		return;
	v = ctr_argv_build(&e, &s->impls[0], "/w", &lim);
	ref = ctr_image_ref(&s->impls[0], "/w");
	CHECK_STR(v[1], "build");
	CHECK(has(v, "--network=none"));
	CHECK(has(v, "--pull=never"));
	CHECK(has(v, "--file=/w/Containerfile"));
	CHECK(has(v, "--memory=67108864b"));
	CHECK(has(v, "--cpu-quota=200000"));
	CHECK(has(v, "--ulimit=nofile=1024:1024"));
	CHECK(!has(v, "--pids-limit=100"));     /* build takes none */
	CHECK(strncmp(ref, "localhost/harness-boxed:", 24) == 0 && strlen(ref) == 24 + 12);
	{
		struct sbuf t = SBUF_INIT;

		sbuf_addf(&t, "--tag=%s", ref);
		CHECK(has(v, t.buf));
		sbuf_reset(&t);
		sbuf_addf(&t, "--label=harness.containerfile=sha256:%s", s->impls[0].ctr.cf_hash);
		CHECK(has(v, t.buf));
		sbuf_release(&t);
	}
	CHECK_STR(v[index_of(v, "/w/.")], "/w/.");    /* the context, last */
	CHECK(v[index_of(v, "/w/.") + 1] == NULL);
	free(ref);
	/* another checkout, another tag: a rerun's image never replaces the base's */
	ref = ctr_image_ref(&s->impls[0], "/w2");
	CHECK(strncmp(ref, "localhost/harness-boxed:", 24) == 0);
	CHECK(!has(v, ref));
	free(ref);
	{
		/* a rerun's control arm "NAME@base": '@' is no repository character */
		struct spec_impl im = s->impls[0];

		im.name = "Boxed@base";
		ref = ctr_image_ref(&im, "/w");
		CHECK(strncmp(ref, "localhost/harness-boxed-base:", 29) == 0);
		free(ref);
	}
	strv_free(v);
	spec_free(s);
	sbuf_release(&errs);
}

TEST(spec_checks_the_container_block)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *s;

	s = parse("implementations:\n  - name: a\n    start: [x]\n    container: { image: i }\n"
		  "    health: { url: \"http://127.0.0.1:{port}/\" }\n", &errs);
	CHECK(!s && strstr(errs.buf, "implementations[0].start: not with container"));
	spec_free(s);
	sbuf_reset(&errs);
	s = parse("implementations:\n  - name: a\n    container: { args: [x] }\n"
		  "    health: { url: \"http://127.0.0.1:{port}/\" }\n", &errs);
	CHECK(!s && strstr(errs.buf, "implementations[0].container: needs image"));
	spec_free(s);
	sbuf_reset(&errs);
	s = parse("implementations:\n  - name: a\n    container: { containerfile: /etc/x }\n"
		  "    health: { url: \"http://127.0.0.1:{port}/\" }\n", &errs);
	CHECK(!s && strstr(errs.buf, "containerfile: '/etc/x': must be relative to repo"));
	spec_free(s);
	sbuf_reset(&errs);
	s = parse("implementations:\n  - name: a\n    health: { url: \"http://127.0.0.1:{port}/\" }\n",
		  &errs);
	CHECK(!s && strstr(errs.buf, "implementations[0].start: required key missing"));
	spec_free(s);
	sbuf_reset(&errs);
	s = parse("implementations:\n  - name: a\n    container: { image: i, port: 70000 }\n"
		  "    health: { url: \"http://127.0.0.1:{port}/\" }\n", &errs);
	CHECK(!s && strstr(errs.buf, "container.port"));
	spec_free(s);
	sbuf_release(&errs);
}

TEST(containerfile_is_in_the_spec_hash)
{
	struct sbuf errs = SBUF_INIT;
	struct spec *a, *b, *c;

	write_cf("FROM scratch\nCOPY a /a\n");
	a = parse(boxed, &errs);
	write_cf("FROM scratch\nCOPY b /a\n");
	b = parse(boxed, &errs);
	c = parse(boxed, &errs);
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK(strcmp(a->hash, b->hash) != 0);
		CHECK_STR(b->hash, c->hash);
		CHECK(strlen(a->impls[0].ctr.cf_hash) == 64);
		CHECK(a->impls[0].ctr.engine == CTR_PODMAN);
		CHECK_STR(a->impls[0].ctr.context, ".");
	}
	spec_free(a);
	spec_free(b);
	spec_free(c);
	sbuf_release(&errs);
}

TEST(exec_captures_output_exit_and_timeout)
{
	char *echo[] = { "/bin/echo", "hi", NULL };
	char *fail[] = { "/bin/sh", "-c", "echo oops >&2; exit 3", NULL };
	char *slow[] = { "/bin/sleep", "5", NULL };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	uint64_t t0;

	CHECK(ctr_exec(echo, 5, &out, &err) == 0);
	CHECK_STR(out.buf, "hi\n");
	CHECK(ctr_exec(fail, 5, NULL, &err) == 3);
	CHECK_STR(err.buf, "oops\n");
	t0 = now_ns();
	CHECK(ctr_exec(slow, 0.2, NULL, NULL) == -1);
	/* killed at its deadline, not after its 5 s */
	CHECK((now_ns() - t0) / 1e9 < 2.0);
	sbuf_release(&out);
	sbuf_release(&err);
}

/* The engine runs in the directory it is given (conmon writes "oom" in
 * its working directory: never the user's); a missing one: 126. */
TEST(exec_runs_in_the_directory_given)
{
	char *pwd[] = { "/bin/pwd", NULL };
	struct sbuf out = SBUF_INIT;

	CHECK(ctr_exec_in(pwd, "/usr/bin", 5, &out, NULL) == 0);
	CHECK_STR(out.buf, "/usr/bin\n");
	CHECK(ctr_exec_in(pwd, "/nonexistent-ctr-dir", 5, NULL, NULL) == -1);
	sbuf_release(&out);
}

TEST(ulimits_are_within_the_hard_limits)
{
	struct rlimit r;
	uint64_t nofile, nproc;

	ctr_ulimits(&nofile, &nproc);
	CHECK(!getrlimit(RLIMIT_NOFILE, &r));
	CHECK(nofile > 0 && (r.rlim_max == RLIM_INFINITY || nofile <= r.rlim_max));
	CHECK(nofile <= CTR_NOFILE_MAX);
	CHECK(!getrlimit(RLIMIT_NPROC, &r));
	CHECK(nproc > 0 && (r.rlim_max == RLIM_INFINITY || nproc <= r.rlim_max));
	CHECK(nproc <= CTR_NPROC_MAX);
}

TEST(account_from_a_pid_reads_its_cgroup)
{
	enum acct_backend b = account_detect();
	struct account *a = account_open_pid(ACCT_AUTO, getpid(), 50);
	struct account_window w;
	volatile double x = 0;
	int i;

	CHECK(a != NULL);
	if (!a)
		return;
	CHECK(account_backend(a) == b);
	CHECK(account_window_begin(a) == 0);
	for (i = 0; i < 20000000; i++)
		x += i;
	CHECK(account_window_end(a, &w) == 0);
	/* this process burnt CPU in its own cgroup (or tree): counted */
	CHECK(w.cpu_s > 0);
	account_window_release(&w);
	account_free(a);
	/* a pid that is not there: one error, no account */
	CHECK(account_open_pid(ACCT_CGROUP1, 999999999, 50) == NULL);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	write_cf("FROM scratch\n");
	RUN(create_argv_has_limits_ulimits_and_lifecycle_off);
	RUN(build_argv_has_no_network_and_the_limits);
	RUN(spec_checks_the_container_block);
	RUN(containerfile_is_in_the_spec_hash);
	RUN(exec_captures_output_exit_and_timeout);
	RUN(exec_runs_in_the_directory_given);
	RUN(ulimits_are_within_the_hard_limits);
	RUN(account_from_a_pid_reads_its_cgroup);
	{
		struct sbuf p = SBUF_INIT;

		sbuf_addf(&p, "%s/Containerfile", dir);
		unlink(p.buf);
		rmdir(dir);
		sbuf_release(&p);
	}
	return t_done();
}
