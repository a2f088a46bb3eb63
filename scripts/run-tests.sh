#!/usr/bin/env bash
# run-tests.sh - set up a fresh Debian 12 machine (packages, CRIU from source, build) and run
# the whole test suite: unit tests, the driver emulator's tests and the end-to-end scenarios
# through real CRIU. Prints "N passed, N failed[, N skipped]" at the end; exit 0 only if all passed.
# Every test runs under a deadline (CS_TEST_TIMEOUT, default 600 s; tests/run-bounded.sh).
#
# Usage (as root): scripts/run-tests.sh [-h|--help]
# Prints each test's PASS/FAIL/SKIP line, the failed tests' logs, then the summary. To run only
# some tests after the setup: make check TESTS="tests/e2e/test-....sh" (docs/testing.md).
set -uo pipefail
case "${1:-}" in
-h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "run-tests: unknown argument '$1' (see scripts/run-tests.sh --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
scripts/setup-debian.sh || exit 1

out=$(mktemp /tmp/cudastore-check.XXXXXX) # make check's whole output (kept for reading)
start=$(date +%s)
# a hung test fails on its own deadline; this one only guards make itself
timeout -k 30 3000 make -j"$(nproc)" check >"$out" 2>&1
rc=$?
# every test's result lines first, then what failed, then a short summary at the very end
grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' "$out" || true
failed_logs=
if [ $rc != 0 ]; then
	for log in $(find tests bench -name '*.log' -newer Makefile 2>/dev/null | sort); do
		if grep -E '^(not ok|Bail out)' "$log" 2>/dev/null | grep -vq '# TODO'; then
			echo "===== $log"; tail -n 60 "$log"
			failed_logs="$failed_logs $log"
		fi
	done
	echo "===== last lines of make check"
	tail -n 15 "$out"
fi

echo "===== summary"
echo "kernel $(uname -r), $(nproc) cpus; $(/usr/local/sbin/criu --version 2>/dev/null | head -n1)," \
	"criu check: $(/usr/local/sbin/criu check >/dev/null 2>&1 && echo ok || echo FAILS)"
grep -E '^SKIP:' "$out" | cut -c1-160 | head -n 20
for log in $failed_logs; do
	echo "failed: ${log%.log}"
	grep -E '^(not ok|Bail out)' "$log" | grep -v '# TODO' | head -n 5 | cut -c1-200 | sed 's/^/  /'
done
sum() { sed -n "s/^# $1: *//p" "$out" | tail -n1; }
pass=$(sum PASS); fail=$(sum FAIL); skip=$(sum SKIP); err=$(sum ERROR)
[ $rc = 124 ] && echo "make check was stopped after 3000 s"
echo "make check took $(( $(date +%s) - start )) s"
echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
exit $rc
