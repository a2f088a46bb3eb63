#!/usr/bin/env bash
# provide-criu.sh - build CRIU (>= 4.2.1) on Debian 12 from Debian's own source package.
#
# Debian 12 ships criu 3.17.1, which lacks the device hooks and fails on kernels >= 6.13.
# This script takes the criu source package from Debian testing ("forky") through a private
# apt configuration that reuses this machine's own Debian archive (scripts/debian-uri.sh reads
# it from the apt sources), verifies the upstream tarball's SHA256 against the .dsc, builds it
# with bookworm's -dev packages (35-60 s on 2 CPUs) and installs it into PREFIX: criu itself,
# criu-plugin.h, and libcriu (the RPC client library that crun links: libcriu.so.2, its headers
# and criu.pc for pkg-config). A second run with the same version is a no-op. Runs sharing a
# cache take turns: a second one waits for the first (scripts/setup-lib.sh).
#
# CRIU's own cuda plugin (plugins/cuda) is built too, in the cached build tree, where the tests
# that compare with it find it; it is never installed. A failure to build it is only a warning.
#
# Usage: scripts/provide-criu.sh [--prefix DIR] [--bundle DIR] [--cuda-plugin DIR] [--version V]
#   --prefix DIR   install prefix (default /usr/local); criu lands in DIR/sbin/criu
#   --bundle DIR   also write a relocatable bundle: DIR/criu (wrapper), DIR/bin/criu, DIR/lib/*.so*
#   --cuda-plugin DIR  also copy CRIU's cuda_plugin.so into DIR (an error if it cannot be built)
#   --version V    wanted Debian version (default 4.2.1-1); the newest offered >= 4.2.1 is taken
#                  when V is not offered
# Environment: CUDASTORE_CACHE (default /var/cache/cudastore) holds sources and build trees.
set -euo pipefail

PREFIX=/usr/local
BUNDLE=
CUDA_PLUGIN_DIR=
WANT=4.2.1-1
MIN_UPSTREAM=4.2.1
CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) PREFIX=$2; shift 2 ;;
	--bundle) BUNDLE=$2; shift 2 ;;
	--cuda-plugin) CUDA_PLUGIN_DIR=$2; shift 2 ;;
	--version) WANT=$2; shift 2 ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "provide-criu: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

log() { echo "provide-criu: $*" >&2; }
die() { echo "provide-criu: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and writes $PREFIX)"
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=setup-lib.sh
. "$SCRIPTS/setup-lib.sh"
cache_lock "$CACHE/provide-criu.lock" "it builds or installs CRIU from $CACHE (a first build takes 1-2 minutes)"

BUILD_DEPS="build-essential pkg-config dpkg-dev ca-certificates libprotobuf-dev libprotobuf-c-dev
protobuf-c-compiler protobuf-compiler python3-protobuf libcap-dev libnl-3-dev libnl-route-3-dev
libnet1-dev libaio-dev libgnutls28-dev libbsd-dev uuid-dev libdrm-dev iproute2 xz-utils"

installed_version() {
	[ -x "$PREFIX/sbin/criu" ] || return 1
	"$PREFIX/sbin/criu" --version 2>/dev/null | sed -n 's/^Version: *//p'
}

version_ge() { dpkg --compare-versions "$1" ge "$2"; }

# libcriu goes where Debian's multiarch loader and pkg-config look under PREFIX
LIBDIR=$PREFIX/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)

have_libcriu() { [ -e "$LIBDIR/libcriu.so.2" ] && [ -f "$LIBDIR/pkgconfig/criu.pc" ]; }

# install_libcriu BUILD: what CRIU's install-lib installs, without its Python package
install_libcriu() {
	local b=$1 ver so=libcriu.so.2.0
	make -C "$b" lib/c/libcriu.so >>"$b/../build.log" 2>&1 ||
		{ tail -n 20 "$b/../build.log" >&2; die "libcriu build failed; full log in $b/../build.log"; }
	ver=$(sed -n 's/^#define CRIU_VERSION "\(.*\)"$/\1/p' "$b/criu/include/version.h")
	install -D -m 755 "$b/lib/c/libcriu.so" "$LIBDIR/$so"
	ln -sfn "$so" "$LIBDIR/libcriu.so.2"
	ln -sfn "$so" "$LIBDIR/libcriu.so"
	install -m 644 "$b/lib/c/criu.h" "$b/images/rpc.proto" "$b/images/rpc.pb-c.h" \
		"$b/criu/include/version.h" "$PREFIX/include/criu/"
	mkdir -p "$LIBDIR/pkgconfig"
	sed -e "s,@version@,$ver," -e "s,@libdir@,$LIBDIR," -e "s,@includedir@,$PREFIX/include/criu/," \
		"$b/lib/c/criu.pc.in" >"$LIBDIR/pkgconfig/criu.pc"
	ldconfig
	log "installed libcriu $ver in $LIBDIR (criu.pc for pkg-config)"
}

