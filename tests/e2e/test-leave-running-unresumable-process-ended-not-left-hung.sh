#!/bin/bash
# A --leave-running dump after which one process of the tree cannot be resumed (a CUDA IPC
# importer on a driver before branch 610, dumped with old_driver_trees = allow: its restore in
# place fails): criu exits 0 (its exit hook cannot fail the command), so the process is not left
# hung in its next CUDA call behind that success: it is ended, with the reason in criu's log,
# the root runs on with its GPU memory, and the images of the dump are kept.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
set_config "old_driver_trees = allow"
plan 6
export CUDASTORE_EMU_DRIVER_VERSION=13000
start_workload w --size 4m --fork-cuda 1 --child-ipc-import
sleep 0.5
CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
PIDS_TO_KILL="$PIDS_TO_KILL $CHILD"
criu_dump "$WORK/img" "$WPID" -R
check "criu dump --leave-running exits 0" [ $? = 0 ]
check "the child that cannot be resumed was ended, with the reason" log_has "$WORK/img/dump.log" \
	"pid $CHILD: cannot be resumed after the dump \(its GPU memory could not be put back\); ending it so that it does not hang in its next CUDA call. The images of this dump are complete"
sleep 0.5
check "it is not left hung" bash -c "! kill -0 $CHILD 2>/dev/null || grep -q '^State:.*Z' /proc/$CHILD/status"
check "the root was resumed with its GPU memory" log_has "$WORK/img/dump.log" \
	"pid $WPID: resumed with its GPU memory .*--leave-running"
check "and runs on" alive "$WPID"
check "the images of the dump are kept" test -f "$WORK/img/cudastore-$WPID.img" -a -f "$WORK/img/cudastore-$CHILD.img"
done_testing
