#!/usr/bin/env bash
# setup-debian.sh - everything a fresh Debian 12 machine needs to build and test cudastore: the
# test suite's Debian packages, then the build's set-up (scripts/setup-build.sh: the build's
# packages, CRIU >= 4.2.1 from Debian's source package, the build itself), then crun with CRIU
# support from Debian's source package and the CRIU 4.3 root, both optional.
# scripts/run-tests.sh runs it; the demo needs only scripts/setup-build.sh.
# Usage (as root, from the source tree): scripts/setup-debian.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "setup: $*" >&2; }
[ "$(id -u)" = 0 ] || { echo "setup: run as root (apt-get, CRIU install)" >&2; exit 1; }
# shellcheck source=setup-lib.sh
. scripts/setup-lib.sh

# procps for the tests' ps and pgrep. Container runtimes for the end-to-end tests
# (tests/e2e/test-runc-*, test-podman-*, test-containerd-*), without recommends: runc recommends
# Debian's criu 3.17, which must not shadow /usr/local/sbin/criu. Debian 12's crun (1.8.1) is
# built without CRIU support: provide-crun.sh builds one with it.
TEST_PKGS="procps runc podman containerd busybox-static python3"
TEST_PKGS="$TEST_PKGS clang python3-yaml python3-protobuf iptables bc" # libFuzzer; CRIU's zdtm (docs/testing.md)
# shellcheck disable=SC2086
apt_install "the test suite's Debian packages (on a fresh machine about 15 s from a nearby mirror)" $TEST_PKGS

scripts/setup-build.sh "$@"
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
