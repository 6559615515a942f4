#!/bin/sh
# What examples/ledger needs, from Debian (called by `make deps`): installed
# with apt-get when run as root, else named (exit 1).
#
#   postgresql-15        initdb, postgres, pg_isready, psql (/usr/lib/postgresql/15/bin)
#   redis-server         redis-server
#   golang-go            go (GOPATH mode, offline: go/build.sh)
#   golang-github-jackc-pgx-v4-dev, golang-github-gomodule-redigo-dev
#                        their sources in /usr/share/gocode
#   node-redis           /usr/share/nodejs/redis
#   node-pg              /usr/share/nodejs/pg, or see below
#
# node-pg: when Node.js is NodeSource's (as here), apt cannot install
# Debian's node-pg beside it: its optional native binding (node-libpq) pulls
# Debian's libnode108, which conflicts with that nodejs. The package's
# JavaScript is then unpacked from Debian's own .deb (apt-get download,
# dpkg-deb -x) into build/debian in the repository, which the spec's
# NODE_PATH names; its pure-JavaScript dependencies (node-split2,
# node-xtend) are installed with apt-get. Nothing is written to /usr by hand.
set -u
cd "$(dirname "$0")/../.." || exit 1
local_node=build/debian/usr/share/nodejs

missing=""
need() { # need PACKAGE PATH-OR-COMMAND
	case $2 in
	/*) [ -e "$2" ] ;;
	*) command -v "$2" >/dev/null 2>&1 ;;
	esac || missing="$missing $1"
}
need postgresql-15 /usr/lib/postgresql/15/bin/postgres
need redis-server redis-server
need golang-go go
need golang-github-jackc-pgx-v4-dev /usr/share/gocode/src/github.com/jackc/pgx/v4/pgxpool
need golang-github-gomodule-redigo-dev /usr/share/gocode/src/github.com/gomodule/redigo/redis
need node-redis /usr/share/nodejs/redis/package.json
need util-linux setpriv
pg_ok() { [ -e /usr/share/nodejs/pg/package.json ] || [ -e "$local_node/pg/package.json" ]; }
pg_ok || need node-pg /usr/share/nodejs/pg/package.json
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "make: examples/ledger: missing Debian packages:$missing (run as root, or apt-get install them)" >&2
	exit 1
fi
echo "make: examples/ledger: installing missing Debian packages:$missing"
# apt waits up to 10 minutes for another install's dpkg lock (a second build on the host)
(apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true)
apt_install() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >/dev/null; }
rest=$(echo "$missing" | tr ' ' '\n' | grep -v '^node-pg$' | tr '\n' ' ')
if [ -n "${rest% }" ]; then
	# shellcheck disable=SC2086 # package names, split on purpose
	apt_install $rest || exit 1
fi
pg_ok && exit 0
apt_install node-pg 2>/dev/null && exit 0

echo "make: examples/ledger: node-pg cannot be installed beside this nodejs; unpacking Debian's node-pg into build/debian"
apt_install node-split2 node-xtend || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
(cd "$tmp" && apt-get download -qq node-pg >/dev/null 2>&1) || {
	echo "make: examples/ledger: apt-get download node-pg failed" >&2
	exit 1
}
mkdir -p build/debian
dpkg-deb -x "$tmp"/node-pg_*.deb build/debian || exit 1
rm -rf build/debian/usr/share/doc
NODE_PATH=$local_node:/usr/share/nodejs node -e 'require("pg")' || {
	echo "make: examples/ledger: the unpacked node-pg does not load" >&2
	exit 1
}
exit 0
