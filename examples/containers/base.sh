#!/bin/sh
# The base image of examples/containers: a root file system made from
# Debian packages with mmdebstrap (no registry: `podman import` of a tar),
# tagged localhost/harness-demo-base:bookworm. Made once; a second call
# finds it and does nothing.
#
#   PostgreSQL 15, Redis 7, Node.js with node-pg and node-redis, and
#   /bin/sh (dash): the PostgreSQL and Redis dependencies run from it, the
#   Node ledger and the Go ledger (linked against its glibc) are built FROM
#   it (containers/*.Containerfile).
#
# mmdebstrap --variant=extract unpacks the packages and their dependencies
# without running their maintainer scripts (no chroot, no dpkg database);
# what those scripts would have made that the services need (a user for
# PostgreSQL) is in the Containerfiles. Left out: manuals, documentation,
# translations, and what these services never load (LLVM, PostgreSQL's
# JIT, Perl): 187 MB instead of 410 MB, half the import. The host's apt
# cache is hard-linked in first (same file system: nothing copied; apt
# downloads only what it lacks): 353-384 s instead of 478 s here at load 10-15.
set -eu
image=localhost/harness-demo-base:bookworm
podman image exists "$image" && exit 0
command -v mmdebstrap >/dev/null || { echo "base.sh: mmdebstrap is missing (make deps-containers)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/harness-demo-base.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "examples/containers: making $image with mmdebstrap (once)" >&2
mmdebstrap --quiet --variant=extract \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives && { ln /var/cache/apt/archives/*.deb "$1"/var/cache/apt/archives/ 2>/dev/null || true; }' \
	--include=postgresql-15,redis-server,nodejs,node-pg,node-redis,dash,libc-bin,tzdata \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/i18n/*' \
	--dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/libLLVM*' \
	--dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/libz3*' \
	--dpkgopt='path-exclude=/usr/lib/postgresql/15/lib/bitcode/*' \
	--dpkgopt='path-exclude=/usr/lib/postgresql/15/lib/llvmjit*' \
	--dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/perl*' --dpkgopt='path-exclude=/usr/share/perl*' \
	bookworm "$tmp/rootfs.tar"
podman import --quiet "$tmp/rootfs.tar" "$image" >/dev/null
