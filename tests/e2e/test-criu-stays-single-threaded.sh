#!/bin/bash
# criu's process never runs driver code: it has exactly one thread at every plugin hook (a
# threaded criu cannot setns() into a container's mount namespace), while the emulated driver's
# thread lives in cudastore-helper, like the real driver's lives in its caller.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 10
STALL=$WORK/stall
start_workload w --size 16m
# look at criu from outside while the helper holds the CustomStorage mapping
export CUDASTORE_TEST_STALL=copy-out CUDASTORE_TEST_STALL_FILE=$STALL
mkdir -p "$WORK/img"
"$CRIU" dump -t "$WPID" -D "$WORK/img" -o dump.log -v4 -L "$PLUGINDIR" >/dev/null 2>&1 &
CPID=$!
wait_file "$STALL" 60 || bail "the dump never reached the CustomStorage checkpoint"
HPID=$(cat "$STALL")
ct=$(ls /proc/$CPID/task | wc -l); ht=$(ls /proc/$HPID/task | wc -l)
check "criu has 1 thread while the GPU memory is mapped (found $ct)" [ "$ct" = 1 ]
check "the driver's threads are in cudastore-helper ($ht threads)" [ "$ht" -gt 1 ]
check "cudastore-helper is not criu's child" [ "$(awk '{print $4}' /proc/$HPID/stat)" != "$CPID" ]
check "the CustomStorage mapping is in cudastore-helper" grep -q 'cudastore-emu' /proc/$HPID/maps
rm -f "$STALL"
wait "$CPID"
check "criu dump succeeds" [ $? = 0 ]
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
for h in init pause checkpoint exit; do
	n=$(grep -c "cudastore: $h: criu has 1 thread" "$WORK/img/dump.log")
	[ "$n" -ge 1 ] || break
done
check "dump: one thread at init, pause, checkpoint and exit" [ "$n" -ge 1 ]
check "dump: no hook saw more" bash -c "! grep -q 'criu has [0-9]* threads' '$WORK/img/dump.log'"
wait_gone "$WPID"
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
for h in init resume; do
	n=$(grep -c "cudastore: $h: criu has 1 thread" "$WORK/img/restore.log")
	[ "$n" -ge 1 ] || break
done
check "restore: one thread at init and resume, none more" \
	bash -c "[ $n -ge 1 ] && ! grep -q 'criu has [0-9]* threads' '$WORK/img/restore.log'"
check_verdict w "$WPID" "restored workload verified every byte"
done_testing
