#!/bin/bash
# Options the copy engine cannot run are refused at init, before any process is locked: a pinned
# bound below one chunk (CUDASTORE_PINNED_MB=2 with the default 4 MiB chunks), or chunk_mb 512
# with pinned_mb 256 in the config file. Before, both passed init and failed in copy-out, after
# the CustomStorage checkpoint call; with rescue=no the process then stayed CHECKPOINTING for good.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 9
export CUDASTORE_EMU_TRACE=$WORK/trace
start_workload w --size 4m
CRIU_ENV="CUDASTORE_PINNED_MB=2 CUDASTORE_RESCUE=no" criu_dump "$WORK/img" "$WPID"
check "criu dump with pinned_mb below one chunk fails" [ $? != 0 ]
check "at init, naming both options" \
	log_has "$WORK/img/dump.log" "bad configuration: pinned_mb 2 \(CUDASTORE_PINNED_MB\) is less than one chunk, chunk_mb 4"
check "the process was never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "no cudastore file was written" [ -z "$(ls "$WORK/img" | grep cudastore)" ]
set_config "chunk_mb = 512" "pinned_mb = 256" "rescue = no"
criu_dump "$WORK/img2" "$WPID"
check "criu dump with chunk_mb 512 and pinned_mb 256 fails" [ $? != 0 ]
check "at init, naming the config file" \
	log_has "$WORK/img2/dump.log" "bad configuration: pinned_mb 256 \($CONFIG\) is less than one chunk, chunk_mb 512 \($CONFIG\)"
check "still never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "the workload still runs" alive "$WPID"
check_verdict w "$WPID" "its GPU memory is intact"
done_testing
