#!/bin/bash
# The cudastore command's usage, as any user, without criu or a GPU: --help for every
# subcommand, exit 2 on usage errors with a hint (check --images without its directory too), exit 1 with a clear message on a directory
# without images, check --json without a libcuda (parsed: what failed and what to do).
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
export CUDASTORE_CONFIG=$WORK/empty.conf
: >"$CUDASTORE_CONFIG"
plan 17
run() { "$CS" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
run; check "no command: exit 2, usage on stderr" [ "$RC/$(grep -c '^Usage: cudastore COMMAND' "$WORK/err")" = 2/1 ]
run --help; check "--help: exit 0, lists the commands" \
	[ "$RC/$(grep -cE '^  (check|inspect|verify) ' "$WORK/out")" = 0/3 ]
run --version; check "--version prints the package version" grep -Eq '^cudastore [0-9]+\.[0-9]+' "$WORK/out"
for sub in check inspect verify; do
	run "$sub" --help
	check "$sub --help: exit 0, its usage and exit status" \
		[ "$RC/$(grep -c "^Usage: cudastore $sub" "$WORK/out")/$(grep -c 'Exit status' "$WORK/out")" = 0/1/1 ]
done
run frobnicate; check "unknown command: exit 2, named" [ "$RC/$(grep -c "unknown command 'frobnicate'" "$WORK/err")" = 2/1 ]
run verify; check "verify without a directory: exit 2 and a hint" [ "$RC/$(grep -c "Try 'cudastore verify --help'" "$WORK/err")" = 2/1 ]
run check --images; check "check --images without a directory: exit 2, the option named" \
	[ "$RC/$(grep -c "option '--images' needs an argument" "$WORK/err")" = 2/1 ]
run inspect --bogus "$WORK"; check "inspect with an unknown option: exit 2" [ "$RC" = 2 ]
run verify "$WORK" abc; check "verify with a PID that is no number: exit 2, named" [ "$RC/$(grep -c "'abc' is not a pid" "$WORK/err")" = 2/1 ]
run verify "$WORK/nonexistent"; check "verify on a missing directory: exit 2, directory named" \
	[ "$RC/$(grep -c "$WORK/nonexistent" "$WORK/err")" = 2/1 ]
mkdir -p "$WORK/noimages"
run verify "$WORK/noimages"; check "verify on a directory without images: exit 1, says so" \
	[ "$RC/$(grep -c 'holds no checkpoint images' "$WORK/err")" = 1/1 ]
run inspect "$WORK/noimages"; check "inspect on a directory without images: exit 1" [ "$RC" = 1 ]
run verify "$WORK/noimages" 4242; check "verify of a PID without images: exit 1, the directory named" \
	[ "$RC/$(grep -c "$WORK/noimages holds no checkpoint images" "$WORK/err")" = 1/1 ]
CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so run check --json --plugin-dir "$WORK/noimages"
check "check without libcuda: exit 1" [ "$RC" = 1 ]
check "check --json without libcuda: not loaded, the library named, what to do" \
	[ "$(json_get "$WORK/out" "(d['ok'], d['libcuda']['loaded'], any('$WORK/no-libcuda.so' in p and 'Install the NVIDIA driver' in p for p in d['problems']))")" = "(False, False, True)" ]
done_testing
