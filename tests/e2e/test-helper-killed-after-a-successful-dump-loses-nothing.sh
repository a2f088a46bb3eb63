#!/bin/bash
# cudastore-helper SIGKILLed in the exit hook of a dump that had succeeded (criu then kills the
# tree, as asked): criu's log says what that means (the images are complete; nothing was lost),
# not that "the GPU work of this operation is lost"; criu dump exits 0 and the images restore
# with every byte.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 5
start_workload w --size 8m
export CUDASTORE_TEST_STALL=exit-hook CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg dump "$WORK/img"
wait_file "$STALL" 60 || bail "the helper never reached the exit hook"
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
kill -9 "$(cat "$STALL")"
timeout 60 tail --pid="$CPID" -f /dev/null
wait "$CPID"
rc=$?
check "criu dump exits 0 ($rc)" [ "$rc" = 0 ]
check "criu's log says nothing was lost" log_has "$WORK/img/dump.log" \
	"the dump had succeeded before that: its images are complete .*nothing was lost"
check "and says no GPU work was lost" bash -c "! grep -aq 'GPU work of this operation is lost' '$WORK/img/dump.log'"
wait_gone "$WPID"
criu_restore "$WORK/img"
check "the images restore" [ $? = 0 ]
check_verdict w "$WPID" "every byte back"
done_testing
