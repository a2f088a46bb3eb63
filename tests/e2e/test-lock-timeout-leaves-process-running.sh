#!/bin/bash
# The lock times out because the application is inside a long CUDA call: the dump fails, the
# process is left unlocked and running, and its GPU memory is intact.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_TRACE=$WORK/trace
plan 5
CUDASTORE_EMU_DELAY=cuMemcpyHtoD:1500 start_workload w --size 1m --buffers 1
CRIU_ENV="CUDASTORE_LOCK_TIMEOUT_MS=300" criu_dump "$WORK/img" "$WPID"
check "criu dump fails" [ $? != 0 ]
check "the error explains the timeout and what to do" log_has "$WORK/img/dump.log" "cuCheckpointProcessLock \(timeout 300 ms\) failed.*raise criu --timeout"
check "the lock was attempted" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" -ge 1 ]
check "the process runs" alive "$WPID"
check_verdict w "$WPID" "its GPU memory is intact"
done_testing
