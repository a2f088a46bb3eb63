#!/bin/bash
# Each driver call of the dump failing by fault injection (lock, checkpoint, device-to-host copy,
# and the driver-managed checkpoint): the dump fails cleanly and the process runs on with its GPU
# memory intact. A failed Complete is never retried on its handle: the process, stuck in
# CHECKPOINTING with no way back, is ended with the reason instead of hanging, and no file of the
# dump is left.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 17
case_fault() { # case_fault NAME FAULTS [MODE]
	local name=$1 fault=$2 mode=${3:-auto}
	start_workload "$name" --size 4m --seed 11
	CRIU_ENV="CUDASTORE_EMU_FAULTS=$fault CUDASTORE_MODE=$mode" criu_dump "$WORK/$name" "$WPID"
	check "$name: dump fails" [ $? != 0 ]
	check "$name: the plugin says what failed" log_has "$WORK/$name/dump.log" "Error.*cudastore: pid $WPID"
	check_verdict "$name" "$WPID" "$name: process runs on with intact GPU memory"
}
case_fault lock cuCheckpointProcessLock:1:999
case_fault checkpoint cuCheckpointProcessCheckpoint:1:999
case_fault copy-out cuMemcpyDtoHAsync:1:700
case_fault driver-checkpoint cuCheckpointProcessCheckpoint:1:999 driver

# Complete fails: the handle is gone whatever Complete returned (the emulator destroys the
# operation, the target stays CHECKPOINTING). It is never completed again; the process cannot be
# resumed: it is ended with the reason.
start_workload complete --size 4m --seed 11
CRIU_ENV="CUDASTORE_EMU_FAULTS=cuCheckpointOperationComplete:1:999 CUDASTORE_EMU_TRACE=$WORK/complete.trace" \
	criu_dump "$WORK/complete" "$WPID"
check "complete: dump fails" [ $? != 0 ]
n=$(tr_count "$WORK/complete.trace" cuCheckpointOperationComplete)
check "complete: cuCheckpointOperationComplete called once on the handle ($n)" [ "$n" = 1 ]
check "complete: the process is ended with the reason" log_has "$WORK/complete/dump.log" \
	"Error.*pid $WPID: cannot be resumed after the dump \(it is stuck in CHECKPOINTING: cuCheckpointOperationComplete failed.*\); ending it"
sleep 0.5
check "complete: it is not left hung" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
check "complete: no file of the failed dump is left" [ -z "$(cd "$WORK/complete" && ls cudastore-* 2>/dev/null)" ]
done_testing
