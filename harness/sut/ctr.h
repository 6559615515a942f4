/*
 * ctr: the container engine's command line (podman; docker with the same
 * subset), for arms that run as containers (spec.h struct
 * spec_container). The harness never talks to a daemon or a registry: it
 * runs the engine's CLI with argv vectors (fork/execve, never a shell)
 * and reads its answers.
 *
 * What the harness asks of the engine, per arm:
 *
 *   build    ENGINE build --network=none --pull=never -f CF -t TAG
 *            [--memory --cpuset-cpus --cpu-quota/--cpu-period] --ulimit ...
 *            --label harness.containerfile=SHA CONTEXT      (sut_build)
 *   create   ENGINE create --name NAME --label harness.owner=PID_START
 *            --network none (implementations) | host (dependencies)
 *            --memory/--memory-swap, --pids-limit, --cpus, --cpuset-cpus,
 *            --ulimit nofile=N:N --ulimit nproc=N:N, --restart=no,
 *            --no-healthcheck, untrusted: --cap-drop=all --read-only
 *            --security-opt=no-new-privileges --uidmap/--gidmap,
 *            --env K=V..., IMAGE ARGS...
 *   init     the container exists (its main process waits for start):
 *            its pid, cgroup and network namespace are known before it
 *            runs, so the harness relays the dependencies' ports into
 *            the namespace first (podman; docker has no init: it starts)
 *   start    ENGINE start --attach NAME, the arm's process as the harness
 *            sees it (its logs, its exit)
 *   stop     ENGINE stop -t GRACE NAME, then kill, then rm -f: nothing left
 *
 * Leftovers: each container the harness creates is named
 * "harness-<owner>-<label>" (owner "h<pid>_<starttime>" as the cgroups,
 * account.h) and has a marker file in CTR_MARK_DIR; ctr_reap_leftovers()
 * removes the containers of owners no longer alive (run and resume call
 * it before anything starts), reading only that directory when there
 * are none.
 *
 * Errors: one error() line naming the engine command and its last line
 * of stderr; callers choose the exit code.
 */
#ifndef HARNESS_CTR_H
#define HARNESS_CTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec/spec.h"

#define CTR_MARK_DIR "/run/harness-containers"
/* runc in a user namespace refused a higher RLIMIT_NPROC on the VM this
 * was built on (conmon's own hard limit): the container's nproc is at
 * most this, and at most the harness's own hard limit. */
#define CTR_NPROC_MAX 32768
#define CTR_NOFILE_MAX 1048576

struct sbuf;

struct ctr_engine {
	int kind;               /* enum ctr_engine_kind */
	char *path;             /* the CLI, absolute */
	char *version;          /* its client version, e.g. "4.3.1" */
	const char *runtime;    /* "runc" when passed as --runtime, else NULL */
};

/* The engine of `kind`: its CLI found in PATH and its version read.
 * -1 after one error() line (not installed: names the Debian package). */
int ctr_engine_open(int kind, struct ctr_engine *e);
void ctr_engine_release(struct ctr_engine *e);
const char *ctr_engine_name(int kind);  /* "podman" / "docker" */

/* ------------------------------------------------------------ argv */

/* What an arm's container gets from the harness (ctr_argv.c). */
struct ctr_limits {
	uint64_t memory_bytes;  /* 0: none */
	uint64_t pids;          /* 0: none */
	double cpu_max;         /* cores; 0: none */
	const char *cpus;       /* cpuset list, or NULL */
	uint64_t nofile, nproc; /* ulimits, soft = hard (ctr_ulimits) */
};

struct ctr_create {
	const struct spec_impl *impl;
	const char *name;       /* the container's name */
	const char *owner;      /* harness.owner label */
	const char *image;      /* image reference or id */
	int port;               /* {port} in args and env */
	int host_network;       /* 1: --network host; 0: its own namespace */
	int untrusted;          /* no capabilities, read-only root, own userns */
	struct ctr_limits lim;
};

