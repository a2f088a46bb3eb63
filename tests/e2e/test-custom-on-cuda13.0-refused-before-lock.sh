#!/bin/bash
# mode=custom on an emulated CUDA 13.0 driver: the dump is refused before the lock, with a
# message naming the driver version needed, and the process keeps running untouched.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_DRIVER_VERSION=13000 CUDASTORE_EMU_TRACE=$WORK/trace
plan 5
start_workload w --size 4m
CRIU_ENV="CUDASTORE_MODE=custom" criu_dump "$WORK/img" "$WPID"
check "criu dump fails" [ $? != 0 ]
check "error names the missing CustomStorage and the driver version" \
	log_has "$WORK/img/dump.log" "mode=custom but driver CUDA 13000 lacks CustomStorage"
check "the process was never locked (no cuCheckpointProcessLock in the trace)" \
	[ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "the process is still running" alive "$WPID"
check_verdict w "$WPID" "its GPU memory is intact"
done_testing