make_bundle() {
	local out=$1 bin=$PREFIX/sbin/criu lib
	log "writing relocatable bundle to $out"
	rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
	cp "$bin" "$out/bin/criu"
	# every non-libc shared library; libc, ld.so, libm, libpthread, libdl, librt come from the host
	ldd "$bin" | awk '/=> \//{print $3}' | while read -r lib; do
		case "$(basename "$lib")" in
		libc.so*|ld-linux*|libm.so*|libpthread.so*|libdl.so*|librt.so*) ;;
		*) cp -L "$lib" "$out/lib/" ;;
		esac
	done
	cat > "$out/criu" <<'WRAP'
#!/bin/sh
# criu from a relocatable bundle: its own libraries for the criu process only
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/criu" "$@"
WRAP
	chmod 755 "$out/criu"
}

# CRIU's cuda plugin from the build tree BUILD (cached: built once per tree). Its Makefile needs
# compel-host, which the criu build made, and the kernel-style ARCH name of criu's headers.
build_cuda_plugin() {
	local build=$1 dir=$1/plugins/cuda arch
	[ -f "$dir/cuda_plugin.c" ] || { log "warning: $dir/cuda_plugin.c missing; CRIU's cuda plugin not built"; return 1; }
	[ -x "$build/compel/compel-host-bin" ] ||
		{ log "warning: $build has no compel-host; CRIU's cuda plugin not built (remove $build and run again)"; return 1; }
	[ "$dir/cuda_plugin.so" -nt "$dir/cuda_plugin.c" ] && return 0
	case "$(uname -m)" in
	x86_64) arch=x86 ;;
	aarch64) arch=aarch64 ;;
	*) arch=$(uname -m) ;;
	esac
	log "building CRIU's cuda plugin in $dir"
	make -C "$dir" ARCH="$arch" cuda_plugin.so >"$dir/build.log" 2>&1 ||
		{ tail -n 20 "$dir/build.log" >&2; log "warning: CRIU's cuda plugin did not build; log in $dir/build.log"; return 1; }
}

# build CRIU's cuda plugin in the build tree of the installed criu; copy it to --cuda-plugin's DIR
provide_cuda_plugin() {
	local ver build
	ver=$(cat "$PREFIX/include/criu/.cudastore-criu-version" 2>/dev/null || true)
	build=$CACHE/src/criu-$ver/build
	if [ -z "$ver" ] || [ ! -d "$build" ]; then
		log "warning: no build tree of the installed criu in $CACHE/src; CRIU's cuda plugin not built"
	elif build_cuda_plugin "$build"; then
		[ -z "$CUDA_PLUGIN_DIR" ] && return 0
		mkdir -p "$CUDA_PLUGIN_DIR" && cp "$build/plugins/cuda/cuda_plugin.so" "$CUDA_PLUGIN_DIR/"
		log "CRIU's cuda plugin copied to $CUDA_PLUGIN_DIR"
		return 0
	fi
	[ -z "$CUDA_PLUGIN_DIR" ] ||
		die "--cuda-plugin: CRIU's cuda plugin could not be built (see the warning above)"
}

# --- fast path: already there -------------------------------------------------------------
if have=$(installed_version) && [ -n "$have" ] && version_ge "$have" "$MIN_UPSTREAM"; then
	if ! have_libcriu; then
		src=$CACHE/src/criu-$(cat "$PREFIX/include/criu/.cudastore-criu-version" 2>/dev/null)/build
		[ -x "$src/criu/criu" ] || die "criu $have is installed without libcriu, and its build tree" \
			"$src is gone: remove $PREFIX/sbin/criu and run again to rebuild both"
		install_libcriu "$src"
	fi
	log "criu $have already installed in $PREFIX/sbin (nothing to build)"
	[ -z "$BUNDLE" ] || make_bundle "$BUNDLE"
	provide_cuda_plugin
	exit 0
fi

# --- private apt configuration: deb-src for forky, reusing this machine's Debian URIs ------
APTDIR=$CACHE/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$CACHE/src"

