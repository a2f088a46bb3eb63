#!/bin/bash
# Restore onto GPUs with other UUIDs: 2 GPUs with a device map, and a single GPU moved to one
# other GPU without any map. Data verified byte for byte in both cases.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
A0=GPU-aaaaaaaa-0000-4000-8000-000000000000 A1=GPU-aaaaaaaa-0000-4000-8000-000000000001
B0=GPU-bbbbbbbb-0000-4000-8000-000000000000 B1=GPU-bbbbbbbb-0000-4000-8000-000000000001
plan 8
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=$A0,$A1
start_workload two --devices 2 --size 4m
criu_dump "$WORK/img2" "$WPID"
check "2-GPU dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
CRIU_ENV="CUDASTORE_EMU_UUIDS=$B1,$B0 CUDASTORE_DEVICE_MAP=$A0=$B0,$A1=$B1" criu_restore "$WORK/img2"
check "restore with a device map succeeds" log_has "$WORK/img2/restore.log" "pid $WPID: GPU restore done"
check "log says where each GPU went" log_has "$WORK/img2/restore.log" "GPU $A1 is restored onto $B1"
check_verdict two "$WPID" "2-GPU process verified every byte on the new GPUs"

export CUDASTORE_EMU_DEVICES=1 CUDASTORE_EMU_UUIDS=$A0
start_workload one --devices 1 --size 4m
criu_dump "$WORK/img1" "$WPID"
check "1-GPU dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
CRIU_ENV="CUDASTORE_EMU_UUIDS=$B0" criu_restore "$WORK/img1"
check "single GPU moved without a map restores" log_has "$WORK/img1/restore.log" "pid $WPID: GPU restore done"
check "log names the move" log_has "$WORK/img1/restore.log" "GPU $A0 is restored onto $B0"
check_verdict one "$WPID" "moved process verified every byte"
done_testing
