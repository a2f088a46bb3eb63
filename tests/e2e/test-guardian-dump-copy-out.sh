#!/bin/bash
# criu is SIGKILLed in the middle of the copy-out: cudastore-helper's guardian brings the CUDA
# process back to running with its GPU memory, and the images hold a complete set or none.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 8
guardian_dump copy-out no
done_testing