URI=$("$SCRIPTS/debian-uri.sh") || die "no Debian archive in this machine's apt sources (above)"
log "deb-src forky from this machine's Debian archive, $URI"

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$APTDIR/forky-src.sources" <<SRC
Types: deb-src
URIs: $URI
Suites: forky sid
Components: main
Signed-By: $KEYRING
SRC

APT_PRIV=(-o "Dir::Etc::SourceList=$APTDIR/forky-src.sources" -o "Dir::Etc::SourceParts=/nonexistent"
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache::Archives=$APTDIR/archives"
	-o "APT::Get::List-Cleanup=0")

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt_install "CRIU's build dependencies (on a fresh machine about 15 s from a nearby mirror)" $BUILD_DEPS || die "cannot install CRIU's build dependencies"

log "fetching the forky/sid source index (private apt configuration in $APTDIR)"
apt-get "${APT_PRIV[@]}" update -qq || die "could not read deb-src forky from $URI; check network access to the Debian archive"

# pick the version: WANT when offered, else the newest >= MIN_UPSTREAM
offered=$(apt-cache "${APT_PRIV[@]}" showsrc criu 2>/dev/null | sed -n 's/^Version: //p' | sort -u)
[ -n "$offered" ] || die "Debian's forky/sid sources offer no criu package"
if echo "$offered" | grep -qx "$WANT"; then
	VER=$WANT
else
	VER=$(echo "$offered" | while read -r v; do version_ge "$v" "$MIN_UPSTREAM" && echo "$v"; done |
		sort -V | tail -n1)
	[ -n "$VER" ] || die "no criu >= $MIN_UPSTREAM offered (offered: $(echo $offered))"
	log "criu $WANT is no longer offered; taking the newest offered version >= $MIN_UPSTREAM: $VER"
fi
UPVER=${VER%-*}
UPVER=${UPVER#*:}
log "criu source version $VER (upstream $UPVER)"

SRCDIR=$CACHE/src/criu-$VER
mkdir -p "$SRCDIR"
cd "$SRCDIR"

# .dsc and .orig.tar.* are required; the Debian packaging tarball is not
if ! ls criu_"$UPVER".orig.tar.* >/dev/null 2>&1 || ! ls criu_*.dsc >/dev/null 2>&1; then
	log "downloading source package files"
	apt-get "${APT_PRIV[@]}" source --download-only -qq "criu=$VER" ||
		log "warning: apt-get source did not fetch every file; checking what is needed"
fi
DSC=$(ls criu_*.dsc 2>/dev/null | head -n1)
ORIG=$(ls criu_"$UPVER".orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
[ -n "$DSC" ] || die "criu .dsc for $VER was not downloaded"
[ -n "$ORIG" ] || die "upstream tarball criu_$UPVER.orig.tar.* was not downloaded"

want_sha=$(awk '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f && $3=="'"$ORIG"'" {print $1}' "$DSC")
[ -n "$want_sha" ] || die "$DSC lists no SHA256 for $ORIG"
have_sha=$(sha256sum "$ORIG" | cut -d' ' -f1)
[ "$want_sha" = "$have_sha" ] || { rm -f "$ORIG"; die "SHA256 of $ORIG is $have_sha, $DSC says $want_sha (file removed; run again)"; }
log "verified $ORIG sha256 $have_sha against $DSC"

# --- build ---------------------------------------------------------------------------------
BUILD=$SRCDIR/build
if [ ! -x "$BUILD/criu/criu" ]; then
	rm -rf "$BUILD" && mkdir -p "$BUILD"
	tar -xf "$ORIG" -C "$BUILD" --strip-components=1
	log "building criu $UPVER with $(nproc) CPUs (35-60 s with 2; log: $SRCDIR/build.log)"
	t0=$(date +%s)
	make -C "$BUILD" -j"$(nproc)" criu >"$SRCDIR/build.log" 2>&1 ||
		{ tail -n 40 "$SRCDIR/build.log" >&2; die "criu build failed; full log in $SRCDIR/build.log"; }
	log "built criu $UPVER in $(($(date +%s) - t0)) s"
fi

log "installing criu into $PREFIX"
install -D -m 755 "$BUILD/criu/criu" "$PREFIX/sbin/criu"
install -D -m 644 "$BUILD/criu/include/criu-plugin.h" "$PREFIX/include/criu/criu-plugin.h"
echo "$VER" > "$PREFIX/include/criu/.cudastore-criu-version"
install_libcriu "$BUILD"

have=$(installed_version || true)
log "installed criu ${have:-?} at $PREFIX/sbin/criu"
[ -z "$BUNDLE" ] || make_bundle "$BUNDLE"
provide_cuda_plugin
