/*
 * cmd_load_spec: `harness load SPEC --impl NAME [--url URL]` (cmd_load.c):
 * the spec's workload, and, without --url, its implementation built (with
 * --build) and started here, as probe does, until the load is over.
 *
 * The started implementation logs into RUNS_DIR/load-<time>-<pid>/logs,
 * beside probe's (never a temporary directory nobody removes); one whose
 * spec says `sandbox: always` runs in bwrap as in a run, and the load
 * connects inside its network namespace (cfg->netns_fd).
 */
#ifndef HARNESS_CMD_LOAD_SPEC_H
#define HARNESS_CMD_LOAD_SPEC_H

#include "cmd/cmd_load_opts.h"
#include "load/load.h"
#include "spec/spec.h"
#include "sut/sut.h"

/*
 * Load the spec o->target into *spec, find o->impl and bind its workload
 * into cfg (pointing into *spec). Without o->url the implementation is
 * started into *sut and *target is its URL. The caller frees *spec and
 * *sut (sut_free stops it), whatever the result. 0, EXIT_USAGE (bad spec,
 * unknown or remote implementation, vars with --agent) or EXIT_ENV (the
 * implementation cannot be built, started or made healthy), after one
 * line.
 */
int cmd_load_spec_workload(const struct cmd_load_opts *o, const char *runs_dir,
			   struct spec **spec, struct sut **sut, struct load_config *cfg,
			   const char **target);

#endif
