#!/bin/bash
# test-sanitizers.sh - the modules' unit tests (tests/base, images, engine, helper, criu), the fuzz
# replays, the emulator tests and a set of e2e scenarios through real criu (SANITIZER_TESTS and
# SANITIZER_E2E_TESTS in tests/checks.mk) built with AddressSanitizer + UndefinedBehaviorSanitizer
# and run through their own `make check`, in a second build tree under this one
# ($top_builddir/sanitizers). Passes only if every one of those tests
# passes and no process wrote a sanitizer report.
#
# The second tree is configured from a `make distdir` copy of the sources, since automake refuses a
# VPATH build from a source tree that is configured in place. Every ASan/LSan report of every
# process (tests, workloads, daemons whose stderr goes elsewhere) lands in reports/ through
# ASAN_OPTIONS log_path. GCC's UBSan writes to stderr whatever log_path says, but stops the
# process (-fno-sanitize-recover), so its test fails; the tests' logs are searched for reports too.
# Each report found is quoted and fails the run.
# The e2e scenarios run everything of the sanitized tree (cudastore-helper, the driver emulator
# that the helper and the workload both load, the workload, the test tools) but the plugin .so:
# criu, which loads it, is not instrumented, so criu gets this tree's .so ($PLUGIN_SO, passed on as
# CS_TEST_PLUGIN_SO). cudastore-helper inherits criu's stderr, where its UBSan reports go: lib.sh
# appends criu's output to $SAN/criu-output/TEST.criu-output (CS_TEST_CRIU_OUTPUT), searched too.
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
cat >"$probe/p.c" <<'EOF'
#include <limits.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	volatile int i = INT_MAX - 1;
	char *p = malloc(8);

	if (argc > 1 && !strcmp(argv[1], "heap"))
		p[8] = 1;
	if (argc > 1 && !strcmp(argv[1], "overflow"))
		i += argc;
	free(p);
	return i == 0;
}
EOF
why=$("$CC" $SANFLAGS -o "$probe/p" "$probe/p.c" 2>&1 && "$probe/p" 2>&1) ||
	{ rm -rf "$probe"; skip_all "$CC cannot build or run an ASan+UBSan program: $(echo "$why" | head -n1 | cut -c1-120)"; }
# canaries, with the options used below: an ASan report of a child lands in log_path, and a
# UBSan error stops its process (GCC's UBSan writes to stderr even with log_path, next to ASan)
ASAN_OPTIONS="log_path=$probe/asan" sh -c '"$1" heap' sh "$probe/p" >/dev/null 2>&1
check "canary: an ASan report of a child process lands in log_path" \
	grep -qs 'ERROR: AddressSanitizer: heap-buffer-overflow' "$probe"/asan.*
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" "$probe/p" overflow >"$probe/ub.out" 2>&1
rc=$?
check "canary: a UBSan error stops its process (exit $rc) and says so" \
	[ $rc != 0 -a -n "$(grep 'runtime error: signed integer overflow' "$probe/ub.out")" ]
rm -rf "$probe"

# --- a configured sanitizer tree from the sources of this one ------------------------------
step() { # step NAME LOGFILE command... : one TAP line; the log's tail on failure
	local name=$1 log=$2 start=$SECONDS; shift 2
	if "$@" >"$log" 2>&1; then
		ok "$name ($((SECONDS - start)) s)"
	else
		not_ok "$name (exit $?, $((SECONDS - start)) s); last lines of $log:"
		tail -n 30 "$log" | sed 's/^/#   /'
		plan "$T_N"
		exit 1
	fi
}
mkdir -p "$SAN"
rm -rf "$SAN/src" "$SAN/reports" "$SAN/criu-output"
step "copy the sources (make distdir)" "$SAN/distdir.log" \
	make -C "$top_builddir" distdir distdir="$SAN/src"
mkdir -p "$SAN/build" "$SAN/reports" "$SAN/criu-output"
if [ ! -f "$SAN/build/Makefile" ] || [ "$SAN/src/configure" -nt "$SAN/build/config.status" ]; then
	# the same CRIU source tree as this tree's configure was given (--with-criu-src), if any
	criu_src=$(sed -n 's/^#define CS_CRIU_PROBED_SRC "\(.*\)"$/\1/p' "$top_builddir/config.h")
	step "configure with $SANFLAGS" "$SAN/configure.log" \
		sh -c 'cd "$1" && ../src/configure --with-criu="$2" --with-criu-src="$5" CFLAGS="-g -O1 $3" LDFLAGS="$4"' sh \
		"$SAN/build" "${CRIU:-no}" "$SANFLAGS" "-fsanitize=address,undefined" "${criu_src:-no}"
fi
# every ASan/LSan report of every process goes to a file of its own (asan.PID); UBSan stops
export ASAN_OPTIONS="log_path=$SAN/reports/asan:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# the e2e scenarios: criu loads this tree's uninstrumented plugin, which runs the sanitized helper
[ -f "${PLUGIN_SO:-}" ] || bail "the plugin of this tree is not built (PLUGIN_SO=${PLUGIN_SO:-unset})"
export CS_TEST_PLUGIN_SO=$PLUGIN_SO
export CS_TEST_CRIU_OUTPUT=$SAN/criu-output
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
want=$(make -s -C "$SAN/build" print-sanitizer-tests | wc -w)
check "the sanitized suite ran: $ntests of $want test programs, make check exit $rc, $((SECONDS - start)) s" \
	[ "$rc" = 0 -a "$ntests" = "$want" ]

# --- zero sanitizer reports: report files, and reports on stderr that a test's log or criu's ---
# --- output (so cudastore-helper's stderr) caught ---------------------------------------------
reports=$( (find "$SAN/reports" -type f -size +0
	grep -lE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$SAN/criu-output"/* /dev/null 2>/dev/null
	cd "$SAN/build" && grep -lE 'runtime error:|ERROR: (Address|Leak)Sanitizer' \
		$(find tests -name '*.log' -newer .check-start) /dev/null | sed "s|^|$SAN/build/|") | sort)
for r in $reports; do
	diag "sanitizer report in $r:"
	grep -m1 -A40 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$r" | sed 's/^/#     /'
done
nrep=$(echo "$reports" | grep -c .)
sum() { sed -n "s/^# $1: *//p" "$SAN/check.log" | tail -n1 | grep -E '^[0-9]+$' || echo 0; }
totals="$(sum PASS) passed, $(($(sum FAIL) + $(sum ERROR))) failed, $(sum SKIP) skipped"
check "no sanitizer reports from any process; asan+ubsan build: $totals, $nrep sanitizer reports" [ "$nrep" = 0 ]
[ "$T_FAILED" = 0 ] && [ -z "${CS_SAN_KEEP:-}" ] && rm -rf "$SAN/reports" "$SAN/criu-output"
plan "$T_N"
done_testing
