#!/bin/bash
# The restore's set-up runs ahead, at POST_FORKING (CRIU >= 4.2), while CRIU restores memory:
# cuInit, the destination GPUs' contexts and the pinned copy buffers (warmup.h). The GPU phase
# then copies with the buffers pinned ahead, and every byte is restored. warmup=no does it all
# in the GPU phase as before; a warm-up whose cuInit fails changes nothing (the restore's own
# cuInit succeeds, no error is logged) and the restore still verifies every byte. The pinned
# buffers have the images' chunk size, whatever this host's chunk_mb, and there are as many as
# the restore's plan uses (two per copy thread), not as many as the pinned bound would hold.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
nm -D "$CRIU" 2>/dev/null | grep -qw collect_madv_guards ||
	skip_all "criu $("$CRIU" --version | sed -n 's/^Version: //p') has no POST_FORKING hook (CRIU >= 4.2)"
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_MEM_MB=4096
plan 24

start_workload w --devices 2 --buffers 2 --size 64m --host-mb 64
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
check "the dump copied with the helper's pinned pool" \
	log_has "$WORK/img/dump.log" "dumped region 0 .* pinned bytes \\([0-9]+ from the pool\\)"
wait_gone "$WPID"
before=$(images_sum "$WORK/img")

# restore_once NAME [criu env]: restore, then the log and the verdict
restore_once() {
	local name=$1
	rm -f "$WORK/w.out" "$WORK/img/restore.log"
	CRIU_ENV=${2:-} criu_restore "$WORK/img"
	check "$name: criu restore succeeds" [ $? = 0 ]
	cp "$WORK/img/restore.log" "$WORK/$name.log"
}

restore_once default
check "default: cuInit, both GPUs' contexts and the pinned pool were set up at POST_FORKING" \
	log_has "$WORK/default.log" "cudastore: warm-up while CRIU restores: cuInit, GPU contexts, pinned pool in [0-9.]+ s"
check "default: the GPU phase joined the warm-up and says how they overlapped" \
	log_has "$WORK/default.log" "cudastore: warm-up: (done [0-9.]+ s before the GPU phase began|the GPU phase waited [0-9.]+ s for it)"
check "default: both GPUs were copied with the buffers pinned ahead" \
	bash -c "[ \$(grep -acE 'restored region [01] .*[0-9]+ pinned bytes \\([0-9]+ from the pool\\)' '$WORK/default.log') = 2 ]"
check "default: the engine reports each region's thread setup" \
	log_has "$WORK/default.log" "restored region 0 .*thread setup [0-9.]+ s, teardown [0-9.]+ s"
check "default: the pool was unpinned once the images' only process was restored" \
	log_has "$WORK/default.log" "cudastore: pinned pool released: no process of these images is left to restore"
# 128 MiB per GPU in 4 MiB chunks: 32 chunks; the restore runs a thread per CPU (at least the
# threads option, 8; at most 32) with two buffers each, never more buffers than chunks
cpus=$(nproc); per=$((cpus > 8 ? cpus : 8)); per=$((per > 32 ? 32 : per)); per=$((2 * per > 32 ? 32 : 2 * per))
check "default: the pool pinned the plan's $per buffers per GPU, not the bound's 64" \
	log_has "$WORK/default.log" "cudastore: pinned pool: $((2 * per)) buffers of 4194304 bytes pinned"
check_verdict w "$WPID" "default: the restored process verified every byte"
wait_gone "$WPID"

restore_once off "CUDASTORE_WARMUP=no"
check "warmup=no: nothing set up ahead" bash -c "! grep -aq 'warm-up' '$WORK/off.log'"
check "warmup=no: the pool is pinned by the GPU phase and used" \
	bash -c "[ \$(grep -acE 'restored region [01] .*\\([0-9]+ from the pool\\)' '$WORK/off.log') = 2 ]"
check_verdict w "$WPID" "warmup=no: the restored process verified every byte"
wait_gone "$WPID"

# a host whose chunk option differs from the images' (1 MiB here, the default 4 MiB in the images): the
# buffers pinned ahead have the images' chunk size, so the copy still borrows them
restore_once chunk1m "CUDASTORE_CHUNK_MB=1"
check "chunk_mb=1 on the restoring host: the pool holds the images' 4 MiB chunks" \
	log_has "$WORK/chunk1m.log" "cudastore: pinned pool: [0-9]+ buffers of 4194304 bytes pinned"
check "chunk_mb=1 on the restoring host: both GPUs were copied with them" \
	bash -c "[ \$(grep -acE 'restored region [01] .*\([0-9]+ from the pool\)' '$WORK/chunk1m.log') = 2 ]"
check_verdict w "$WPID" "chunk_mb=1 on the restoring host: the restored process verified every byte"
wait_gone "$WPID"

restore_once cuinit-fails "CUDASTORE_EMU_FAULTS=cuInit:1:100"
check "cuInit failing in the warm-up: it says so at debug level and stops" \
	log_has "$WORK/cuinit-fails.log" "cudastore: warm-up: cuInit failed .*the restore will try again"
check "cuInit failing in the warm-up: no error logged by cudastore" \
	bash -c "! grep -a 'Error' '$WORK/cuinit-fails.log' | grep -aq cudastore"
check "cuInit failing in the warm-up: the GPU phase set up itself and restored" \
	log_has "$WORK/cuinit-fails.log" "cudastore: pid $WPID: GPU restore done"
check_verdict w "$WPID" "cuInit failing in the warm-up: the restored process verified every byte"
wait_gone "$WPID"
check "the four restores left the images unchanged" [ "$before" = "$(images_sum "$WORK/img")" ]
done_testing
