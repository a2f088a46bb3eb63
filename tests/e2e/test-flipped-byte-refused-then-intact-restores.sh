#!/bin/bash
# One flipped byte in an extent (same size): restore fails with a checksum error, the process
# does not run, the images are untouched; restoring an intact copy afterwards succeeds.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 8
start_workload w --size 8m --seed 7
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
cp -a "$WORK/img" "$WORK/good"
E=$(extent_of "$WORK/img" "$WPID" 0)
size=$(stat -c %s "$E")
off=$((size / 2 + 12345))
b=$(dd if="$E" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(( (b ^ 0x5a) & 255 )))" | dd of="$E" bs=1 seek=$off conv=notrunc 2>/dev/null
check "extent damaged in place, same size" [ "$(stat -c %s "$E")" = "$size" ] && ! cmp -s "$E" "$(extent_of "$WORK/good" "$WPID" 0)"
before=$(images_sum "$WORK/img")
criu_restore "$WORK/img"
check "plugin reports the checksum mismatch" log_has "$WORK/img/restore.log" "cudastore: .*(checksum|hash).*mismatch|mismatch.*(checksum|hash)"
check "plugin says it killed the process" log_has "$WORK/img/restore.log" "killing the process so it cannot run with wrong GPU memory"
sleep 0.3
check "the process does not run with wrong data" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
check "restore left the images untouched" [ "$before" = "$(images_sum "$WORK/img")" ]
wait_gone "$WPID"
criu_restore "$WORK/good"
check "restore from the intact copy succeeds" log_has "$WORK/good/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "every byte verified after the good restore"
done_testing
