#!/usr/bin/env bash
# provide-criu43.sh - a Debian sid root with CRIU 4.3 from Debian experimental, for tests.
#
# CRIU 4.3 is only packaged as binaries (Debian experimental, 4.3-1~exp2) that need glibc >= 2.38,
# newer than Debian 12's. This script makes a minimal sid root with debootstrap and installs
# criu 4.3 from experimental into it. A chrooted criu cannot run (a chrooted process may not
# create user namespaces, which criu's kernel feature detection does), so the script also
# writes ROOT/opt/cudastore/criu: criu 4.3 with the root's own loader and libraries
# (patchelf: interpreter and RPATH into ROOT), which runs on this host like any criu, with
# /proc/self/exe still criu. tests/e2e/test-criu43-options-read-through-its-layout.sh uses it. The root
# is cached: a second run is a no-op (under a second). Optional: nothing else needs it, and the
# test skips without it. Time measured on a 2-CPU Debian 12 VM: about 40 s. The packages come
# from this machine's own Debian archive (scripts/debian-uri.sh reads it from its apt sources).
# Runs sharing a cache take turns: a second one waits for the first (scripts/setup-lib.sh).
#
# Usage: scripts/provide-criu43.sh [--root DIR] [--mirror URL] [--print]
#   --root DIR    where the root lives (default $CUDASTORE_CACHE/criu43-sid)
#   --mirror URL  the Debian archive to bootstrap from (default: this machine's, as above)
#   --print       only print the root's path if it is ready (exit 0), else exit 1; never waits
# Environment: CUDASTORE_CACHE (default /var/cache/cudastore).
set -euo pipefail

CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}
ROOT=$CACHE/criu43-sid
MIRROR=
PRINT=

while [ $# -gt 0 ]; do
	case "$1" in
	--root) ROOT=$2; shift 2 ;;
	--mirror) MIRROR=$2; shift 2 ;;
	--print) PRINT=1; shift ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "provide-criu43: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

log() { echo "provide-criu43: $*" >&2; }
die() { echo "provide-criu43: error: $*" >&2; exit 1; }

ready() { [ -f "$ROOT/.cudastore-criu43-ready" ] && [ -x "$ROOT/opt/cudastore/criu" ]; }

# --print never waits: the root appears whole (renamed into place) or not at all
if [ -n "$PRINT" ]; then
	ready || exit 1
	echo "$ROOT"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=setup-lib.sh
. "$SCRIPTS/setup-lib.sh"
cache_lock "$CACHE/provide-criu43.lock" "it makes the CRIU 4.3 root $ROOT (about 40 s)"
if ready; then
	echo "$ROOT"
	exit 0
fi

start=$(date +%s)
if [ -z "$MIRROR" ]; then
	MIRROR=$("$SCRIPTS/debian-uri.sh") || die "no Debian archive in this machine's apt sources (above); or name one with --mirror"
fi
apt_install debootstrap debootstrap || die "cannot install debootstrap (apt-get install debootstrap)"

tmp=$ROOT.tmp
rm -rf "$tmp"
mkdir -p "$(dirname "$ROOT")"
log "debootstrap of sid into $tmp from $MIRROR (about 40 s with criu 4.3)"
debootstrap --variant=minbase sid "$tmp" "$MIRROR" >&2 ||
	die "debootstrap of sid from $MIRROR failed (network? see above)"

echo "deb $MIRROR experimental main" >"$tmp/etc/apt/sources.list.d/experimental.list"
# a mirror that serves an older snapshot has expired Release files: accept them
printf 'Acquire::Check-Valid-Until "false";\n' >"$tmp/etc/apt/apt.conf.d/99cudastore-valid-until"
in_root() { chroot "$tmp" env DEBIAN_FRONTEND=noninteractive "$@"; }
mount -t proc proc "$tmp/proc"
trap 'umount "$tmp/proc" 2>/dev/null || true' EXIT
in_root apt-get update -q >&2 || die "apt-get update in the sid root failed"
log "installing criu 4.3 from experimental"
in_root apt-get install -y -q --no-install-recommends -t experimental criu >&2 ||
	die "cannot install criu from experimental into the sid root"
in_root apt-get install -y -q --no-install-recommends patchelf >&2 ||
	die "cannot install patchelf into the sid root"
in_root apt-get clean
ver=$(chroot "$tmp" criu --version | sed -n 's/^Version: *//p')
case "$ver" in
4.3*) ;;
*) die "experimental gave criu '$ver', not 4.3" ;;
esac
umount "$tmp/proc"
trap - EXIT
# the final paths: the loader and libraries are found where the root will be, not in $tmp
mkdir -p "$tmp/opt/cudastore"
cp "$tmp/usr/sbin/criu" "$tmp/opt/cudastore/criu"
chroot "$tmp" patchelf --set-interpreter "$ROOT/lib64/ld-linux-x86-64.so.2" --force-rpath \
	--set-rpath "$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu" /opt/cudastore/criu ||
	die "patchelf of criu 4.3 failed"
touch "$tmp/.cudastore-criu43-ready"
rm -rf "$ROOT"
mv "$tmp" "$ROOT"
log "criu $ver ready in $ROOT ($(($(date +%s) - start)) s)"
echo "$ROOT"
