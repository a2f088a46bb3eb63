#!/bin/bash
# test-fuzz-cli.sh - libFuzzer on cudastore inspect and verify on crafted images directories (tests/fuzz/fuzz-cli.c) for CS_FUZZ_SECONDS (default 15),
# from tests/fuzz/corpus/cli and the kept crashes in tests/fuzz/regressions/cli; see fuzz-lib.sh.
FUZZ_NAME=cli FUZZ_SECONDS=15 FUZZ_MAX_LEN=16384
FUZZ_CORPUS=$top_srcdir/tests/fuzz/corpus/cli FUZZ_REGRESSIONS=$top_srcdir/tests/fuzz/regressions/cli
. "$top_srcdir/tests/fuzz/fuzz-lib.sh"
