#!/bin/bash
# Images of format 1.0 (a cudastore before the dump index: no cudastore-index.img, no dump_id in
# the manifest) still restore, with a note that they name no CRIU dump to check. A format 1.1
# manifest whose index is missing is refused instead: its dump wrote one, so the images are
# incomplete.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 10
start_workload w --size 4m --seed 5
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
M=$(manifest_of "$WORK/img" "$WPID")
TOOL=$top_builddir/tests/e2e/cs-manifest-tool
check "format 1.1 and later (this build writes 1.4): the manifest carries a dump_id and the dump wrote its index" \
	bash -c "'$TOOL' '$M' show | grep -qx 'minor 4' && '$TOOL' '$M' show | grep -qx 'dump_id yes' && [ -f '$WORK/img/cudastore-index.img' ]"
wait_gone "$WPID"
cp -a "$WORK/img" "$WORK/noindex"
rm "$WORK/noindex/cudastore-index.img"
criu_restore "$WORK/noindex"
check "a 1.1 manifest without its index: criu restore fails" [ $? != 0 ]
check "the plugin says the index is missing" log_has "$WORK/noindex/restore.log" \
	"images cudastore-$WPID.img are unusable: cudastore-$WPID.img was written by dump [0-9a-f]{32}, which also wrote cudastore-index.img, and that file is missing"
check "the process does not run" gone "$WPID"
wait_gone "$WPID"
rm "$WORK/img/cudastore-index.img"
"$TOOL" "$M" make-1.0
check "the images are now as format 1.0 wrote them" bash -c "'$TOOL' '$M' show | grep -qx 'dump_id none'"
criu_restore "$WORK/img"
check "format 1.0 images: criu restore succeeds" [ $? = 0 ]
check "the GPU state was restored" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check "the plugin says it could not tie them to the CRIU dump" log_has "$WORK/img/restore.log" \
	"not checked whether the cudastore images are of the CRIU dump being restored: the cudastore images name no CRIU run"
check_verdict w "$WPID" "every byte verified"
done_testing
