#!/bin/bash
# --leave-running puts the GPU memory back from the extents. Someone who can write the images
# directory replaces the manifest and adds an extent (another process's, consistent with each
# other) while criu is still dumping: the rollback restores from what the dump itself wrote and
# checks every chunk against its own hashes, so the live process gets its own bytes back.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 6
start_workload other --size 8m --seed 99
OTHER=$WPID
criu_dump "$WORK/other" "$OTHER"
check "another process of the same size dumped" [ $? = 0 ]
start_workload w --size 8m
export CUDASTORE_TEST_STALL=exit-hook CUDASTORE_TEST_STALL_FILE=$STALL
criu_bg dump "$WORK/img" --leave-running
wait_file "$STALL" 60 || bail "criu never reached its exit hook"
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
# the forgery: the other dump's manifest under this process's name, with its extent beside it
cp "$(manifest_of "$WORK/other" "$OTHER")" "$(manifest_of "$WORK/img" "$WPID")"
cp "$(extent_of "$WORK/other" "$OTHER" 0)" "$WORK/img/"
check "the images directory now holds the forged manifest" \
	cmp -s "$(manifest_of "$WORK/other" "$OTHER")" "$(manifest_of "$WORK/img" "$WPID")"
rm -f "$STALL"
wait "$CPID"
check "criu dump --leave-running succeeds" [ $? = 0 ]
check "the rollback put the GPU memory back" log_has "$WORK/img/dump.log" \
	"pid $WPID: resumed with its GPU memory .*--leave-running"
check "the process runs on" alive "$WPID"
check_verdict w "$WPID" "it verified every byte: its own, not the forged ones"
done_testing
