#!/bin/bash
# test-fuzz-options.sh - libFuzzer on the config file parser (tests/fuzz/fuzz-options.c) for CS_FUZZ_SECONDS (default 10),
# from tests/fuzz/corpus/options and the kept crashes in tests/fuzz/regressions/options; see fuzz-lib.sh.
FUZZ_NAME=options FUZZ_SECONDS=10 FUZZ_MAX_LEN=4096
FUZZ_CORPUS=$top_srcdir/tests/fuzz/corpus/options FUZZ_REGRESSIONS=$top_srcdir/tests/fuzz/regressions/options
. "$top_srcdir/tests/fuzz/fuzz-lib.sh"
