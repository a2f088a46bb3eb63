#!/bin/bash
# Two processes share GPU memory through CUDA IPC (both map the driver's /dev/shm/cuda.shm.*
# file). A driver older than branch 610 checkpoints them without complaint, and the restore then
# fails: the dump is refused before anything is locked, with the reason, and the tree runs on.
# On a newer driver (the emulator's 13.4 is branch 615) the same tree dumps and restores.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
# the tree's CUDA IPC is seen here (the driver's file): refused whatever old_driver_trees says
set_config "old_driver_trees = allow"
plan 8
ipc_cleanup() { rm -f /dev/shm/cuda.shm.0."$(printf %x "$WPID")".1; cleanup; }
trap ipc_cleanup EXIT
export CUDASTORE_EMU_DRIVER_VERSION=13000 CUDASTORE_EMU_TRACE=$WORK/trace
start_workload w --size 4m --fork-cuda 1 --cuda-ipc-file
sleep 0.5
criu_dump "$WORK/img" "$WPID"
check "criu dump is refused on driver branch 580" [ $? != 0 ]
check "the reason names CUDA IPC, the file and the driver" log_has "$WORK/img/dump.log" \
	"pid $WPID shares GPU memory with another process through CUDA IPC \(it maps /dev/shm/cuda.shm.0.[0-9a-f]*.1\); driver 580.159.04 cannot checkpoint CUDA IPC users"
check "no process was locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
check "the tree runs on" alive "$WPID"
check_verdict w "$WPID" "every byte of its GPU memory is intact"
wait_gone "$WPID"
rm -f /dev/shm/cuda.shm.0."$(printf %x "$WPID")".1
export CUDASTORE_EMU_DRIVER_VERSION=13040
start_workload w2 --size 4m --fork-cuda 1 --cuda-ipc-file
sleep 0.5
criu_dump "$WORK/img2" "$WPID"
check "on driver branch 615 the same tree dumps" [ $? = 0 ]
for p in $WPID $(cat /proc/$WPID/task/*/children 2>/dev/null); do wait_gone "$p"; done
criu_restore "$WORK/img2"
check "and restores" [ $? = 0 ]
check_verdict w2 "$WPID" "every byte verified after the restore"
done_testing
