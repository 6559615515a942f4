/*
 * cmd_check_ctr: `harness check` on the arms that run as containers
 * (cmd_check_ctr.c): the engine, its version, the ulimits and what will
 * run, printed under "containers (N):" when print is set.
 */
#ifndef HARNESS_CMD_CHECK_CTR_H
#define HARNESS_CMD_CHECK_CTR_H

#include "spec/spec.h"

/* EXIT_OK, or after one error() line EXIT_ENV (no engine) or
 * EXIT_USAGE (an image or Containerfile the spec names is not there). */
int check_containers(const struct spec *s, int print);

#endif
