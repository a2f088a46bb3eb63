#!/bin/bash
# criu --freeze-cgroup of a CUDA process whose driver library has another name than libcuda.so:
# the plugin recognises it by the NVIDIA device file it holds open and mapped, so criu does not
# keep its cgroup freezer, the GPU state is checkpointed into cudastore images and the restored
# process verifies every byte of its GPU memory.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
FRZ=/sys/fs/cgroup/freezer
[ -f "$FRZ/freezer.state" ] || [ -d "$FRZ" ] || skip_all "no cgroup v1 freezer at $FRZ"
# a node named like the driver's UVM device, with /dev/zero's numbers: it opens, maps, and criu
# dumps and restores it as it does /dev/zero
NODE=/dev/nvidia-uvm-cudastore-test-$$
[ -e "$NODE" ] && bail "$NODE exists already: remove it (left by an earlier run?)"
mknod -m 600 "$NODE" c 1 5 || skip_all "cannot create the device node $NODE"
CG=$FRZ/cudastore-test-$$
mkdir "$CG" || { rm -f "$NODE"; skip_all "cannot create freezer cgroup $CG"; }
trap 'for p in $PIDS_TO_KILL; do kill -9 $p 2>/dev/null; done; echo THAWED >"$CG/freezer.state" 2>/dev/null; sleep 0.2; rmdir "$CG" 2>/dev/null; rm -f "$NODE"; cleanup' EXIT
plan 9

# the emulated driver under a name that is not libcuda.so, loaded by the workload alone
DRV=$WORK/drv/libdrv-$$.so
mkdir -m 700 "$WORK/drv" && cp "$EMU/libcuda.so.1" "$DRV" && chmod 755 "$DRV" || bail "cannot copy the emulator to $DRV"
sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
	env CUDASTORE_LIBCUDA="$DRV" CUDASTORE_EMU_DEVICE_FILE="$NODE" "$WORKLOAD" --daemon --size 1m \
	--pidfile "$WORK/w.pid" --ready "$WORK/w.ready" --outfile "$WORK/w.out" \
	>"$WORK/w.stdout" 2>>"$WORK/w.err" </dev/null
wait_file "$WORK/w.ready" 60 || { cat "$WORK/w.err" >&2; bail "the workload did not get ready"; }
WPID=$(cat "$WORK/w.pid"); PIDS_TO_KILL="$WPID"
check "the workload maps the driver as ${DRV##*/}, no libcuda.so" \
	bash -c "grep -q '$DRV' /proc/$WPID/maps && ! grep -q '/libcuda\.so' /proc/$WPID/maps"
check "it holds the device file open and mapped, as the driver does" \
	bash -c "grep -q ' $NODE\$' /proc/$WPID/maps && ls -l /proc/$WPID/fd | grep -q ' $NODE\$'"

criu_dump "$WORK/d" "$WPID" --freeze-cgroup "$CG"; rc=$?
check "dump succeeds" [ "$rc" = 0 ]
diag "$(grep -ao 'cudastore: seizing: .*' "$WORK/d/dump.log")"
check "criu does not keep its freezer: the plugin found the driver by its device file" \
	log_has "$WORK/d/dump.log" "cudastore: seizing: thread by thread: pid $WPID in the freeze cgroup uses the CUDA driver: maps $NODE"
check "the GPU state is checkpointed: manifest and extent in the images" \
	[ -s "$(manifest_of "$WORK/d" "$WPID")" ] && [ -s "$(extent_of "$WORK/d" "$WPID" 0)" ]
wait_gone "$WPID"
criu_restore "$WORK/d"
check "restore succeeds" [ $? = 0 ]
check "the restore put the GPU state back through the plugin" \
	log_has "$WORK/d/restore.log" "cudastore: pid $WPID: GPU restore done"
check "the restored process holds the device file again" grep -q " $NODE\$" "/proc/$WPID/maps"
check_verdict w "$WPID" "the restored process verifies every byte of its GPU memory"
done_testing
