#!/usr/bin/env bash
# provide-crun.sh - build crun with CRIU support on Debian 12 from Debian 12's own source package.
#
# Debian 12's crun package (1.8.1) is built without CRIU (`crun --version` lacks +CRIU), so the
# container tests could not checkpoint with it. This script takes the same source package
# (bookworm, through a private apt configuration that reuses this machine's own Debian archive,
# which scripts/debian-uri.sh reads from its apt sources), verifies the upstream tarball's SHA256
# against the .dsc, applies Debian's patches, and builds only the crun binary (no man pages, no
# systemd, no Python bindings, make -j2; about 20 s on 2 CPUs) against the libcriu that
# scripts/provide-criu.sh installs. crun loads libcriu.so.2 at run time.
#
# The binary goes into DIR/crun, a directory of its own, so that Podman and other tools that
# look for "crun" in the usual places do not start using it. A second run is a no-op. Runs
# sharing a cache take turns: a second one waits for the first (scripts/setup-lib.sh).
#
# Usage: scripts/provide-crun.sh [--dest DIR]
#   --dest DIR   where to put the binary (default /usr/local/lib/cudastore-crun): DIR/crun
# Environment: CUDASTORE_CACHE (default /var/cache/cudastore) holds the source and build tree.
# Exit status: 0 built or already there; 1 it cannot be built here (the reason is printed).
set -euo pipefail

DEST=/usr/local/lib/cudastore-crun
CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}
SUITE=bookworm
BUILD_DEPS="build-essential pkg-config dpkg-dev xz-utils libcap-dev libseccomp-dev libyajl-dev"

while [ $# -gt 0 ]; do
	case "$1" in
	--dest) DEST=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "provide-crun: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

log() { echo "provide-crun: $*" >&2; }
die() { echo "provide-crun: cannot build crun: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs build dependencies and writes $DEST)"
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=setup-lib.sh
. "$SCRIPTS/setup-lib.sh"
cache_lock "$CACHE/provide-crun.lock" "it builds or installs crun from $CACHE (a first build takes about 20 s)"

has_criu() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q '+CRIU'; }

if has_criu "$DEST/crun"; then
	log "$("$DEST/crun" --version | head -n1) with CRIU support already in $DEST (nothing to build)"
	exit 0
fi
pkg-config --exists criu ||
	die "libcriu's criu.pc is not installed (scripts/provide-criu.sh installs it with CRIU)"

# --- source package from bookworm, through a private apt configuration ---------------------
APTDIR=$CACHE/apt-$SUITE
mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$CACHE/src"
URI=$("$SCRIPTS/debian-uri.sh") || die "no Debian archive in this machine's apt sources (above)"
cat >"$APTDIR/src.sources" <<SRC
Types: deb-src
URIs: $URI
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
APT_PRIV=(-o "Dir::Etc::SourceList=$APTDIR/src.sources" -o "Dir::Etc::SourceParts=/nonexistent"
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache::Archives=$APTDIR/archives"
	-o "APT::Get::List-Cleanup=0")

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt_install "crun's build dependencies" $BUILD_DEPS || die "cannot install crun's build dependencies"
apt-get "${APT_PRIV[@]}" update -qq || die "cannot read deb-src $SUITE from $URI"
VER=$(apt-cache "${APT_PRIV[@]}" showsrc crun 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
[ -n "$VER" ] || die "Debian's $SUITE sources offer no crun package"
UPVER=${VER%-*}
SRCDIR=$CACHE/src/crun-$VER
mkdir -p "$SRCDIR"
cd "$SRCDIR"
if ! ls crun_"$UPVER".orig.tar.* >/dev/null 2>&1 || ! ls crun_*.dsc >/dev/null 2>&1; then
	log "downloading crun $VER source package"
	apt-get "${APT_PRIV[@]}" source --download-only -qq "crun=$VER" >/dev/null 2>&1 ||
		die "apt-get source crun=$VER failed"
fi
DSC=crun_$VER.dsc
ORIG=$(ls crun_"$UPVER".orig.tar.* | grep -v '\.asc$' | head -n1)
want_sha=$(awk '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f && $3=="'"$ORIG"'" {print $1}' "$DSC")
have_sha=$(sha256sum "$ORIG" | cut -d' ' -f1)
[ -n "$want_sha" ] && [ "$want_sha" = "$have_sha" ] ||
	{ rm -f "$ORIG"; die "SHA256 of $ORIG is $have_sha, $DSC says ${want_sha:-nothing} (file removed; run again)"; }

# --- build: crun only ------------------------------------------------------------------------
BUILD=$SRCDIR/build
start=$(date +%s)
if ! has_criu "$BUILD/crun"; then
	rm -rf "$BUILD"
	dpkg-source -x "$DSC" "$BUILD" >"$SRCDIR/build.log" 2>&1 || die "dpkg-source -x $DSC failed"
	log "building crun $VER with CRIU support (about 20 s on 2 CPUs; log: $SRCDIR/build.log)"
	(cd "$BUILD" && ./configure --disable-systemd --enable-criu && make git-version.h &&
		make -j2 crun) >>"$SRCDIR/build.log" 2>&1 ||
		{ tail -n 20 "$SRCDIR/build.log" >&2; die "the build failed; full log in $SRCDIR/build.log"; }
	has_criu "$BUILD/crun" || die "the crun built lacks +CRIU (configure did not find libcriu: see $SRCDIR/build.log)"
fi
install -D -m 755 "$BUILD/crun" "$DEST/crun"
log "installed $DEST/crun ($("$DEST/crun" --version | head -n1), +CRIU) in $(($(date +%s) - start)) s"
