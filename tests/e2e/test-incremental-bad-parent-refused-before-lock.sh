#!/bin/bash
# Chunked images, bad input: a parent that is missing, the images directory itself, an extent dump,
# a dump of another process tree, on another filesystem (a store too), or missing or truncating a
# chunk it references refuses the dump before the process is locked: the process runs on and the
# parent is not modified. A child whose chunk was deleted or changed refuses to restore, naming it.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 29
start_workload other --size 4m --seed 9
OTHER=$WPID
start_workload w --size 16m --zero-percent 0
set_config "chunks = yes"
criu_dump "$WORK/good" "$WPID" --leave-running || bail "the first chunked dump failed"
criu_dump "$WORK/other" "$OTHER" --leave-running || bail "the other tree's chunked dump failed"
set_config "chunks = no"
criu_dump "$WORK/extents" "$WPID" --leave-running || bail "the extent dump failed"
good_sum=$(tree_sum "$WORK/good")
mkdir -p /dev/shm/cs-incr-$$ && SHM=/dev/shm/cs-incr-$$
trap 'rm -rf "$SHM"; cleanup' EXIT
n=0
failed_saying() { [ "$1" != 0 ] && log_has "$2" "$3"; } # failed_saying RC LOG WORDS

# refused CONFIG-LINE WORDS DESCRIPTION: the dump is refused with WORDS in its log, before the lock
refused() {
	local d=$WORK/bad$((n += 1))
	set_config "$1"
	criu_dump "$d" "$WPID" --leave-running >/dev/null
	check "$3: the dump is refused, saying why" failed_saying $? "$d/dump.log" "$2"
	check "$3: before the process was locked, and it runs on" bash -c \
		"! grep -aq 'pid $WPID: locked in' '$d/dump.log' && kill -0 $WPID && [ ! -s '$WORK/w.out' ]"
	check "$3: the parent is as it was" [ "$good_sum" = "$(tree_sum "$WORK/good")" ]
}
refused "parent = ../missing" "parent images directory \.\./missing cannot be opened" "a missing parent"
refused "parent = ." "is the images directory itself \(a loop\)" "the images directory as its own parent"
refused "parent = ../extents" "has no cudastore-chunks: it is not a chunked dump" "an extent dump as parent"
refused "parent = ../other" "has no images of ns pid $WPID: it is a dump of another process tree" \
	"a dump of another tree as parent"
refused "parent = $SHM" "is on another filesystem than the images directory: chunks are hard links" \
	"a parent on another filesystem"
refused "chunk_store = $SHM/store" "chunk store $SHM/store is on another filesystem" \
	"a store on another filesystem"

victim=$(find "$WORK/good/cudastore-chunks" -type f | sort | sed -n 3p)
cp -a "$victim" "$WORK/victim"
rm "$victim"; good_sum=$(tree_sum "$WORK/good")
refused "parent = ../good" "is missing from the images directory: images incomplete" "a parent missing a chunk"
cp -a "$WORK/victim" "$victim"; truncate -s 1000 "$victim"; good_sum=$(tree_sum "$WORK/good")
refused "parent = ../good" "is 1000 bytes, manifest says" "a parent with a truncated chunk"
cp -a "$WORK/victim" "$victim"

kill -9 "$WPID"; wait_gone "$WPID"
rm "$victim"
criu_restore "$WORK/good" >/dev/null
check "a restore of images missing a chunk is refused, naming it" failed_saying $? \
	"$WORK/good/restore.log" "cudastore-chunks/${victim#*/cudastore-chunks/}, is missing"
cp -a "$WORK/victim" "$victim"
printf 'X' | dd of="$victim" bs=1 seek=12345 conv=notrunc 2>/dev/null
wait_gone "$WPID"
mv "$WORK/good/restore.log" "$WORK/restore-missing.log"
criu_restore "$WORK/good" >/dev/null
check "a restore of a changed chunk is refused, naming it" failed_saying $? \
	"$WORK/good/restore.log" "checksum mismatch in cudastore-chunks/.*the chunk file was changed"
check "the process restored from changed images does not run" bash -c "! kill -0 $WPID 2>/dev/null"
set_config "chunks = no"
criu_dump "$WORK/other" "$OTHER" --leave-running
check "an extent dump into a chunked dump's directory succeeds" [ $? = 0 ]
check "and removes the earlier chunk links (which would keep store chunks from gc)" \
	bash -c "[ ! -e '$WORK/other/cudastore-chunks' ] && ls '$WORK'/other/cudastore-*.ext >/dev/null"
kill -9 "$OTHER" 2>/dev/null
done_testing
