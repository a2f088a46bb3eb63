#!/bin/bash
# On a driver older than branch 610 (the emulator's CUDA 13.0 reports 580.159.04), a tree of two
# CUDA processes is refused at the root's PAUSE, before anything is locked, and runs on: such a
# driver checkpoints a process that imports another's GPU memory through CUDA IPC and can never
# restore it (as measured on the H200: the emulated driver's importer behaves the same), and
# nothing in /proc tells the importer apart. One CUDA process with a CPU child dumps and restores
# as before; with old_driver_trees = allow the tree is dumped, and its restore then fails for the
# importer, so that no process of it runs: what the refusal spares the operator.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 11
export CUDASTORE_EMU_DRIVER_VERSION=13000 CUDASTORE_EMU_TRACE=$WORK/trace
start_workload w --size 4m --fork-cuda 1 --child-ipc-import
sleep 0.5
CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
PIDS_TO_KILL="$PIDS_TO_KILL $CHILD"
criu_dump "$WORK/img" "$WPID"
check "criu dump of the tree of 2 CUDA processes is refused on driver branch 580" [ $? != 0 ]
check "the reason names the tree, its CUDA processes, the driver and the way out" log_has "$WORK/img/dump.log" \
	"the tree of pid $WPID has 2 CUDA processes \($WPID, $CHILD\), and driver 580.159.04 \(older than branch 610\).*old_driver_trees = allow"
check "no process was locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "no cudastore file was written" [ -z "$(cd "$WORK/img" && ls cudastore-* 2>/dev/null)" ]
check_verdict w "$WPID" "the tree runs on: root and child verify every byte"
wait_gone "$WPID"; wait_gone "$CHILD"

# one CUDA process and a CPU-only child: nothing to fear, dumped and restored
start_workload w2 --size 4m --fork-cpu 1
criu_dump "$WORK/img2" "$WPID"
check "one CUDA process with a CPU-only child dumps on branch 580" [ $? = 0 ]
for p in $WPID $(cat /proc/"$WPID"/task/*/children 2>/dev/null); do wait_gone "$p"; done
criu_restore "$WORK/img2"
check "and restores" [ $? = 0 ]
check_verdict w2 "$WPID" "every byte verified after the restore"
wait_gone "$WPID"

# allowed: the importer is checkpointed, and its restore can then never succeed
set_config "old_driver_trees = allow"
start_workload w3 --size 4m --fork-cuda 1 --child-ipc-import
sleep 0.5
CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
criu_dump "$WORK/img3" "$WPID"
check "with old_driver_trees = allow the tree is dumped" [ $? = 0 ]
wait_gone "$WPID"; wait_gone "$CHILD"
criu_restore "$WORK/img3"
check "and its restore fails for the importer" log_has "$WORK/img3/restore.log" \
	"pid $CHILD: driver-managed cuCheckpointProcessRestore failed: CUDA_ERROR_INVALID_VALUE"
sleep 0.5
check "no process of the tree runs" bash -c "! grep -qs '^State:.*[RS]' /proc/$WPID/status /proc/$CHILD/status"
done_testing
