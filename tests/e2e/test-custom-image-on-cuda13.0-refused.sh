#!/bin/bash
# A CustomStorage image restored where the driver lacks CustomStorage (CUDA 13.0): refused with a
# message naming the driver version needed, the process does not run without its GPU memory, and
# the same images restore once a 13.4 driver is there.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 6
start_workload w --size 4m --seed 9
criu_dump "$WORK/img" "$WPID"
check "CustomStorage dump succeeds" log_has "$WORK/img/dump.log" "pid $WPID: GPU checkpoint done"
wait_gone "$WPID"
CRIU_ENV="CUDASTORE_EMU_DRIVER_VERSION=13000" criu_restore "$WORK/img"
check "refused, naming the driver needed" \
	log_has "$WORK/img/restore.log" "made with CUDA CustomStorage, which this driver \(CUDA 13.0\) lacks: restore them on a host with a CUDA 13.4"
sleep 0.2
check "the process does not run without its GPU memory" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
wait_gone "$WPID"
mv "$WORK/img/restore.log" "$WORK/img/restore-13000.log"
criu_restore "$WORK/img"
check "the same images restore on a 13.4 driver" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check "restored process runs" alive "$WPID"
check_verdict w "$WPID" "every byte verified"
done_testing
