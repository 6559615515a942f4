# harness: build, test, sanitizer, fuzz, bench and demo targets.
#
#   make            build bin/harness (./harness/<layer>/ holds the sources,
#                   included as "<layer>/x.h" under -Iharness: docs/DESIGN.md)
#   make test       build and run the tests (unit, tests/cases, end-to-end)
#                   except the e2e scripts marked "# check-all:"; CI's command
#   make asan       the same under -fsanitize=address,undefined, except the
#                   e2e scripts marked "# release-only:" (tests/run.sh)
#   make check-all  every test, both builds: `make test` and `make asan` with
#                   the "# check-all:" scripts too
#   make coverage-map  which e2e scripts make asan must run: per-script line
#                   coverage (tests/coverage_map.py; minutes, the whole suite)
#   make slowtest   the slow statistical checks (tests/slow/*.sh: repeated
#                   comparisons, error rates over many runs); not in CI
#   make fuzz       run the spec-parser fuzzer for FUZZ_SECONDS (clang libFuzzer)
#   make bench      measure the load engine against wrk / httperf / nginx
#   make demo       run the example benchmark and render its report
#   make demo-ledger  the ledger example (Go and Node against PostgreSQL and
#                   Redis started by the harness): knees, cost per request,
#                   the dependencies' headroom
#   make demo-containers  the same services, PostgreSQL and Redis as
#                   container images built offline (podman; the base image
#                   from the host's installed Debian packages, made once)
#
# Dependencies are Debian packages; `make` installs missing ones with
# apt-get when run as root (and says so), otherwise names them and stops.
# `make` and `make demo` install only what the binary and the demo need
# (deps-build); `make deps` (and test, slowtest, bench) adds the tests'
# tools (podman with runc among them: tests/e2e/containers.sh) and what
# examples/ledger (and its e2e) needs: examples/ledger/deps.sh (PostgreSQL 15,
# Redis, Go and its libraries, node-pg, node-redis); examples/containers
# needs nothing more (its base image is made from those packages as they
# are installed: examples/containers/base.sh), `make deps-containers` is
# `make deps`.

CC       ?= cc
# Compile on every core (the tests themselves run one program at a time).
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
BUILD    ?= build/release
VERSION  := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
WARN      = -Wall -Wextra -Werror -Wno-unused-parameter
# Debug information: full (-g) for the release build; make asan's -g1
# (line tables, function and inlined-frame names: a sanitizer's report is
# the same, only a debugger's local variables are missing) compiles a sixth
# faster.
DEBUGINFO ?= -g
CFLAGS_BASE = -std=gnu11 $(DEBUGINFO) $(WARN) -Iharness -Igates -D_GNU_SOURCE -pthread -MMD -MP
OPT      ?= -O2
SAN      ?=
CFLAGS_ALL = $(CFLAGS_BASE) $(OPT) $(SAN) $(EXTRA_CFLAGS)
LIBS      = -lcurl -lyaml -lsqlite3 -lgit2 -ljansson -lhttp_parser -lm -pthread

# Debian packages: header -> package
DEPS = curl/curl.h:libcurl4-openssl-dev yaml.h:libyaml-dev sqlite3.h:libsqlite3-dev \
       git2.h:libgit2-dev jansson.h:libjansson-dev http_parser.h:libhttp-parser-dev
TOOLS = jq:jq sqlite3:sqlite3 python3:python3 curl:curl git:git openssl:openssl \
        wrk:wrk nginx:nginx node:nodejs rsvg-convert:librsvg2-bin bwrap:bubblewrap \
        sshd:openssh-server ssh:openssh-client podman:podman runc:runc \
        chromium:chromium

