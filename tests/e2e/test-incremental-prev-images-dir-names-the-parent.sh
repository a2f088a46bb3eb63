#!/bin/bash
# Chunked images: criu's own --prev-images-dir names the parent of a chunked dump when the parent
# key is not set. The child writes at most 1 % of its GPU bytes and restores, every byte verified,
# with its parent's GPU images deleted; the parent key wins over --prev-images-dir (the log says
# so); a --prev-images-dir without GPU images (criu's alone) is no error: the dump says so and
# writes its chunks in full.
# Where the kernel tracks dirty memory: criu's pre-dump images as --prev-images-dir (criu
# --track-mem) hold no GPU parent: the dump says so and writes its chunks in full.
#
# criu takes --prev-images-dir for its own pages too, and without dirty-memory tracking it cannot
# check a parent's pages (pid reuse): there the parent's criu page images are removed, so that
# criu dumps its pages in full while the GPU chunks come from the parent. criu's restore follows
# the parent link for its own pages, so the parent's GPU images (cudastore-*) are what is deleted.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 17
TRACK=
"$CRIU" check --feature mem_dirty_track >/dev/null 2>&1 && TRACK=--track-mem
diag "criu memory tracking: ${TRACK:-not available in this kernel}"
skip() { T_N=$((T_N + 1)); echo "ok $T_N # SKIP $*"; }

start_workload w --size 128m --zero-percent 0
set_config "chunks = yes"
criu_dump "$WORK/img1" "$WPID" --leave-running $TRACK
check "first chunked dump succeeds" [ $? = 0 ]
SIZE=$(chunk_bytes "$WORK/img1")
diag "first dump: $SIZE bytes of chunks"
[ -n "$TRACK" ] || rm -f "$WORK"/img1/pagemap-*.img "$WORK"/img1/pages-*.img

criu_dump "$WORK/img2" "$WPID" --leave-running $TRACK --prev-images-dir ../img1
check "child dump with --prev-images-dir ../img1 succeeds" [ $? = 0 ]
new=$(new_bytes "$WORK/img2")
diag "child dump wrote $new new bytes of $(chunk_bytes "$WORK/img2") chunk bytes ($SIZE GPU bytes)"
check "the child wrote at most 1 % of the GPU bytes" [ "$(chunk_bytes "$WORK/img2")" -ge "$SIZE" -a "$new" -le $((SIZE / 100)) ]
check "the child's log names the parent" log_has "$WORK/img2/dump.log" "chunked dump: parent \.\./img1,"

set_config "chunks = yes" "parent = ../img1"
mkdir -p "$WORK/other"
criu_dump "$WORK/img3" "$WPID" --leave-running $TRACK --prev-images-dir ../other
check "the parent key with another --prev-images-dir dumps" [ $? = 0 ]
check "the log says the parent key wins" log_has "$WORK/img3/dump.log" \
	"the parent key \(\.\./img1\) wins over criu's --prev-images-dir \(\.\./other\)"
check "and the key's parent is used" log_has "$WORK/img3/dump.log" "chunked dump: parent \.\./img1,"
rm -rf "$WORK/img3"

# a --prev-images-dir without cudastore's index (criu's own images only, as a pre-dump's)
set_config "chunks = yes"
criu_dump "$WORK/img5" "$WPID" --leave-running $TRACK --prev-images-dir ../other
check "a --prev-images-dir without GPU images is no error" [ $? = 0 ]
check "the log says no GPU parent was found there" log_has "$WORK/img5/dump.log" \
	"no GPU parent in criu's --prev-images-dir \.\./other"
new=$(new_bytes "$WORK/img5") all=$(chunk_bytes "$WORK/img5")
check "its chunks are dumped in full ($new of $all bytes new)" [ "$new" -gt 0 -a "$new" = "$all" ]
rm -rf "$WORK/img5"

kill -9 "$WPID"; wait_gone "$WPID"
rm -rf "$WORK"/img1/cudastore-*
criu_restore "$WORK/img2"
check "the child restores with its parent's GPU images deleted" [ $? = 0 ]
check "restored process runs" alive "$WPID"

# criu's incremental workflow: pre-dump, then dump with the pre-dump as --prev-images-dir
if [ -z "$TRACK" ]; then
	for t in "criu pre-dump succeeds" "a dump with the pre-dump as --prev-images-dir succeeds" \
		"its log says no GPU parent was found there" "its chunks are dumped in full"; do
		skip "$t: criu pre-dump needs dirty-memory tracking, which this kernel lacks"
	done
else
	mkdir -p "$WORK/pre"
	timeout -k 5 180 "$CRIU" pre-dump -t "$WPID" -D "$WORK/pre" -o pre-dump.log -v4 \
		-L "$PLUGINDIR" --track-mem >>"$(criu_output)" 2>&1
	rc=$?
	[ $rc = 0 ] || criu_errors "pre-dump of $WPID" $rc "$WORK/pre/pre-dump.log"
	check "criu pre-dump succeeds" [ $rc = 0 ]
	criu_dump "$WORK/img4" "$WPID" --leave-running --track-mem --prev-images-dir ../pre
	check "a dump with the pre-dump as --prev-images-dir succeeds" [ $? = 0 ]
	check "its log says no GPU parent was found there" log_has "$WORK/img4/dump.log" \
		"no GPU parent in criu's --prev-images-dir \.\./pre"
	new=$(new_bytes "$WORK/img4") all=$(chunk_bytes "$WORK/img4")
	diag "dump after the pre-dump wrote $new new bytes of $all chunk bytes"
	check "its chunks are dumped in full" [ "$new" -gt 0 -a "$new" = "$all" ]
fi
check_verdict w "$WPID" "the restored process verified every byte"
done_testing
