#!/bin/bash
# test-fuzz-index.sh - libFuzzer on the index decoder (tests/fuzz/fuzz-index.c) for CS_FUZZ_SECONDS (default 10),
# from tests/fuzz/corpus/index and the kept crashes in tests/fuzz/regressions/index; see fuzz-lib.sh.
FUZZ_NAME=index FUZZ_SECONDS=10 FUZZ_MAX_LEN=4096
FUZZ_CORPUS=$top_srcdir/tests/fuzz/corpus/index FUZZ_REGRESSIONS=$top_srcdir/tests/fuzz/regressions/index
. "$top_srcdir/tests/fuzz/fuzz-lib.sh"
