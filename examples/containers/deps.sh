#!/bin/sh
# What examples/containers needs beyond `make deps` (called by `make
# deps-containers` and `make demo-containers`): mmdebstrap, to make the
# base image from Debian packages (base.sh). podman and runc are in the
# Makefile's TOOLS (the tests use them). Installed with apt-get when run
# as root, else named (exit 1).
set -u
command -v mmdebstrap >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "make: examples/containers: missing Debian package: mmdebstrap (run as root, or apt-get install it)" >&2
	exit 1
fi
echo "make: examples/containers: installing missing Debian package: mmdebstrap"
(apt-get update -qq >/dev/null 2>&1 || true)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
