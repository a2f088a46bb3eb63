#!/usr/bin/env bash
# setup-build.sh - the minimal set-up of a fresh Debian 12 machine: what building cudastore and
# running scripts/demo.sh need, and nothing more. The Debian packages of the build (BUILD_PKGS,
# those configure asks for, and autotools), CRIU 4.2.1 built from Debian's source package
# (scripts/provide-criu.sh, with its own build dependencies), then the build itself.
# scripts/demo.sh runs it; scripts/setup-debian.sh runs it too and adds what the test suite needs.
#
# Each long step says what it does and how long it usually takes on a 2-CPU machine. The
# build's output (autogen, configure, make) goes to setup-build.log at the top of the tree,
# which a failed step names.
#
# Usage (as root, from the source tree): scripts/setup-build.sh [--no-build] [TARGET...]
#   --no-build  the packages and CRIU only
#   TARGET...   build these make targets instead of the default one, all (the demo names the
#               plugin, the helper, the command, the driver emulator and the workload)
# Environment: CUDASTORE_CACHE (default /var/cache/cudastore), as scripts/provide-criu.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD

log() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (apt-get, CRIU install)"
# shellcheck source=setup-lib.sh
. scripts/setup-lib.sh

BUILD=yes
case "${1:-}" in
-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--no-build) BUILD=; shift ;;
esac

# what configure checks for (it names each package when one is missing) and autogen.sh's autotools
BUILD_PKGS="build-essential autoconf automake pkg-config libprotobuf-c-dev protobuf-c-compiler
libxxhash-dev libssl-dev libjson-c-dev libarchive-dev"
# shellcheck disable=SC2086
apt_install "the build's Debian packages (on a fresh machine about 15 s from a nearby mirror)" $BUILD_PKGS ||
	die "cannot install the build's Debian packages (see apt-get's message above)"

scripts/provide-criu.sh
[ -n "$BUILD" ] || exit 0

LOG=$TOP/setup-build.log
: >"$LOG"
# step WHAT COMMAND...: run COMMAND with its output in the log; on failure, its end and the log's name
step() {
	local what=$1 t0
	shift
	log "$what"
	t0=$(date +%s)
	echo "===== $what: $*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		tail -n 30 "$LOG" >&2
		die "failed: $what; the whole output is in $LOG"
	fi
	log "    done in $(($(date +%s) - t0)) s"
}

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	step "generating the build system (autogen.sh, about 5 s)" ./autogen.sh
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
	# the tree criu was built from: configure reads the layout of criu's options from it
	criu_ver=$(cat /usr/local/include/criu/.cudastore-criu-version 2>/dev/null || true)
	criu_src=$CS_CACHE/src/criu-$criu_ver/build
	[ -f "$criu_src/criu/include/cr_options.h" ] || criu_src=no
	step "configuring (about 5 s)" ./configure --with-criu=/usr/local/sbin/criu --with-criu-src="$criu_src"
fi
# named targets: the generated sources first, which make builds before all but not before them
make_targets() { make built-sources && make -j"$(nproc)" "$@"; }
if [ $# = 0 ]; then
	step "building cudastore (make -j$(nproc), about 15 s with 2 CPUs)" make -j"$(nproc)"
else
	step "building $* (make -j$(nproc), about 15 s with 2 CPUs)" make_targets "$@"
fi
log "done: cudastore built; criu $(/usr/local/sbin/criu --version | sed -n 's/Version: //p')"
