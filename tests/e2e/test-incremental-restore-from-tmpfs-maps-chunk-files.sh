#!/bin/bash
# Chunked images in a memory filesystem (a tmpfs): a first chunked dump and its child, restored
# right after the dumps wrote them, read their chunk files through mappings (the default
# tmpfs_restore_map = auto finds their pages never read: a first read(2) would promote every
# page), leave the images as they were, and the restored process verifies every byte; with
# tmpfs_restore_map = no the same images are read with read(2), every byte verified too.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
small_dir 192m
plan 13
mapped() { log_has "$1/restore.log" "restored region 0 .*buffered I/O, read through a mapping"; }
# names, sizes, times and inodes of the images' GPU files: reading them (a checksum) would be
# the first read this test is about
files_of() { (cd "$1" && find cudastore-* -type f -exec stat -c '%n %s %Y %i' {} + | sort); }

start_workload w --size 32m --buffers 2 --zero-percent 25
set_config "chunks = yes"
criu_dump "$WORK/small/img1" "$WPID" --leave-running
check "first chunked dump into the tmpfs succeeds" [ $? = 0 ]
set_config "chunks = yes" "parent = ../img1"
criu_dump "$WORK/small/img2" "$WPID"
check "its child dumps into the tmpfs" [ $? = 0 ]
wait_gone "$WPID"

for img in img2 img1; do
	before=$(files_of "$WORK/small/$img")
	set_config "chunks = yes"
	criu_restore "$WORK/small/$img"
	check "$img: restore succeeds" [ $? = 0 ]
	check "$img: its chunk files were read through mappings" mapped "$WORK/small/$img"
	check "$img: no file of the images was written or replaced" [ "$before" = "$(files_of "$WORK/small/$img")" ]
	check_verdict w "$WPID" "$img: the restored process verified every byte"
	wait_gone "$WPID"
done
set_config "chunks = yes" "tmpfs_restore_map = no"
criu_restore "$WORK/small/img2"
check "tmpfs_restore_map = no: restore succeeds" [ $? = 0 ]
check "tmpfs_restore_map = no: its chunk files were read with read(2)" bash -c \
	"grep -aq 'restored region 0 .*buffered I/O;' '$WORK/small/img2/restore.log'"
check_verdict w "$WPID" "tmpfs_restore_map = no: the restored process verified every byte"
done_testing
