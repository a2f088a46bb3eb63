#!/bin/bash
# criu is SIGKILLed in the exit hook of a dump that succeeded: cudastore-helper's guardian brings the CUDA
# process back to running with its GPU memory, and the images hold a complete set or none.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 10
guardian_dump exit-hook yes
done_testing
