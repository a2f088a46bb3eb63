#!/bin/bash
# Images in a tmpfs, tmpfs_readback = yes from the test's config: the dump says it read each step
# back, the restore is byte-exact and leaves the images as they were; with the option off (the
# default) the same dump says plain buffered I/O. The restore (tmpfs_restore_map = auto) reads
# pages that were never read through a mapping, and those the read-back touched with read(2).
# CustomStorage on the driver emulator.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 10
small_dir 256m
set_config "chunk_mb = 1" "threads = 2" "tmpfs_readback = yes"
IMG=$WORK/small/img

start_workload w --size 16m --seed 5
criu_dump "$IMG" "$WPID"
check "criu dump into the tmpfs succeeds" [ $? = 0 ]
check "the dump read each step back" \
	log_has "$IMG/dump.log" "dumped region 0 .*buffered I/O, each step read back"
wait_gone "$WPID"
before=$(images_sum "$IMG")
criu_restore "$IMG"
check "criu restore succeeds" [ $? = 0 ]
check "restore did not modify the images" [ "$before" = "$(images_sum "$IMG")" ]
check "pages the dump read back are restored with read(2)" \
	bash -c "grep -aq 'restored region 0 .*; buffered I/O; ' '$IMG/restore.log'"
check_verdict w "$WPID" "workload verified every byte after the restore"
wait_gone "$WPID"

set_config "chunk_mb = 1" "threads = 2"
start_workload w2 --size 16m --seed 6
criu_dump "$WORK/small/off" "$WPID"
check "criu dump with the option off succeeds" [ $? = 0 ]
check "off: plain buffered I/O, nothing read back" \
	bash -c "grep -aq 'dumped region 0 .*; buffered I/O; ' '$WORK/small/off/dump.log' && ! grep -aq 'read back' '$WORK/small/off/dump.log'"
wait_gone "$WPID"
criu_restore "$WORK/small/off"
# the kernel counts the promotions the probe looks for only with the classic LRU lists
if grep -qv '^0x0*$' /sys/kernel/mm/lru_gen/enabled 2>/dev/null; then
	ok "# SKIP multi-gen LRU: the restore cannot tell pages never read, and reads them with read(2)"
else
	check "pages never read are restored through a mapping" \
		log_has "$WORK/small/off/restore.log" "restored region 0 .*buffered I/O, read through a mapping"
fi
check_verdict w2 "$WPID" "workload verified every byte (option off)"
done_testing
