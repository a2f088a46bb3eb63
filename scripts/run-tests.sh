#!/usr/bin/env bash
# run-tests.sh - set up a fresh Debian 12 machine (packages, CRIU from source, build) and run
# the whole test suite: unit tests, the driver emulator's tests and the end-to-end scenarios
# through real CRIU. Prints "N passed, N failed[, N skipped]" at the end; exit 0 only if all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh || exit 1

# a hung test must fail CI, not outlive it
timeout -k 30 3000 make -j"$(nproc)" check >/tmp/cudastore-check.out 2>&1
rc=$?
# show every test's result lines, then failing logs
grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' /tmp/cudastore-check.out || true
if [ $rc != 0 ]; then
	for log in $(find tests -name '*.log' -newer Makefile 2>/dev/null); do
		if grep -qE '^(not ok|Bail out)' "$log" 2>/dev/null; then
			echo "===== $log"; tail -n 60 "$log"
		fi
	done
	tail -n 30 /tmp/cudastore-check.out
fi
sum() { sed -n "s/^# $1: *//p" /tmp/cudastore-check.out | tail -n1; }
pass=$(sum PASS); fail=$(sum FAIL); skip=$(sum SKIP); err=$(sum ERROR)
echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
exit $rc
