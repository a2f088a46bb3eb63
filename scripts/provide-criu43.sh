#!/usr/bin/env bash
# provide-criu43.sh - a Debian sid root with CRIU 4.3 from Debian experimental, for tests.
#
# CRIU 4.3 is only packaged as binaries (Debian experimental, 4.3-1~exp2) that need glibc >= 2.38,
# newer than Debian 12's. This script makes a minimal sid root with debootstrap and installs
# criu 4.3 from experimental into it, plus the libraries cudastore-helper links (protobuf-c,
# json-c). tests/e2e/test-criu43-leave-running-observed.sh runs that criu inside the root with /proc,
# /sys, /dev and the test's directories bind-mounted. The root is cached: a second run is a no-op
# (under a second). Optional: nothing else needs it, and a test without it skips.
#
# Usage: scripts/provide-criu43.sh [--root DIR] [--mirror URL] [--print]
#   --root DIR    where the root lives (default $CUDASTORE_CACHE/criu43-sid)
#   --mirror URL  Debian mirror (default http://deb.debian.org/debian)
#   --print       only print the root's path if it is ready (exit 0), else exit 1
# Environment: CUDASTORE_CACHE (default /var/cache/cudastore).
set -euo pipefail

CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}
ROOT=$CACHE/criu43-sid
MIRROR=http://deb.debian.org/debian
PRINT=

while [ $# -gt 0 ]; do
	case "$1" in
	--root) ROOT=$2; shift 2 ;;
	--mirror) MIRROR=$2; shift 2 ;;
	--print) PRINT=1; shift ;;
	-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
	*) echo "provide-criu43: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

log() { echo "provide-criu43: $*" >&2; }
die() { echo "provide-criu43: error: $*" >&2; exit 1; }

ready() { [ -f "$ROOT/.cudastore-criu43-ready" ] && [ -x "$ROOT/usr/sbin/criu" ]; }

if ready; then
	echo "$ROOT"
	exit 0
fi
[ -z "$PRINT" ] || exit 1
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"

start=$(date +%s)
if ! command -v debootstrap >/dev/null; then
	log "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2 ||
		die "cannot install debootstrap (apt-get install debootstrap)"
fi

tmp=$ROOT.tmp
rm -rf "$tmp"
mkdir -p "$(dirname "$ROOT")"
log "debootstrap of sid into $tmp from $MIRROR (a few minutes)"
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
in_root apt-get install -y -q --no-install-recommends libprotobuf-c1 libjson-c5 >&2 ||
	die "cannot install cudastore-helper's libraries into the sid root"
in_root apt-get clean
ver=$(chroot "$tmp" criu --version | sed -n 's/^Version: *//p')
case "$ver" in
4.3*) ;;
*) die "experimental gave criu '$ver', not 4.3" ;;
esac
umount "$tmp/proc"
trap - EXIT
touch "$tmp/.cudastore-criu43-ready"
rm -rf "$ROOT"
mv "$tmp" "$ROOT"
log "criu $ver ready in $ROOT ($(($(date +%s) - start)) s)"
echo "$ROOT"