/* The ulimits every container gets: the harness's own hard limits, at
 * most CTR_NOFILE_MAX / CTR_NPROC_MAX (default rlimits make the runtime
 * fail where the host's hard limit is lower than the engine's default). */
void ctr_ulimits(uint64_t *nofile, uint64_t *nproc);

/* 1 when im's image is built from a Containerfile (its build step, after
 * its build argv: armops_ctr.c). */
int ctr_builds_image(const struct spec_impl *im);

/* The image an arm runs: container.image, else (with a Containerfile)
 * "localhost/harness-<impl>:<12 hex of SHA-256 of the working
 * directory>", so two checkouts never share a tag. malloc'd. */
char *ctr_image_ref(const struct spec_impl *im, const char *workdir);

/* Argument vectors (NULL-terminated, malloc'd; strv_free). Each starts
 * with the engine's path and its global options. */
char **ctr_argv_build(const struct ctr_engine *e, const struct spec_impl *im,
		      const char *workdir, const struct ctr_limits *lim);
char **ctr_argv_create(const struct ctr_engine *e, const struct ctr_create *c);
/* ENGINE VERB [OPT] NAME, for init, start --attach, kill, rm -f, ... */
char **ctr_argv_verb(const struct ctr_engine *e, const char *verb, const char *opt,
		     const char *name);

/* ------------------------------------------------------------ exec */

/*
 * Run argv (argv[0] absolute), stdin /dev/null, stdout into out (at most
 * 1 MiB; NULL: discarded), stderr into err (NULL: discarded), killed
 * after timeout_s. Returns its exit code (0..255), or -1 after an
 * error() (not started, killed, timed out).
 */
int ctr_exec(char *const *argv, double timeout_s, struct sbuf *out, struct sbuf *err);
/* The same in directory cwd (NULL: the harness's). What the engine runs
 * inherits it: podman's conmon writes a file "oom" in its working
 * directory when the container's cgroup hits its memory limit. */
int ctr_exec_in(char *const *argv, const char *cwd, double timeout_s, struct sbuf *out,
		struct sbuf *err);

/* The engine's `inspect` of a container: its main pid (0 when not
 * running or created) and its image id. 0, or -1 after error(). */
int ctr_inspect_pid(const struct ctr_engine *e, const char *name, pid_t *pid);
/* An image's id ("sha256:..."; malloc'd) and its repo digests, space
 * separated (podman: a local build's too, "localhost/NAME@sha256:...";
 * docker: "" for a local build). 0, or -1 after error()
 * (names the image: not there). */
int ctr_image_info(const struct ctr_engine *e, const char *image, char **id, char **digest);
/* docker: whether its daemon runs every container in a user namespace of
 * its own (dockerd --userns-remap; `info` SecurityOptions name=userns):
 * 1 yes, 0 no, -1 after error() (no daemon). podman: 1 (--uidmap). */
int ctr_userns(const struct ctr_engine *e);

/* Where an arm's image came from, two lines for the run's record
 * (malloc'd): *version, what the report's version columns show, "container
 * REF ID12, podman 4.3.1" (the image's tag and the first 12 hex digits of
 * its id); *full, the provenance, "image REF sha256:ID (digest D), podman
 * 4.3.1 --runtime=runc, PATH sha256 H" (PATH the Containerfile). 0, or -1
 * after error() (the image is not there; both NULL). */
int ctr_provenance(const struct ctr_engine *e, const struct spec_impl *im, const char *workdir,
		   char **version, char **full);

/* ------------------------------------------------------------ leftovers */

/* "h<pid>_<starttime>" of this harness process (static). */
const char *ctr_owner(void);
/* Record / forget a container this harness created (a marker file). */
void ctr_mark(const char *name);
void ctr_unmark(const char *name);
/* Remove (rm -f) the containers of dead owners; the count removed. */
int ctr_reap_leftovers(void);

#endif
