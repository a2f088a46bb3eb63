#!/bin/bash
# A FIFO planted as cudastore-guardian.log in the images directory: criu is SIGKILLed after the
# lock, and the guardian neither blocks on the FIFO nor writes into it; it puts the CUDA process
# back to running with its GPU memory and exits.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 5
start_workload w --size 8m
mkdir -p "$WORK/img"
mkfifo -m 600 "$WORK/img/cudastore-guardian.log"
export CUDASTORE_TEST_STALL=after-lock CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg dump "$WORK/img"
kill_criu_at after-lock
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
check "the FIFO is still there, untouched" [ -p "$WORK/img/cudastore-guardian.log" ]
sleep 0.5
check "the workload keeps running" alive "$WPID"
check "its running GPU checks never failed" bash -c "[ ! -s '$WORK/w.out' ]"
check_verdict w "$WPID" "the workload verified every byte of its GPU memory"
done_testing
