#!/bin/bash
# Chunked images: a second dump of an unchanged process (its parent the first dump) writes at most
# 1 % of its GPU bytes; the child restores with every byte verified after its parent is deleted,
# and a child of that child (the chain) restores too.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 16
start_workload w --size 128m --zero-percent 0
set_config "chunks = yes"
criu_dump "$WORK/img1" "$WPID" --leave-running
check "first chunked dump succeeds" [ $? = 0 ]
check "it wrote chunk files and no extent" no_extents "$WORK/img1"
SIZE=$(chunk_bytes "$WORK/img1") # no zero chunks: every GPU byte is in a chunk
diag "first dump: $SIZE bytes of chunks"
check "its chunks hold the process's GPU memory (2 x 128 MiB)" [ "$SIZE" -ge $((256 << 20)) ]

set_config "parent = ../img1"
criu_dump "$WORK/img2" "$WPID" --leave-running
check "child dump with the first as parent succeeds" [ $? = 0 ]
new=$(new_bytes "$WORK/img2")
diag "child dump wrote $new new bytes of $(chunk_bytes "$WORK/img2") chunk bytes ($SIZE GPU bytes)"
check "the child wrote at most 1 % of the GPU bytes" [ "$new" -le $((SIZE / 100)) ]
check "the child's log says what was linked" log_has "$WORK/img2/dump.log" "chunked dump: parent \.\./img1"
show=$("$top_builddir/tests/e2e/cs-manifest-tool" "$WORK/img2/cudastore-$WPID.img" show)
check "the child's manifest is of format 1.5, chunked" bash -c "grep -qx 'minor 5' <<<'$show' &&
	grep -q 'scheme sha256-tree-4k new_bytes $new\$' <<<'$show'"
sleep 0.3
check "process runs after both dumps" alive "$WPID"

kill -9 "$WPID"; wait_gone "$WPID"
rm -rf "$WORK/img1"
criu_restore "$WORK/img2"
check "the child restores with its parent deleted" [ $? = 0 ]
check "restored process runs" alive "$WPID"

set_config "parent = ../img2"
criu_dump "$WORK/img3" "$WPID" --leave-running
check "a child of the child dumps" [ $? = 0 ]
new=$(new_bytes "$WORK/img3")
diag "grandchild dump wrote $new new bytes"
check "the grandchild wrote at most 1 % too" [ "$new" -le $((SIZE / 100)) ]
kill -9 "$WPID"; wait_gone "$WPID"
rm -rf "$WORK/img2"
before=$(tree_sum "$WORK/img3")
criu_restore "$WORK/img3"
check "the grandchild restores with both ancestors deleted" [ $? = 0 ]
check "restored process runs" alive "$WPID"
check "restore left the images as they were" [ "$before" = "$(tree_sum "$WORK/img3")" ]
check_verdict w "$WPID" "restored process verified every byte"
done_testing
