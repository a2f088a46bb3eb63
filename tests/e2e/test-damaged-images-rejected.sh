#!/bin/bash
# Damaged images are refused before the process is touched, each with a clear error:
# truncated extent, missing extent, extent path escaping the images dir, manifest of a newer
# major version, and a driver that maps a different size than the image holds.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
TOOL=$top_builddir/tests/e2e/cs-manifest-tool
plan 16
start_workload w --size 8m
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
M=cudastore-$WPID.img
E=cudastore-$WPID-gpu0.ext

# damage NAME COMMAND... : copy the images, damage the copy, restore it, expect refusal
damage() {
	local name=$1 expect=$2; shift 2
	rm -rf "$WORK/$name"; cp -a "$WORK/img" "$WORK/$name"
	(cd "$WORK/$name" && eval "$@")
	local before; before=$(images_sum "$WORK/$name")
	criu_restore "$WORK/$name"
	check "$name: refused with a clear error" log_has "$WORK/$name/restore.log" "$expect"
	sleep 0.2
	check "$name: the process does not run" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
	check "$name: images untouched by the restore" [ "$before" = "$(images_sum "$WORK/$name")" ]
	wait_gone "$WPID"
}
damage truncated "extent $E is .* bytes, manifest says" "truncate -s -4096 $E"
damage missing "$E" "rm -f $E"
damage escaping "unsafe|not a safe|escap" "$TOOL $M set-extent 0 ../../etc/passwd"
damage newer-major "newer|major" "$TOOL $M set-major 2"
damage size-mismatch "the driver maps .* bytes on GPU .*, the image .* holds" "$TOOL $M grow 0 ."
done_testing
