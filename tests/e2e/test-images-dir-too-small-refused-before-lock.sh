#!/bin/bash
# Images directory too small for the process's GPU memory: the dump is refused before the lock
# (NVML plan vs free space), the process is never touched and keeps running.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_TRACE=$WORK/trace
small_dir 16m
plan 5
start_workload w --size 32m --buffers 2
criu_dump "$WORK/small/img" "$WPID"
check "criu dump fails" [ $? != 0 ]
check "error says how much is needed and how much is free" \
	log_has "$WORK/small/img/dump.log" "uses .* GiB of GPU memory .*but the images directory has only .* GiB free"
check "the process was never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "the process runs" alive "$WPID"
check_verdict w "$WPID" "its GPU memory is intact"
done_testing
