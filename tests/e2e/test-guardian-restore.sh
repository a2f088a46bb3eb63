#!/bin/bash
# criu is SIGKILLed in the middle of a GPU restore: the half-restored process is killed by
# cudastore-helper (it never runs with partial GPU memory) and the images are not modified.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 6
start_workload w --size 48m
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
before=$(images_sum "$WORK/img")
export CUDASTORE_TEST_STALL=restore CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg restore "$WORK/img"
kill_criu_at restore
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
wait_gone "$WPID"
check "the half-restored process is gone" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
check "the images were not modified" [ "$before" = "$(images_sum "$WORK/img")" ]
criu_restore "$WORK/img"
check "the same images then restore" [ $? = 0 ]
check_verdict w "$WPID" "the restored workload verified every byte"
done_testing
