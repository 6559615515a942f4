#!/bin/sh
# The base image of examples/containers, tagged
# localhost/harness-demo-base:bookworm: a root file system made from the
# Debian packages this host already has installed (`make deps` installed
# them for examples/ledger), imported with `podman import` of a tar. No
# registry, no download, no apt: the files are dpkg's own lists of what
# each package installed (dpkg-query -L), copied as they are. Made once; a
# second call finds the image and does nothing.
#
#   PostgreSQL 15, Redis 7, Node.js with node-pg and node-redis, and
#   /bin/sh (dash), with every package they depend on that is installed
#   here: the PostgreSQL and Redis dependencies run from it, the Node
#   ledger and the Go ledger (linked against its glibc) are built FROM it
#   (containers/*.Containerfile). The same builds the native ledger runs
#   (here NodeSource's nodejs, and Debian's node-pg unpacked into
#   build/debian by examples/ledger/deps.sh when apt cannot install it
#   beside that nodejs): container against native compares the packaging,
#   not two versions.
#
# No maintainer script runs (as with a dpkg-deb -x); what those scripts
# would have made that the services need (a user for PostgreSQL) is in the
# Containerfiles. Left out: manuals, documentation, translations, and the
# packages these services never load: Perl and Python (maintainer scripts,
# node-gyp), LLVM and Z3 (PostgreSQL's JIT, off). About 180 MB.
#
# Until 2026-12 this was mmdebstrap --variant=extract of the same packages
# from the archive: 49 s here with every .deb in the host's apt cache,
# 353-478 s at load 10-15 with downloads; this takes about 10 s.
set -eu
cd "$(dirname "$0")/../.." || exit 1
image=localhost/harness-demo-base:bookworm
podman image exists "$image" && exit 0
want="postgresql-15 redis-server nodejs node-redis dash tzdata"
# node-pg: installed, or unpacked by examples/ledger/deps.sh (with the
# two packages it then installs for it)
local_node=build/debian/usr/share/nodejs
if dpkg-query -W -f='${db:Status-Abbrev}' node-pg 2>/dev/null | grep -q '^ii'; then
	want="$want node-pg"
	local_node=
elif [ -e "$local_node/pg/package.json" ]; then
	want="$want node-split2 node-xtend"
else
	echo "base.sh: node-pg is not installed (make deps)" >&2
	exit 1
fi
for p in $want; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || {
		echo "base.sh: Debian package $p is not installed (make deps)" >&2
		exit 1
	}
done
tmp=$(mktemp -d /tmp/harness-demo-base.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "examples/containers: making $image from this host's Debian packages (once)" >&2

# The packages: the wanted ones and, through Pre-Depends and Depends, every
# installed package they need (the first installed alternative, a virtual
# package through the installed package that provides it), less the ones
# left out.
dpkg-query -W -f='${db:Status-Abbrev}\t${Package}\t${Provides}\t${Pre-Depends}, ${Depends}\n' |
	awk -F '\t' -v want="$want" '
	function name(s) { sub(/^[ \t]+/, "", s); sub(/[ \t(].*$/, "", s); sub(/:.*$/, "", s); return s }
	$1 ~ /^ii/ {
		deps[$2] = $4
		n = split($3, pv, ",")
		for (i = 1; i <= n; i++) if (!((v = name(pv[i])) in prov)) prov[v] = $2
	}
	END {
		n = split(want, q, " ")
		for (i = 1; i <= n; i++) seen[q[i]] = 1
		for (h = 1; h <= n; h++) {
			print q[h]
			m = split(deps[q[h]], d, ",")
			for (j = 1; j <= m; j++) {
				k = split(d[j], alt, "|")
				for (a = 1; a <= k; a++) {
					p = name(alt[a])
					if (p == "") continue
					if (!(p in deps)) { if (!(p in prov)) continue; p = prov[p] }
					if (!(p in seen) && p !~ /^(perl|libperl|python3|libpython3|libllvm|libz3-)/) {
						seen[p] = 1; q[++n] = p
					}
					break
				}
			}
		}
	}' >"$tmp/packages"

# Their files, as dpkg lists them; on a merged-/usr host /bin, /lib ... are
# links into /usr, so their paths are taken there (the links themselves
# come from $tmp/top).
mkdir "$tmp/top"
usrmerge=
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ] && [ "$(readlink "/$d")" = "usr/$d" ]; then
		ln -s "usr/$d" "$tmp/top/$d"
		usrmerge="$usrmerge|$d"
	fi
done
# shellcheck disable=SC2046 # package names, split on purpose
dpkg-query -L $(cat "$tmp/packages") | grep '^/' | grep -vx '/\.' |
	sed -E ${usrmerge:+-e "s,^/(${usrmerge#|})(/|$),/usr/\\1\\2,"} -e 's,^/,,' |
	grep -vE '^usr/share/(man|doc|locale|i18n|lintian|bug)/|^usr/include/|^usr/lib/node_modules/|^usr/lib/postgresql/15/lib/(bitcode/|llvmjit)' |
	sort -u >"$tmp/files"
: >"$tmp/node-files"
if [ -n "$local_node" ]; then
	# what the host's packages have not put there already
	(cd build/debian && find usr/share/nodejs -mindepth 1) | grep -vxF -f "$tmp/files" >"$tmp/node-files"
fi
# --ignore-failed-read: a file a package lists and the host has removed
# since (NodeSource's npm, here) is left out with a warning, not fatal.
tar -cf "$tmp/rootfs.tar" --numeric-owner -C "$tmp/top" . --no-recursion \
	-C / --ignore-failed-read -T "$tmp/files" -C "$PWD/build/debian" -T "$tmp/node-files" \
	2>"$tmp/tar.err" || {
	sed -n 1,5p "$tmp/tar.err" >&2
	echo "base.sh: tar of the packages' files failed" >&2
	exit 1
}
podman import --quiet "$tmp/rootfs.tar" "$image" >/dev/null
