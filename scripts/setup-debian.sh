#!/usr/bin/env bash
# setup-debian.sh - everything a fresh Debian 12 machine needs to build and test cudastore:
# Debian packages, CRIU >= 4.2.1 from Debian's source package, crun with CRIU support from Debian's
# source package, then the build itself.
# Usage (as root, from the source tree): scripts/setup-debian.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "setup: $*" >&2; }
[ "$(id -u)" = 0 ] || { echo "setup: run as root (apt-get, CRIU install)" >&2; exit 1; }
# shellcheck source=setup-lib.sh
. scripts/setup-lib.sh

PKGS="build-essential autoconf automake pkg-config libprotobuf-c-dev protobuf-c-compiler
libxxhash-dev libjson-c-dev libarchive-dev ca-certificates procps"
# container runtimes for the end-to-end tests (tests/e2e/test-runc-*, test-podman-*). Without
# recommends: runc recommends Debian's criu 3.17, which must not shadow /usr/local/sbin/criu.
# Debian 12's crun (1.8.1) is built without CRIU support: provide-crun.sh builds one with it.
PKGS="$PKGS runc podman busybox-static python3"
PKGS="$PKGS clang python3-yaml python3-protobuf iptables bc" # libFuzzer; CRIU's zdtm (docs/testing.md)
# shellcheck disable=SC2086
apt_install "Debian packages" $PKGS

scripts/provide-criu.sh
scripts/provide-crun.sh ||
	log "warning: no crun with CRIU support (reason above); the crun tests will be skipped"
# CRIU 4.3 (Debian experimental binaries in a cached sid root, about 40 s the first time), for the
# test that leave-running is found without criu's private option layout
timeout 600 scripts/provide-criu43.sh >/dev/null ||
	log "warning: no CRIU 4.3 root (reason above); its test will be skipped"
if dpkg -s criu >/dev/null 2>&1; then
	log "warning: Debian's criu package is installed; runtimes look criu up in PATH, so keep" \
		"/usr/local/sbin before /usr/sbin (the tests check which criu runc will run)"
fi

[ "${1:-}" = --no-build ] && exit 0
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	log "generating the build system"
	./autogen.sh >/dev/null 2>&1
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
	log "configuring"
	# the tree criu was built from: configure reads the layout of criu's options from it
	criu_ver=$(cat /usr/local/include/criu/.cudastore-criu-version 2>/dev/null || true)
	criu_src=${CUDASTORE_CACHE:-/var/cache/cudastore}/src/criu-$criu_ver/build
	[ -f "$criu_src/criu/include/cr_options.h" ] || criu_src=no
	./configure --with-criu=/usr/local/sbin/criu --with-criu-src="$criu_src" >/dev/null
fi
log "building"
make -j"$(nproc)" >/dev/null
log "done: cudastore_plugin.so built; criu $(/usr/local/sbin/criu --version | sed -n 's/Version: //p')"
