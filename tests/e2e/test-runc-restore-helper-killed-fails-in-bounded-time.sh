#!/bin/bash
# runc restore of a stock container whose init (a pid-namespace init) is a CUDA process, with
# cudastore-helper SIGKILLed during the copy-in: criu ends and reaps the whole restored tree, so
# it does not wait forever for a killed init whose namespace still holds traced zombies; runc
# restore fails in bounded time, and nothing of the container runs.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
plan 5
make_bundle c --size 4m --fork-cuda 1 --fork-cpu 1
configure_plugin auto
id=cs-$$-hk
ctr_run c "$id"
pid=$(ctr_pid "$id")
ctr_checkpoint c "$id" "$WORK/img"
check "runc checkpoint succeeds" [ $? = 0 ]
wait_gone "$pid"
STALL=$WORK/stall
export CUDASTORE_TEST_STALL=restore CUDASTORE_TEST_STALL_FILE=$STALL
t0=$(date +%s)
ctr_restore c "$id" "$WORK/img" &
RP=$!
wait_file "$STALL" 60 || bail "the restore never reached its GPU phase"
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
kill -9 "$(cat "$STALL")"
wait "$RP"
rc=$?
t=$(( $(date +%s) - t0 ))
check "runc restore fails ($rc), in bounded time ($t s), not killed by the test's timeout" \
	[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ] && [ "$t" -le 60 ]
check "the plugin ended the whole restored tree" log_has "$WORK/img.rwork/restore.log" \
	"the restore failed: every process of the tree was ended"
check "criu said Restoring FAILED" log_has "$WORK/img.rwork/restore.log" "Restoring FAILED"
check "nothing of the container runs" bash -c "[ \"\$($RUNC state '$id' 2>/dev/null | grep -c '\"running\"')\" = 0 ]"
done_testing
