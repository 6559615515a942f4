#!/bin/sh
# pg-entry PORT: PostgreSQL 15 of examples/containers, as the container's
# user postgres (Containerfile USER): a scratch cluster made at start in
# the container's own /home/postgres, superuser `ledger`, trust on
# 127.0.0.1 (the host's loopback: the dependency shares the host's
# network), then the server in the foreground (the engine's stop sends it
# SIGTERM: a smart shutdown, SIGKILL after the grace). The same settings
# as examples/ledger/pg.sh.
set -eu
# A fresh container each start: no cluster there yet (and no coreutils in
# the base: the shell and PostgreSQL's own programs only).
port=${1:?usage: pg-entry PORT}
bin=/usr/lib/postgresql/15/bin
data=/home/postgres/data
"$bin/initdb" -D "$data" -U ledger --auth=trust --no-sync -E UTF8 --locale=C >/dev/null
exec "$bin/postgres" -D "$data" -p "$port" \
	-c listen_addresses=127.0.0.1 -c unix_socket_directories= \
	-c max_connections=40 -c shared_buffers=128MB \
	-c synchronous_commit=off -c jit=off \
	-c log_min_messages=warning -c log_checkpoints=off
