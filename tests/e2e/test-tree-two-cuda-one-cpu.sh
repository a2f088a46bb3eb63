#!/bin/bash
# A tree with two CUDA processes and one CPU-only child: both CUDA processes are checkpointed
# into their own images, the CPU child is left to CRIU (no plugin files for it), all restore.
# NVML is loaded and initialised once for the whole dump, not in every PAUSE.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 10
start_workload w --size 4m --fork-cuda 1 --fork-cpu 1
sleep 0.5
kids=$(cat /proc/$WPID/task/*/children)
check "the tree has 2 children ($kids)" [ "$(echo $kids | wc -w)" = 2 ]
CRIU_ENV="CUDASTORE_EMU_TRACE=$WORK/criu.trace" criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
n=$(tr_count "$WORK/criu.trace" nvmlInit_v2)
check "NVML initialised once for the dump of two CUDA processes ($n)" [ "$n" = 1 ]
n=$(tr_count "$WORK/criu.trace" nvmlShutdown)
check "... and shut down once, at the end ($n)" [ "$n" = 1 ]
n=$(ls "$WORK/img" | grep -c 'cudastore-.*\.img$')
check "two manifests, one per CUDA process ($n)" [ "$n" = 2 ]
check "the CPU-only child was passed over (-ENOTSUP, nothing written)" \
	bash -c "for k in $kids; do [ -e '$WORK/img/cudastore-'\$k'.img' ] || exit 0; done; exit 1"
for p in $WPID $kids; do wait_gone "$p"; done
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
c=$(grep -c 'GPU restore done' "$WORK/img/restore.log")
check "both CUDA processes restored ($c)" [ "$c" = 2 ]
check "all three children and the root run" bash -c "for p in $WPID $kids; do kill -0 \$p || exit 1; done"
check_verdict w "$WPID" "root and children verified every byte"
done_testing
