#!/bin/bash
# test-fuzz-manifest.sh - libFuzzer on the manifest decoder and the extent checks
# (tests/fuzz/fuzz-manifest.c) for CS_FUZZ_SECONDS (default 60), from the seed corpus of real
# images (tests/fuzz/corpus) and the kept crashes (tests/fuzz/regressions); see fuzz-lib.sh.
FUZZ_NAME=manifest FUZZ_SECONDS=60 FUZZ_MAX_LEN=8192
FUZZ_CORPUS=$top_srcdir/tests/fuzz/corpus FUZZ_REGRESSIONS=$top_srcdir/tests/fuzz/regressions
. "$top_srcdir/tests/fuzz/fuzz-lib.sh"
