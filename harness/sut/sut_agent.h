/*
 * sut_agent: `harness agent --sut`, the agent's implementation role
 * (docs/AGENT_PROTOCOL.md, "The --sut role"): run one implementation on
 * this host for a coordinator elsewhere (implementations[].host, rsut.h)
 * with the sut and account modules, as a local run does (own process
 * group and cgroup v2/v1/procfs, watchdog), and answer its frames: start
 * and health, accounting windows, stop, and commands run to completion
 * there (its build and version), jailed there when the request says so
 * (its port then relayed into the jail's namespace); or hold a rerun's
 * commit fetched there (sut_agent_src.h). What it measures goes back as
 * it is taken: each accounting sample of an open window, each
 * runtime-stats poll (polled here, from its health onwards).
 *
 * Lifetime: when in closes (the coordinator died, ssh dropped) or a
 * SIGTERM, SIGHUP or SIGINT arrives (its parent dying sends SIGTERM), the
 * implementation's whole tree is killed and its cgroup removed before the
 * agent exits; a SIGKILL of the agent itself is covered by sut's watchdog
 * (the implementation, its cgroup) and by its log directory's janitor
 * (scratch.h).
 * One thread, and a second watching for the hang-up while it blocks.
 */
#ifndef HARNESS_SUT_AGENT_H
#define HARNESS_SUT_AGENT_H

/* Serve the --sut role on in/out until in closes; never returns. */
int agent_serve_sut(int in, int out);

#endif
