#!/bin/bash
# Chunked images: criu SIGKILLed in the middle of a child dump's copy, and cudastore-helper
# SIGKILLed after the lock of another, leave the process running with its GPU memory, the parent
# and the chunk store as they were (no chunk of theirs changed, every store chunk whole: its name
# is the id of its bytes), and no chunk link of the failed dump; a child dumped after that restores.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
IDS=$top_srcdir/tests/e2e/chunk-ids.py
plan 15
start_workload w --size 32m --zero-percent 0
set_config "chunk_store = ../store"
criu_dump "$WORK/img1" "$WPID" --leave-running || bail "the first chunked dump failed"
parent_sum=$(tree_sum "$WORK/img1")
store_sum=$(cd "$WORK/store" && find ?? -type f -exec sha256sum {} + | sort)
check "the store holds whole chunks" python3 "$IDS" "$WORK/store"
# intact: the parent unchanged, every chunk the store had unchanged, every store chunk whole
intact() {
	local now
	now=$(cd "$WORK/store" && find ?? -type f -exec sha256sum {} + | sort)
	[ "$parent_sum" = "$(tree_sum "$WORK/img1")" ] && [ -z "$(comm -23 <(echo "$store_sum") <(echo "$now"))" ] &&
		python3 "$IDS" "$WORK/store"
}

set_config "chunk_store = ../store" "parent = ../img1"
export CUDASTORE_TEST_STALL=copy-out CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg dump "$WORK/img"
kill_criu_at copy-out
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
check "criu killed mid-copy: the process was resumed with its GPU memory" log_has \
	"$WORK/img/cudastore-guardian.log" "pid $WPID: resumed with its GPU memory .*criu is gone"
sleep 0.5
check "it runs on, its GPU checks never failed" bash -c "kill -0 $WPID && [ ! -s '$WORK/w.out' ]"
check "parent and store are intact" intact
check "the failed child left no chunk link" [ ! -e "$WORK/img/cudastore-chunks" ]

rm -rf "$WORK/img" "$STALL"
kill_helper_at after-lock
sleep 0.5
check "helper killed after the lock: the process runs on" bash -c "kill -0 $WPID && [ ! -s '$WORK/w.out' ]"
check "parent and store are intact" intact

criu_dump "$WORK/img2" "$WPID" --leave-running
check "a child dumped after both kills succeeds" [ $? = 0 ]
new=$(manifest_new_bytes "$WORK/img2" "$WPID")
check "it wrote $new bytes: at most one chunk (the rest is linked)" [ "${new:-99999999999}" -le $((4 << 20)) ]
kill -9 "$WPID"; wait_gone "$WPID"
criu_restore "$WORK/img2"
check "it restores" [ $? = 0 ]
check "parent and store are intact" intact
check_verdict w "$WPID" "the restored process verified every byte"
done_testing
