#!/bin/sh
# The ledger's PostgreSQL 15 (dependency `db` of examples/ledger/spec.yaml):
#
#   pg.sh PORT
#
# A cluster of its own in the run's directory ($HARNESS_DEP_DIR/pgdata,
# which the harness creates: runs/<id>/deps/db), listening on 127.0.0.1:PORT
# only (TCP, no Unix socket), superuser `ledger`, trust authentication on
# loopback. Nothing system-wide is used or touched: no Debian cluster, no
# service, no /var/run/postgresql.
#
# PostgreSQL refuses to run as root: when the harness runs as root the
# cluster belongs to, and the server runs as, the unprivileged user
# `postgres` (Debian's, when the package created it) or else `nobody`; every
# directory above $HARNESS_DEP_DIR must then be searchable by that user.
#
# initdb runs on the first start only; a restart after a crash (the harness
# restarts a dependency that exited) finds the cluster and its data. On a
# stop (SIGTERM or SIGINT to this script, as the harness stops a
# dependency) the server gets a fast shutdown and the cluster is removed:
# nothing is left behind but the empty directory.
set -eu
bin=/usr/lib/postgresql/15/bin
port=${1:?usage: pg.sh PORT}
dir=${HARNESS_DEP_DIR:?HARNESS_DEP_DIR is not set: pg.sh runs as a harness dependency}
data=$dir/pgdata

# as_owner: the command prefix that runs a program as the cluster's owner
# (empty when the harness is not root); a plain prefix, not a function, so
# that `... &` below runs postgres itself, whose pid is then $!.
as_owner=""
if [ "$(id -u)" = 0 ]; then
	user=postgres
	id -u "$user" >/dev/null 2>&1 || user=nobody
	uid=$(id -u "$user")
	gid=$(id -g "$user")
	as_owner="setpriv --reuid=$uid --regid=$gid --clear-groups"
	if ! $as_owner test -x "$dir"; then
		echo "pg.sh: $user cannot reach $dir (make every directory above it searchable)" >&2
		exit 1
	fi
fi

if [ ! -s "$data/PG_VERSION" ]; then
	rm -rf "$data"
	mkdir -m 700 "$data"
	[ "$(id -u)" != 0 ] || chown "$uid:$gid" "$data"
	# --no-sync: a benchmark's scratch cluster, rebuilt by every run.
	if ! $as_owner "$bin/initdb" -D "$data" -U ledger --auth=trust --no-sync \
		-E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		exit 1
	fi
fi

stopping=0
trap 'stopping=1; kill -INT "$pid" 2>/dev/null || :' TERM INT
# Settings for a small shared machine: 40 connections (two pools of 8 and
# psql), synchronous_commit off (a commit does not wait for its WAL flush;
# fsync stays on), no JIT (short OLTP queries); pg_stat_statements loaded,
# so the harness reads the time per statement each window (pgstats.sql).
$as_owner "$bin/postgres" -D "$data" -p "$port" \
	-c listen_addresses=127.0.0.1 -c unix_socket_directories= \
	-c max_connections=40 -c shared_buffers=128MB \
	-c synchronous_commit=off -c jit=off \
	-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top \
	-c log_min_messages=warning -c log_checkpoints=off &
pid=$!
rc=0
while kill -0 "$pid" 2>/dev/null; do
	wait "$pid" && rc=0 || rc=$?
done
if [ "$stopping" = 1 ]; then
	rm -rf "$data"
	rc=0
fi
exit "$rc"
