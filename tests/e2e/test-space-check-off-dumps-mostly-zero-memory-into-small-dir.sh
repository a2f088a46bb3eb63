#!/bin/bash
# 96 MiB of GPU memory, 90 % zeros, into a 64 MiB images directory: refused before the lock by
# default, and the refusal's advice (space_check = no) works: nothing is reserved at full size,
# only the non-zero chunks take space, and the restore verifies every byte.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
small_dir 64m
plan 7
start_workload w --size 48m --buffers 2 --zero-percent 90
criu_dump "$WORK/small/img" "$WPID"
check "criu dump is refused by default" [ $? != 0 ]
check "the refusal advises space_check = no for mostly-zero memory" \
	log_has "$WORK/small/img/dump.log" "CUDASTORE_SPACE_CHECK=no if most of its memory is zeros"
check "the process runs on" alive "$WPID"
rm -rf "$WORK/small/img"
set_config "space_check = no" "chunk_mb = 1"
criu_dump "$WORK/small/img" "$WPID"
check "with space_check = no the dump succeeds" [ $? = 0 ]
stored=$(du -sk "$WORK/small" | cut -f1)
check "the images take less than the GPU memory (${stored} KiB of 98304)" [ "$stored" -lt 65536 ]
wait_gone "$WPID"
criu_restore "$WORK/small/img"
check "criu restore succeeds" [ $? = 0 ]
check_verdict w "$WPID" "the workload verified every byte"
done_testing
