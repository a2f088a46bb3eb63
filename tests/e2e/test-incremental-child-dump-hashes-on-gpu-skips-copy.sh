#!/bin/bash
# Chunked images: a child dump of an unchanged process hashes its GPU memory where it lies and
# copies device-to-host at most 5 % of its GPU bytes (counted by the emulator), writes at most 1 %
# to the images, and restores with every byte verified after its parent is deleted. A driver
# that cannot run the GPU hasher (no cuLaunchKernel) takes the copy-then-hash path and says so.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 17
# dtoh_bytes NAME: bytes every process of one criu run copied device-to-host
dtoh_bytes() { cat "$WORK/$1".* 2>/dev/null | awk '{s += $1} END {print s + 0}'; }

start_workload w --size 128m --zero-percent 0
set_config "chunks = yes"
CRIU_ENV="CUDASTORE_EMU_DTOH_COUNT=$WORK/dtoh1" criu_dump "$WORK/img1" "$WPID" --leave-running
check "first chunked dump succeeds" [ $? = 0 ]
SIZE=$(chunk_bytes "$WORK/img1") # no zero chunks: every GPU byte is in a chunk
first=$(dtoh_bytes dtoh1)
diag "first dump: $SIZE bytes of chunks, $first bytes copied device-to-host"
check "the first dump (no parent) copies every GPU byte" [ "$first" -ge "$SIZE" ]
check "its ids too were hashed on the GPU before the copy, none known" log_has "$WORK/img1/dump.log" \
	"chunk ids hashed on the GPU before the copy: 0 of [0-9]+ bytes known"

set_config "chunks = yes
parent = ../img1"
CRIU_ENV="CUDASTORE_EMU_DTOH_COUNT=$WORK/dtoh2" criu_dump "$WORK/img2" "$WPID" --leave-running
check "child dump with the first as parent succeeds" [ $? = 0 ]
moved=$(dtoh_bytes dtoh2)
new=$(new_bytes "$WORK/img2")
diag "child dump: $moved bytes device-to-host, $new new bytes, of $SIZE GPU bytes"
check "the child copied at most 5 % of the GPU bytes device-to-host" [ "$moved" -le $((SIZE / 20)) ]
check "the child wrote at most 1 % of the GPU bytes" [ "$new" -le $((SIZE / 100)) ]
check "its log says the ids were hashed on the GPU before the copy" log_has "$WORK/img2/dump.log" \
	"chunk ids hashed on the GPU before the copy: [0-9]+ of [0-9]+ bytes known"
check "the child links every chunk of the parent" [ "$(chunk_bytes "$WORK/img2")" = "$SIZE" ]

set_config "chunks = yes
parent = ../img2"
CRIU_ENV="CUDASTORE_EMU_DTOH_COUNT=$WORK/dtoh3 CUDASTORE_EMU_HIDE=cuLaunchKernel" \
	criu_dump "$WORK/img3" "$WPID" --leave-running
check "a child dump on a driver without cuLaunchKernel succeeds" [ $? = 0 ]
check "its log says it fell back to the copy-then-hash path" log_has "$WORK/img3/dump.log" \
	"chunk ids computed on the CPU after the copy \\(the driver cannot run the GPU hasher\\)"
check "it copied every GPU byte" [ "$(dtoh_bytes dtoh3)" -ge "$SIZE" ]
check "and still wrote at most 1 %" [ "$(new_bytes "$WORK/img3")" -le $((SIZE / 100)) ]
sleep 0.3
check "process runs after the dumps" alive "$WPID"

kill -9 "$WPID"; wait_gone "$WPID"
rm -rf "$WORK/img1" "$WORK/img3"
before=$(tree_sum "$WORK/img2")
criu_restore "$WORK/img2"
check "the GPU-hashed child restores with its parent deleted" [ $? = 0 ]
check "restored process runs" alive "$WPID"
check "restore left the images as they were" [ "$before" = "$(tree_sum "$WORK/img2")" ]
check_verdict w "$WPID" "restored process verified every byte"
done_testing
