#!/bin/bash
# A device map by CUDA ordinal (0=1,1=0 onto a host whose GPUs list in the other order) puts
# each GPU where its ordinal says, every byte verified, in CustomStorage and driver-managed
# mode alike (the images record each GPU's ordinal).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
A0=GPU-aaaaaaaa-0000-4000-8000-000000000000 A1=GPU-aaaaaaaa-0000-4000-8000-000000000001
B0=GPU-bbbbbbbb-0000-4000-8000-000000000000 B1=GPU-bbbbbbbb-0000-4000-8000-000000000001
plan 7
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=$A0,$A1
start_workload two --devices 2 --size 4m
criu_dump "$WORK/img" "$WPID"
check "2-GPU dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
CRIU_ENV="CUDASTORE_EMU_UUIDS=$B1,$B0 CUDASTORE_DEVICE_MAP=0=1,1=0" criu_restore "$WORK/img"
check "restore with an ordinal map succeeds" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check "ordinal 0 went to this host's GPU 1 ($B0)" log_has "$WORK/img/restore.log" "GPU $A0 is restored onto $B0"
check_verdict two "$WPID" "2-GPU process verified every byte on GPUs picked by ordinal"

export CUDASTORE_MODE=driver
start_workload drv --devices 2 --size 4m
criu_dump "$WORK/drv" "$WPID"
check "driver-managed dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
CRIU_ENV="CUDASTORE_EMU_UUIDS=$B1,$B0 CUDASTORE_DEVICE_MAP=0=1,1=0" criu_restore "$WORK/drv"
check "driver-managed images (they record each GPU's ordinal) follow the ordinal map" \
	log_has "$WORK/drv/restore.log" "pid $WPID: GPU $A0 is restored onto $B0"
check_verdict drv "$WPID" "driver-managed process verified every byte on GPUs picked by ordinal"
done_testing
