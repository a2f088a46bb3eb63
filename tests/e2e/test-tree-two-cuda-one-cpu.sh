#!/bin/bash
# A tree with two CUDA processes and one CPU-only child: both CUDA processes are checkpointed
# into their own images, the CPU child is left to CRIU (no plugin files for it), all restore.
# NVML is loaded and initialised once for the whole dump, not in every PAUSE.
# Then the failure case (docs/design.md, "A failed GPU restore in a tree"): one flipped byte in
# one process's extent. The plugin kills the whole tree; CRIU's final detach then fails, so
# CRIU exits 1 ("Restoring FAILED"): nothing of the tree runs.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 21
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
n=$(ls "$WORK/img" | grep -c '^cudastore-[0-9]*\.img$')
check "two manifests, one per CUDA process ($n)" [ "$n" = 2 ]
check "the CPU-only child was passed over (-ENOTSUP, nothing written)" \
	bash -c "for k in $kids; do [ -e '$WORK/img/cudastore-'\$k'.img' ] || exit 0; done; exit 1"
for p in $WPID $kids; do wait_gone "$p"; done
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
c=$(grep -c 'GPU restore done' "$WORK/img/restore.log")
check "both CUDA processes restored ($c)" [ "$c" = 2 ]
# the pool serves both and is unpinned once, after the second (criu without -d lives on with the tree)
check "the pinned pool was released once, after both restores" bash -c "
	r=\$(grep -an 'pinned pool released: no process of these images is left to restore' '$WORK/img/restore.log' | cut -d: -f1)
	d=\$(grep -an 'GPU restore done' '$WORK/img/restore.log' | tail -n1 | cut -d: -f1)
	[ \$(echo \"\$r\" | grep -c .) = 1 ] && [ \"\$r\" -gt \"\$d\" ]"
check "all three children and the root run" bash -c "for p in $WPID $kids; do kill -0 \$p || exit 1; done"
check_verdict w "$WPID" "root and children verified every byte"

# ---- one flipped byte in the CUDA child's extent ----------------------------------------------
for p in $WPID $kids; do wait_gone "$p"; done
start_workload t --size 4m --fork-cuda 1 --fork-cpu 1
sleep 0.5
kids=$(cat /proc/$WPID/task/*/children)
criu_dump "$WORK/img2" "$WPID"
check "second tree dumped" [ $? = 0 ]
cuda_kid=
for k in $kids; do [ -e "$(manifest_of "$WORK/img2" "$k")" ] && cuda_kid=$k; done
check "the CUDA child ($cuda_kid) has its own extent" [ -n "$cuda_kid" ] && [ -f "$(extent_of "$WORK/img2" "$cuda_kid" 0)" ]
flip_byte "$(extent_of "$WORK/img2" "$cuda_kid" 0)"
for p in $WPID $kids; do wait_gone "$p"; done
criu_restore "$WORK/img2"
rc=$?
check "criu restore exits 1 ($rc)" [ "$rc" = 1 ]
check "the plugin refused the damaged child's chunk" log_has "$WORK/img2/restore.log" \
	"pid $cuda_kid: copying the images into the GPU failed: restore: checksum mismatch in cudastore-$cuda_kid-gpu0.ext"
check "and killed that process" log_has "$WORK/img2/restore.log" "pid $cuda_kid: GPU restore failed .*killing the process"
check "the plugin killed the whole tree before any process resumed" log_has "$WORK/img2/restore.log" \
	"killing all 3 processes of the tree so that none runs"
check "CRIU's final detach failed on it" log_has "$WORK/img2/restore.log" "Unable to detach [0-9]*"
check "CRIU killed the tree and said Restoring FAILED" \
	bash -c "grep -q 'Killing processes because of failure on restore' '$WORK/img2/restore.log' && grep -q 'Restoring FAILED' '$WORK/img2/restore.log'"
sleep 0.3
check "nothing of the tree runs: root, CUDA child, CPU child ($WPID $kids)" gone $WPID $kids
check "the intact root's GPU state had been restored before (it was killed with the tree)" \
	log_has "$WORK/img2/restore.log" "pid $WPID: GPU restore done"
done_testing
