#!/bin/bash
# Two --leave-running dumps of one process whose GPU memory changes between them; the earlier
# dump's whole cudastore image set (manifest, extents, index, summary) is copied over the later
# dump's, beside the later dump's CRIU images: cudastore verify refuses them (exit 1, naming both
# CRIU runs), a real criu restore fails without resuming the process, logging verify's reason word
# for word, and neither changes a byte of the images. The later dump's own set still verifies and
# restores with every byte. Before, verify said OK and the restore resumed the process with the
# GPU memory of one moment and the CPU memory of another.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
CS=$CUDASTORE_CMD
plan 17

# run_of DIR: the criu run id CRIU recorded in DIR/inventory.img (field 13, a UUID in text)
run_of() { grep -aoE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' "$1/inventory.img" | head -n1; }
# sums DIR: every cudastore file and CRIU's inventory, byte for byte
sums() { images_sum "$1"; (cd "$1" && sha256sum inventory.img); }

start_workload w --size 4m --buffers 2 --seed 11
criu_dump "$WORK/img1" "$WPID" --leave-running || bail "the first dump failed"
sleep 0.5 # the workload runs on: its scratch buffer on the GPU is rewritten every 10 ms
criu_dump "$WORK/img2" "$WPID" --leave-running || bail "the second dump failed"
EXT=cudastore-$WPID-gpu0.ext
check "the GPU memory changed between the two dumps" bash -c "! cmp -s '$WORK/img1/$EXT' '$WORK/img2/$EXT'"
RUN1=$(run_of "$WORK/img1")
RUN2=$(run_of "$WORK/img2")
two_runs() { [ -n "$RUN1" ] && [ -n "$RUN2" ] && [ "$RUN1" != "$RUN2" ]; }
check "the dumps are two CRIU runs ($RUN1, $RUN2)" two_runs
kill -9 "$WPID"
wait_gone "$WPID"

# the later dump's CRIU images with the earlier dump's cudastore files
cp -a "$WORK/img2" "$WORK/mixed"
rm -f "$WORK"/mixed/cudastore-*
cp -a "$WORK"/img1/cudastore-* "$WORK/mixed/"
BEFORE=$(sums "$WORK/mixed")

"$CS" verify "$WORK/mixed" >"$WORK/verify.out" 2>&1
RC=$?
diag "verify: $(tail -n2 "$WORK/verify.out" | paste -sd' ')"
check "verify refuses the earlier set beside the later CRIU images (exit $RC, want 1)" [ "$RC" = 1 ]
check "verify says they belong to another CRIU dump, naming both runs" \
	grep -q "belong to another CRIU dump (run $RUN1), not to the one being restored (run $RUN2)" "$WORK/verify.out"
"$CS" verify --json "$WORK/mixed" >"$WORK/verify.json" 2>/dev/null
VERR=$(json_get "$WORK/verify.json" "d['processes'][0].get('error', '')" 2>/dev/null)
json_refuses() { [ "$(json_get "$WORK/verify.json" "d['ok']")" = False ] && [ -n "$VERR" ]; }
check "verify --json says so too (ok false)" json_refuses

CRIU_ENV="CUDASTORE_EMU_TRACE=$WORK/mixed.trace" criu_restore "$WORK/mixed"
RC=$?
check "criu restore of the mixed images fails (exit $RC)" [ "$RC" != 0 ]
check "the process was not resumed" wait_gone "$WPID"
check "the restore refused the image set" log_has "$WORK/mixed/restore.log" "belong to another CRIU dump"
no_driver_restore() { [ -s "$WORK/mixed.trace" ] && [ "$(tr_count "$WORK/mixed.trace" cuCheckpointProcessRestore)" = 0 ]; }
check "before any byte reached a GPU (the driver was asked to restore nothing)" no_driver_restore
check "the restore logged verify's reason word for word" \
	grep -qF -- "images cudastore-$WPID.img are unusable: $VERR" "$WORK/mixed/restore.log"
check "the images were not modified by verify or the restore" [ "$BEFORE" = "$(sums "$WORK/mixed")" ]
"$CS" inspect "$WORK/mixed" >"$WORK/inspect.out" 2>&1
RC=$?
check "inspect shows both runs and the problem (exit $RC)" bash -c "[ $RC = 1 ] && grep -q 'run $RUN1' '$WORK/inspect.out' &&
	grep -q 'run $RUN2' '$WORK/inspect.out' && grep -q 'problem: .*belong to another CRIU dump' '$WORK/inspect.out'"

# the later dump, untouched, is fine
kill -9 "$WPID" 2>/dev/null # only where the mixed restore resumed it
wait_gone "$WPID"
"$CS" verify "$WORK/img2" >"$WORK/verify2.out" 2>&1
check "verify accepts the later dump's own set" [ $? = 0 ]
BEFORE=$(sums "$WORK/img2")
criu_restore "$WORK/img2"
check "criu restore of the later dump succeeds" [ $? = 0 ]
check "its GPU state came back" log_has "$WORK/img2/restore.log" "pid $WPID: GPU restore done"
check "the restore modified no image" [ "$BEFORE" = "$(sums "$WORK/img2")" ]
check_verdict w "$WPID" "the restored process verified every byte"
done_testing