SRCS     := $(wildcard harness/*/*.c) $(wildcard gates/*.c)
OBJS     := $(patsubst %.c,$(BUILD)/%.o,$(SRCS)) $(BUILD)/version.o
LIBOBJS  := $(filter-out $(BUILD)/harness/cmd/main.o,$(OBJS))
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
HELPERS  := $(patsubst tests/helpers/%.c,$(BUILD)/helpers/%,$(wildcard tests/helpers/*.c))
FIXTURES := $(BUILD)/helpers/compare_fixture
BIN      := $(BUILD)/bin/harness

.PHONY: all test asan check-all coverage-map clean deps deps-build deps-ledger \
	deps-containers fuzz bench demo demo-ledger demo-containers unit install slowtest

# The binary is bin/harness: ./harness is the source directory.
all: deps-build bin/harness

bin/harness: $(BIN)
	@mkdir -p bin
	@if [ "$(BUILD)" = build/release ]; then cp $(BIN) bin/harness; fi

PREFIX ?= /usr/local
install: all
	install -D -m 0755 bin/harness $(DESTDIR)$(PREFIX)/bin/harness

# Two builds on one host (a second suite, a second clone) may install at
# once: apt waits for the other's dpkg lock rather than failing at once.
APT_WAIT = -o DPkg::Lock::Timeout=600

# install_deps HEADERS,TOOLS: apt-get the Debian packages of the missing
# headers (header:package) and tools (command:package) when root, else
# name them and stop.
define install_deps
missing=""; for d in $(1); do h=$${d%%:*}; p=$${d##*:}; \
  if ! echo "#include <$$h>" | $(CC) -E -x c - >/dev/null 2>&1; then missing="$$missing $$p"; fi; done; \
for d in $(2); do t=$${d%%:*}; p=$${d##*:}; \
  command -v $$t >/dev/null 2>&1 || missing="$$missing $$p"; done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "make: installing missing Debian packages:$$missing"; \
    (apt-get $(APT_WAIT) update -qq >/dev/null 2>&1 || true); \
    DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAIT) install -y -qq $$missing >/dev/null || exit 1; \
  else echo "make: missing Debian packages:$$missing (run as root, or apt-get install them)"; exit 1; fi; \
fi
endef

# What the binary and `make demo` need (demo.sh reads report.json with jq),
# nothing of the tests' tools or examples/ledger's.
deps-build:
	@$(call install_deps,$(DEPS),jq:jq)

deps: deps-build
	@$(call install_deps,,$(TOOLS))
	@sh examples/ledger/deps.sh

deps-ledger:
	@sh examples/ledger/deps.sh

deps-containers: deps

# Nothing compiles before the Debian packages (headers, libraries) are in.
$(OBJS) $(UNITS) $(HELPERS) $(FIXTURES) $(BUILD)/version.c: | deps-build

# Quiet by default (one line per file); `make V=1` prints every command.
ifeq ($(V),1)
Q =
else
Q = @
endif

$(BIN): $(OBJS)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  LINK $@"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LIBS)

# The version from `git describe`, rewritten only when it changes, so the
# binary always says which commit it was built from.
$(BUILD)/version.c: FORCE
	@mkdir -p $(dir $@)
	@v='const char harness_version[] = "$(VERSION)";'; \
	  if [ ! -f $@ ] || [ "$$(cat $@)" != "$$v" ]; then echo "$$v" > $@; fi
FORCE:

$(BUILD)/version.o: $(BUILD)/version.c
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC   $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The unit programs and the fixture link the library's objects from an
# archive: each takes only the objects it needs (not all of them), so the
# 50 programs are a tenth of the bytes (make asan's were 722 MB) and link
# in a fraction of the time.
# Remade from nothing when an object changes or the list of objects does
# (a source file removed: its object must not linger in the archive).
LIBA := $(BUILD)/libharness.a
$(BUILD)/libharness.list: FORCE
	@mkdir -p $(dir $@)
	@v='$(LIBOBJS)'; if [ ! -f $@ ] || [ "$$(cat $@)" != "$$v" ]; then echo "$$v" > $@; fi
$(LIBA): $(LIBOBJS) $(BUILD)/libharness.list
	@[ "$(V)" = 1 ] || echo "  AR   $@"
	@rm -f $@
	$(Q)$(AR) rcs $@ $(LIBOBJS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/t.h $(LIBA)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  TEST $<"
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIBA) $(LIBS)

# The helper servers are the machine the tests measure, not code under
# test: built optimised and WITHOUT sanitizers even under `make asan`, so
# their timing is the same in both builds and the bounds need no widening.
$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  HELP $<"
	$(Q)$(CC) $(CFLAGS_BASE) -O2 $(EXTRA_CFLAGS) -o $@ $< $(LIBS)

# Fixture run databases, written through the store and hist modules.
$(BUILD)/helpers/compare_fixture: tests/fixtures/compare_fixture.c $(LIBA)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  FIXT $<"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(LIBS)

# The tests in tiers (tests/run.sh): unit binaries, then the declarative
# cases and the end-to-end scripts against the real binary, in two lanes.
test: deps $(BIN) bin/harness $(UNITS) $(HELPERS) $(FIXTURES)
	@BUILD=$(BUILD) HARNESS=$(abspath $(BIN)) HELPERS=$(abspath $(BUILD)/helpers) \
	  UNITS="$(UNITS)" bash tests/run.sh

unit: deps $(UNITS) $(HELPERS)
	@BUILD=$(BUILD) HARNESS=$(abspath $(BIN)) HELPERS=$(abspath $(BUILD)/helpers) \
	  UNITS="$(UNITS)" E2E=none CASES=none bash tests/run.sh

# Repeated statistical checks (minutes each): run by hand or nightly, their
# figures quoted in the closing notes; CI runs `test` and `asan` only.
slowtest: deps $(BIN) bin/harness $(HELPERS) $(FIXTURES)
	@BUILD=$(BUILD) HARNESS=$(abspath $(BIN)) HELPERS=$(abspath $(BUILD)/helpers) \
	  UNITS= CASES=none E2E="$(or $(wildcard tests/slow/*.sh),none)" bash tests/run.sh

asan:
	@RELEASE_ONLY=skip $(MAKE) --no-print-directory test BUILD=build/asan OPT=-O1 DEBUGINFO=-g1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

# The sanitized set of e2e scripts by per-script line coverage (tests/run.sh
# states the rule; RESULTS: a make test's results file for the seconds).
coverage-map: deps
	@python3 tests/coverage_map.py $(if $(RESULTS),--results $(RESULTS))

# Everything: the scripts `make test` leaves to it ("# check-all:") too.
check-all:
	@TIER=all $(MAKE) --no-print-directory test
	@TIER=all $(MAKE) --no-print-directory asan

FUZZ_SECONDS ?= 60
fuzz: deps
	@command -v clang >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get $(APT_WAIT) install -y -qq clang >/dev/null; }
	@mkdir -p build/fuzz
	@echo 'const char harness_version[] = "fuzz";' > build/fuzz/version.c
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iharness -Igates -D_GNU_SOURCE \
	  -o build/fuzz/fuzz_spec tests/fuzz/fuzz_spec.c \
	  $(filter-out harness/cmd/main.c,$(SRCS)) build/fuzz/version.c $(LIBS)
	@mkdir -p build/fuzz/corpus
	build/fuzz/fuzz_spec -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  build/fuzz/corpus tests/fuzz/corpus

bench: deps bin/harness
	bash bench/bench.sh

demo: deps-build bin/harness
	bash examples/demo.sh

demo-ledger: deps bin/harness
	bash examples/demo-ledger.sh

demo-containers: deps-containers bin/harness
	bash examples/demo-containers.sh

clean:
	rm -rf build bin examples/ledger/go/ledger-go

-include $(OBJS:.o=.d)
