#!/bin/bash
# A deleted manifest (cudastore-<pid>.img) after a good dump: the driver reports the restored
# process CHECKPOINTED and CRIU's inventory says the plugin was used, so it must not run without
# its GPU state. Before, criu restore reported success and the process hung in its next CUDA call.
# Now the plugin kills it with a clear error, and criu restore fails; in both modes.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 12
for mode in custom driver; do
	start_workload "w-$mode" --size 4m
	CRIU_ENV="CUDASTORE_MODE=$mode" criu_dump "$WORK/$mode" "$WPID"
	check "$mode: criu dump succeeds" [ $? = 0 ]
	rm -f "$(manifest_of "$WORK/$mode" "$WPID")"
	check "$mode: manifest deleted" [ ! -e "$(manifest_of "$WORK/$mode" "$WPID")" ]
	wait_gone "$WPID"
	criu_restore "$WORK/$mode"
	check "$mode: criu restore fails" [ $? != 0 ]
	check "$mode: the plugin says why, naming the pid and the file" log_has "$WORK/$mode/restore.log" \
		"Error: cudastore: pid $WPID: the driver reports it (checkpointed|CHECKPOINTED).*cudastore-$WPID.img is missing"
	check "$mode: and that it killed the process" \
		log_has "$WORK/$mode/restore.log" "pid $WPID: GPU restore failed .*killing the process"
	sleep 0.3
	check "$mode: the process does not run without its GPU state" gone "$WPID"
done
done_testing
