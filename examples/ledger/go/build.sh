#!/bin/sh
# Build examples/ledger/go/ledger-go offline, against Debian's packaged Go
# sources only (golang-go, golang-github-jackc-pgx-v4-dev,
# golang-github-gomodule-redigo-dev; `make deps` installs them): GOPATH mode
# (GO111MODULE=off) on /usr/share/gocode, no module proxy, no network.
# The build cache is a temporary directory removed when the build ends, so
# nothing is left behind (and every build is a clean one). No -trimpath:
# it would rebuild the standard library golang-go ships precompiled (27 s
# of CPU instead of 8).
set -eu
cd "$(dirname "$0")"
cache=$(mktemp -d "${TMPDIR:-/tmp}/ledger-gocache.XXXXXX")
trap 'rm -rf "$cache"' EXIT INT TERM
env GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOPROXY=off GOCACHE="$cache" \
	GOTMPDIR="$cache" go build -o ledger-go .
