#!/bin/bash
# Each driver call of the restore failing by fault injection (restore, host-to-device copy,
# complete, unlock): the restore fails cleanly (process killed, error says why, images
# untouched) and a retry without the fault restores every byte.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 18
start_workload w --size 4m --seed 5
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
before=$(images_sum "$WORK/img")
for fault in cuCheckpointProcessRestore:1:999 cuMemcpyHtoDAsync:1:700 cuCheckpointOperationComplete:1:999 \
	cuCheckpointProcessUnlock:1+:999; do
	name=${fault%%:*}
	rm -f "$WORK/img/restore.log"
	CRIU_ENV="CUDASTORE_EMU_FAULTS=$fault" criu_restore "$WORK/img"
	check "$name fails: error logged" log_has "$WORK/img/restore.log" "Error.*cudastore: pid $WPID"
	check "$name fails: process killed, not resumed with wrong memory" \
		log_has "$WORK/img/restore.log" "killing the process"
	sleep 0.2
	check "$name fails: the process is gone" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
	check "$name fails: images untouched" [ "$before" = "$(images_sum "$WORK/img")" ]
	wait_gone "$WPID"
done
criu_restore "$WORK/img"
check_verdict w "$WPID" "retry without faults restores every byte"
done_testing
