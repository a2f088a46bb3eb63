#!/bin/bash
# criu dump --leave-running, twice: the process keeps running and computing correctly between
# and after the dumps, and the second images restore correctly too.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 9
export CUDASTORE_EMU_DEVICES=2
start_workload w --devices 2 --size 8m --zero-percent 25
criu_dump "$WORK/img1" "$WPID" --leave-running
check "first dump --leave-running succeeds" [ $? = 0 ]
check "plugin put the GPU memory back" log_has "$WORK/img1/dump.log" "pid $WPID: resumed with its GPU memory .*--leave-running"
sleep 0.5
check "process runs after the first dump" alive "$WPID"
check "it is not failing its running checks" bash -c "[ ! -s '$WORK/w.out' ]"
criu_dump "$WORK/img2" "$WPID" --leave-running
check "second dump --leave-running succeeds" [ $? = 0 ]
sleep 0.5
check "process runs after the second dump" alive "$WPID"
kill -9 "$WPID"; wait_gone "$WPID"
criu_restore "$WORK/img2"
check "restore of the second images succeeds" [ $? = 0 ]
check "restored process runs" alive "$WPID"
check_verdict w "$WPID" "restored process verified every byte"
done_testing
