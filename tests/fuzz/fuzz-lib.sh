#!/bin/bash
# fuzz-lib.sh - libFuzzer (clang, with ASan + UBSan) on one fuzz target (tests/fuzz/fuzz-NAME.c)
# for a bounded time, starting from its seed corpus and kept crashes; sourced by test-fuzz-NAME.sh
# after it set FUZZ_NAME, FUZZ_SECONDS (CS_FUZZ_SECONDS overrides it), FUZZ_CORPUS,
# FUZZ_REGRESSIONS and FUZZ_MAX_LEN. Any crash, leak, sanitizer report or broken property fails
# the test; the input is kept in $top_builddir/tests/fuzz/crashes/ and printed in hex, to be added
# to FUZZ_REGRESSIONS. SKIP, with the reason, when clang or its libFuzzer runtime is missing
# (scripts/setup-debian.sh installs clang); fuzz-replay[-NAME] replays the corpus in every build.
. "$top_srcdir/tests/e2e/lib.sh"

CLANG=${CLANG:-clang}
SECONDS_TO_RUN=${CS_FUZZ_SECONDS:-$FUZZ_SECONDS}
FUZZER=$top_builddir/tests/fuzz/fuzz-$FUZZ_NAME-libfuzzer
CRASHES=$top_builddir/tests/fuzz/crashes
unset MAKEFLAGS MFLAGS MAKELEVEL # the outer make's jobserver is not ours

command -v "$CLANG" >/dev/null ||
	skip_all "$CLANG not installed (scripts/setup-debian.sh installs Debian's clang): no libFuzzer run; fuzz-replay still runs the corpus"
WORK=$(mktemp -d /tmp/cs-fuzz-test.XXXXXX)
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' \
	>"$WORK/probe.c"
why=$("$CLANG" -fsanitize=fuzzer,address,undefined -o "$WORK/probe" "$WORK/probe.c" 2>&1) ||
	skip_all "$CLANG cannot link a libFuzzer target (its runtime, libclang-rt, is missing?): $(echo "$why" | head -n1 | cut -c1-120)"

start=$SECONDS
if make -C "$top_builddir" "tests/fuzz/fuzz-$FUZZ_NAME-libfuzzer" CLANG="$CLANG" >"$WORK/build.log" 2>&1; then
	ok "$FUZZ_NAME fuzz target built with $("$CLANG" --version | head -n1 | sed 's/ (.*//') and -fsanitize=fuzzer,address,undefined ($((SECONDS - start)) s)"
else
	not_ok "$FUZZ_NAME fuzz target build failed:"
	tail -n 20 "$WORK/build.log" | sed 's/^/#   /'
	plan "$T_N"
	done_testing
fi

# libFuzzer adds what it finds to its first corpus directory: give it a scratch copy
mkdir -p "$WORK/corpus" "$WORK/artifacts" "$WORK/tmp"
find "$FUZZ_CORPUS" -maxdepth 1 -type f -exec cp {} "$WORK/corpus/" \;
[ -d "$FUZZ_REGRESSIONS" ] && find "$FUZZ_REGRESSIONS" -maxdepth 1 -type f ! -name README -exec cp {} "$WORK/corpus/" \;
seeds=$(ls "$WORK/corpus" | wc -l)
start=$SECONDS
TMPDIR=$WORK/tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	timeout -k 10 $((SECONDS_TO_RUN + 120)) "$FUZZER" -max_total_time="$SECONDS_TO_RUN" -timeout=10 \
	-rss_limit_mb=2048 -max_len="$FUZZ_MAX_LEN" -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" \
	"$WORK/corpus" >"$WORK/fuzz.log" 2>&1
rc=$?
ran=$((SECONDS - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/fuzz.log" | tail -n1)
cov=$(grep -oE 'cov: [0-9]+' "$WORK/fuzz.log" | tail -n1 | cut -d' ' -f2)
grown=$(ls "$WORK/corpus" | wc -l)
crashes=$(find "$WORK/artifacts" -type f | sort)
if [ -n "$crashes" ]; then
	mkdir -p "$CRASHES"
	for c in $crashes; do
		cp "$c" "$CRASHES/$FUZZ_NAME-$(basename "$c")"
		diag "crash input $(basename "$c") ($(stat -c %s "$c") bytes), kept as $CRASHES/$FUZZ_NAME-$(basename "$c"):"
		od -An -tx1 -v "$c" | head -n 32 | sed 's/^/#   /'
	done
	diag "libFuzzer's report:"
	grep -m1 -B2 -A30 -E '==ERROR|runtime error|property broken|deadly signal' "$WORK/fuzz.log" | sed 's/^/#   /'
fi
good=no
[ "$rc" = 0 ] && [ -z "$crashes" ] && [ "${execs:-0}" -gt 0 ] && good=yes
check "libFuzzer ran ${ran} s on $FUZZ_NAME (exit $rc): ${execs:-?} inputs, coverage ${cov:-?} edges, corpus $seeds -> $grown, no crash" \
	[ $good = yes ]
[ "$rc" = 0 ] || tail -n 40 "$WORK/fuzz.log" | sed 's/^/#   /'
check "the target removed its work directories" [ -z "$(ls -A "$WORK/tmp")" ]
plan "$T_N"
done_testing
