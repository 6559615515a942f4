/*
 * spec_minimal.h: the smallest valid spec, two implementations and a
 * ladder, that unit tests parse and extend (test_spec.c, test_bind.c).
 */
#ifndef TESTS_SPEC_MINIMAL_H
#define TESTS_SPEC_MINIMAL_H

static const char minimal[] =
	"version: 1\n"
	"name: minimal\n"
	"slo: { threshold_ms: 20 }\n"
	"implementations:\n"
	"  - name: a\n"
	"    start: [./server-a, --port, \"{port}\"]\n"
	"    health: { url: \"http://127.0.0.1:{port}/healthz\" }\n"
	"  - name: b\n"
	"    start: [./server-b, --port, \"{port}\"]\n"
	"    health: { url: \"http://127.0.0.1:{port}/healthz\" }\n"
	"workload:\n"
	"  requests:\n"
	"    - { name: root, path: / }\n"
	"stages:\n"
	"  ladder: { start_rps: 500, step: 1.2, max_rps: 2000, window_s: 60 }\n";

#endif
