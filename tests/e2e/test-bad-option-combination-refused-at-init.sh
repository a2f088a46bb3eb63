#!/bin/bash
# Options the copy engine cannot run are refused at init, before any process is locked: a pinned
# bound below one chunk (CUDASTORE_PINNED_MB=2 with the default 4 MiB chunks), or chunk_mb 512
# with pinned_mb 256 in the config file. Before, both passed init and failed in copy-out, after
# the CustomStorage checkpoint call; with rescue=no the process then stayed CHECKPOINTING for good.
# A key the file sets twice is a warning in criu's log, once, before the refusal: the options
# hand it back and the plugin logs it.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 11
export CUDASTORE_EMU_TRACE=$WORK/trace
start_workload w --size 4m
CRIU_ENV="CUDASTORE_PINNED_MB=2 CUDASTORE_RESCUE=no" criu_dump "$WORK/img" "$WPID"
check "criu dump with pinned_mb below one chunk fails" [ $? != 0 ]
check "at init, naming both options" \
	log_has "$WORK/img/dump.log" "bad configuration: pinned_mb 2 \(CUDASTORE_PINNED_MB\) is less than one chunk, chunk_mb 4"
check "the process was never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "no cudastore file was written" [ -z "$(ls "$WORK/img" | grep cudastore)" ]
set_config "threads = 4" "chunk_mb = 512" "threads = 8" "pinned_mb = 256" "rescue = no"
criu_dump "$WORK/img2" "$WPID"
check "criu dump with chunk_mb 512 and pinned_mb 256 fails" [ $? != 0 ]
check "at init, naming the config file" \
	log_has "$WORK/img2/dump.log" "bad configuration: pinned_mb 256 \($CONFIG\) is less than one chunk, chunk_mb 512 \($CONFIG\)"
dup="Warn: cudastore: config file $CONFIG:4: 'threads' set again (first at line 2); the last value wins: keep one"
check "the key set twice: one warning in criu's log" [ "$(grep -caF -- "$dup" "$WORK/img2/dump.log")" = 1 ]
check "... logged before the refusal" \
	[ "$(grep -naF -- "$dup" "$WORK/img2/dump.log" | cut -d: -f1)" -lt \
	  "$(grep -naF -- "bad configuration" "$WORK/img2/dump.log" | head -n1 | cut -d: -f1)" ]
check "still never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "the workload still runs" alive "$WPID"
check_verdict w "$WPID" "its GPU memory is intact"
done_testing
