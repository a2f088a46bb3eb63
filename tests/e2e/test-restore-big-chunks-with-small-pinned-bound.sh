#!/bin/bash
# pinned_mb is a local tuning option: images dumped with chunks larger than the restoring host's
# pinned bound still restore (one chunk-sized pinned buffer for that restore, with a warning).
# Before, the restore failed ("needs more pinned memory than the bound") and killed the process.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 7
start_workload w --size 48m --buffers 2 --seed 11
CRIU_ENV="CUDASTORE_CHUNK_MB=64" criu_dump "$WORK/img" "$WPID"
check "criu dump with 64 MiB chunks succeeds" [ $? = 0 ]
check "the images use 64 MiB chunks" \
	bash -c "'$top_builddir/tests/e2e/cs-manifest-tool' '$(manifest_of "$WORK/img" "$WPID")' show | grep -q ' chunk 67108864 '"
wait_gone "$WPID"
before=$(images_sum "$WORK/img")
set_config "pinned_mb = 16"
criu_restore "$WORK/img"
check "criu restore with pinned_mb 16 succeeds" [ $? = 0 ]
check "the plugin says it raised the bound for these images" \
	log_has "$WORK/img/restore.log" "Warn: cudastore: .*67108864-byte chunks.*pinned bound.*16777216"
check "the GPU state was restored" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check "restore did not modify the images" [ "$before" = "$(images_sum "$WORK/img")" ]
check_verdict w "$WPID" "every byte verified"
done_testing
