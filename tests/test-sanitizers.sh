#!/bin/bash
# test-sanitizers.sh - the unit, core, engine and emulator tests (SANITIZER_TESTS in
# tests/checks.mk) built with AddressSanitizer + UndefinedBehaviorSanitizer and run through their
# own `make check`, in a second build tree under this one ($top_builddir/sanitizers). Passes only if
# every one of those tests passes and no process wrote a sanitizer report.
#
# The second tree is configured from a `make distdir` copy of the sources, since automake refuses a
# VPATH build from a source tree that is configured in place. Every sanitizer report of every
# process (tests, workloads, daemons whose stderr goes elsewhere) lands in reports/ through
# ASAN_OPTIONS/UBSAN_OPTIONS log_path; each one found is quoted and fails the run.
# SKIP (with the reason) when the compiler cannot build and run a sanitized program.
# Environment: CS_SAN_KEEP=1 keeps the tree's test logs and reports after a pass.
. "$top_srcdir/tests/e2e/lib.sh"

SAN=$top_builddir/sanitizers
SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CC=${CC:-gcc}
unset MAKEFLAGS MFLAGS MAKELEVEL # the outer make's jobserver is not ours
JOBS=$(nproc 2>/dev/null || echo 2)

# --- can this compiler build and run a sanitized program? ---------------------------------
probe=$(mktemp -d /tmp/cs-san-probe.XXXXXX)
printf 'int main(int c, char **v) { return v[c - 1][0] == 0; }\n' >"$probe/p.c"
why=$("$CC" $SANFLAGS -o "$probe/p" "$probe/p.c" 2>&1 && "$probe/p" 2>&1) ||
	{ rm -rf "$probe"; skip_all "$CC cannot build or run an ASan+UBSan program: $(echo "$why" | head -n1 | cut -c1-120)"; }
rm -rf "$probe"

# --- a configured sanitizer tree from the sources of this one ------------------------------
step() { # step NAME LOGFILE command... : one TAP line; the log's tail on failure
	local name=$1 log=$2 start=$SECONDS; shift 2
	if "$@" >"$log" 2>&1; then
		ok "$name ($((SECONDS - start)) s)"
	else
		not_ok "$name (exit $?, $((SECONDS - start)) s); last lines of $log:"
		tail -n 30 "$log" | sed 's/^/#   /'
		exit 1
	fi
}
mkdir -p "$SAN"
rm -rf "$SAN/src" "$SAN/reports"
step "copy the sources (make distdir)" "$SAN/distdir.log" \
	make -C "$top_builddir" distdir distdir="$SAN/src"
mkdir -p "$SAN/build" "$SAN/reports"
if [ ! -f "$SAN/build/Makefile" ] || [ "$SAN/src/configure" -nt "$SAN/build/config.status" ]; then
	step "configure with $SANFLAGS" "$SAN/configure.log" \
		sh -c 'cd "$1" && ../src/configure --with-criu="$2" CFLAGS="-g -O1 $3" LDFLAGS="$4"' sh \
		"$SAN/build" "${CRIU:-no}" "$SANFLAGS" "-fsanitize=address,undefined"
fi
# every sanitizer report of every process goes to a file of its own (name.PID)
export ASAN_OPTIONS="log_path=$SAN/reports/asan:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$SAN/reports/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="log_path=$SAN/reports/lsan"
# each sanitized test under its own deadline; the whole run stays well inside ours
export CS_TEST_TIMEOUT=${CS_SAN_TEST_TIMEOUT:-240}
step "build the sanitized tests" "$SAN/build.log" \
	make -C "$SAN/build" -j"$JOBS" check TESTS=
start=$SECONDS
touch "$SAN/build/.check-start"
make -C "$SAN/build" -j"$JOBS" check TESTS='$(SANITIZER_TESTS)' >"$SAN/check.log" 2>&1
rc=$?

# --- one TAP line per sanitized test program, from its .trs (make's stdout interleaves) -----
ntests=0
for trs in $(cd "$SAN/build" && find tests -name '*.trs' -newer .check-start | sort); do
	t=${trs%.trs}
	ntests=$((ntests + 1))
	count() { grep -cE "^:test-result: ($1)" "$SAN/build/$trs"; }
	p=$(count PASS) f=$(count 'FAIL|ERROR|XPASS') s=$(count SKIP)
	if [ "$f" = 0 ]; then
		ok "asan+ubsan: $t: $p passed$([ "$s" = 0 ] || echo ", $s skipped")"
	else
		not_ok "asan+ubsan: $t: $f failed, $p passed"
		grep -E '^(not ok|Bail out)' "$SAN/build/$t.log" | head -n 5 | cut -c1-200 | sed 's/^/#   /'
	fi
done
check "the sanitized suite ran (make check exit $rc, $ntests test programs, $((SECONDS - start)) s)" \
	[ "$ntests" -gt 0 ]

# --- zero sanitizer reports -----------------------------------------------------------------
reports=$(find "$SAN/reports" -type f -size +0 | sort)
for r in $reports; do
	diag "sanitizer report $r:"
	grep -m1 -E 'ERROR|runtime error|SUMMARY' "$r" | cut -c1-200 | sed 's/^/#   /'
	head -n 40 "$r" | sed 's/^/#     /'
done
nrep=$(echo "$reports" | grep -c .)
sum() { sed -n "s/^# $1: *//p" "$SAN/check.log" | tail -n1 | grep -E '^[0-9]+$' || echo 0; }
totals="$(sum PASS) passed, $(($(sum FAIL) + $(sum ERROR))) failed, $(sum SKIP) skipped"
check "no sanitizer reports from any process; asan+ubsan build: $totals, $nrep sanitizer reports" [ "$nrep" = 0 ]
[ "$T_FAILED" = 0 ] && [ -z "${CS_SAN_KEEP:-}" ] && rm -rf "$SAN/reports"
plan "$T_N"
done_testing
