#!/bin/bash
# A SIGSTOP sent from outside while the driver restores the process's GPU memory: criu is not
# inside the driver call (cudastore-helper is), so it sees the driver thread stop, takes the
# SIGSTOP off, lets the thread finish the restore and gives the SIGSTOP back to the process.
# The restore ends, the process is stopped, and it runs on with its memory after SIGCONT.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 7
start_workload w --size 16m --itimer-us 1000
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
export CUDASTORE_TEST_STALL=restore CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg restore "$WORK/img"
wait_file "$STALL" 60 || { kill -9 "$CPID"; bail "the restore never reached the GPU copy"; }
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
kill -STOP "$WPID"
sleep 0.3 # the driver thread meets the stop; criu takes it off within 20 ms
rm -f "$STALL"
for i in $(seq 300); do kill -0 "$CPID" 2>/dev/null || break; sleep 0.1; done
check "criu restore ended in bounded time" bash -c "! kill -0 $CPID 2>/dev/null"
kill -9 "$CPID" 2>/dev/null # only if it hung
wait "$CPID"
rc=$?
check "criu restore succeeded (rc $rc)" [ $rc = 0 ]
check "the plugin took the stop off the driver thread" log_has "$WORK/img/restore.log" \
	"restore thread [0-9]+: stopped .* while running"
check "the GPU restore finished" log_has "$WORK/img/restore.log" "cudastore: pid $WPID: GPU restore done"
for i in $(seq 50); do grep -q '^State:.*T' /proc/$WPID/status 2>/dev/null && break; sleep 0.1; done
check "the process got its SIGSTOP back: it is stopped" grep -q '^State:.*T' /proc/$WPID/status
kill -CONT "$WPID"
check_verdict w "$WPID" "after SIGCONT it runs on with every byte intact"
done_testing
