#!/bin/bash
# test-fuzz-wire.sh - libFuzzer on the plugin <-> helper protocol receiver (tests/fuzz/fuzz-wire.c) for CS_FUZZ_SECONDS (default 10),
# from tests/fuzz/corpus/wire and the kept crashes in tests/fuzz/regressions/wire; see fuzz-lib.sh.
FUZZ_NAME=wire FUZZ_SECONDS=10 FUZZ_MAX_LEN=8400
FUZZ_CORPUS=$top_srcdir/tests/fuzz/corpus/wire FUZZ_REGRESSIONS=$top_srcdir/tests/fuzz/regressions/wire
. "$top_srcdir/tests/fuzz/fuzz-lib.sh"
