#!/bin/bash
# Config file mistakes an operator makes, through cudastore check and verify (the same parser as
# the plugin): a misspelled key gets "did you mean", a key set twice a warning (the last value
# wins), and a comment after a value or a quoted value a clear error naming file and line.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
export CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so
mkdir -p "$WORK/cpu"; : >"$WORK/cpu/inventory.img" # images verify accepts once the config is valid
plan 10
conf() { printf '%s\n' "$@" >"$CONFIG"; }
run() { "$CS" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }

conf "# tuning" "thraeds = 4"
run verify "$WORK/cpu"
check "misspelled key: verify refuses the config (exit 2), file and line named" \
	[ "$RC/$(grep -c "$CONFIG:2: unknown option 'thraeds'" "$WORK/err")" = 2/1 ]
check "... and says which key was meant" grep -q "did you mean 'threads'" "$WORK/err"
run check --json --plugin-dir "$WORK"
check "check --json shows the same in options.error" \
	[ "$(jget "\"did you mean 'threads'\" in d['options']['error']")" = True ]
conf "chunk_sizes_mb = 4"
run verify "$WORK/cpu"
check "a key far from every option: no guess, still named" \
	[ "$RC/$(grep -c "unknown option 'chunk_sizes_mb'" "$WORK/err")/$(grep -c 'did you mean' "$WORK/err")" = 2/1/0 ]

conf "threads = 4" "chunk_mb = 4" "threads = 2"
run check --json --plugin-dir "$WORK"
check "duplicate key: a warning naming both lines" \
	[ "$(jget "any(\"$CONFIG:3: 'threads' set again (first at line 1)\" in w for w in d['options']['warnings'])")" = True ]
check "... the last value wins, from line 3" \
	[ "$(jget "(d['options']['values']['threads']['value'], d['options']['values']['threads']['source'])")" = "(2, '$CONFIG:3')" ]
run check --plugin-dir "$WORK"
check "check's text shows the warning" grep -q "warning: .*'threads' set again" "$WORK/out"
run verify "$WORK/cpu"
check "a duplicate is a warning, not an error: verify runs (exit 0)" [ "$RC" = 0 ]

conf "threads = 4   # fewer on small machines"
run verify "$WORK/cpu"
check "comment after a value: a clear error, not a bad value" \
	[ "$RC/$(grep -c "$CONFIG:1: a comment after a value is not allowed" "$WORK/err")" = 2/1 ]
conf 'libcuda = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"'
run verify "$WORK/cpu"
check "quoted value: a clear error saying quotes are not allowed" \
	[ "$RC/$(grep -c "$CONFIG:1: quotes are not allowed" "$WORK/err")" = 2/1 ]
done_testing
