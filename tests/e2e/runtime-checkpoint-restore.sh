# runtime-checkpoint-restore.sh - RUNTIME (runc or crun) checkpoint, then restore under the
# same container id, of a stock-spec busybox
# container whose init is a CUDA process (emulator): every byte of GPU memory verified after the
# restore. Once with mode=driver, once in the default mode (see tests/e2e/runc-lib.sh, crun-lib.sh).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/$RUNTIME-lib.sh"
need_$RUNTIME
plan 14
make_bundle c --size 4m
for mode in driver auto; do
	configure_plugin "$mode"
	want=$([ "$mode" = driver ] && echo driver-managed || echo CustomStorage)
	id=cs-$$-$mode
	ctr_run c "$id"
	pid=$(ctr_pid "$id")
	ctr_checkpoint c "$id" "$WORK/img-$mode"
	check_mode "$mode" "$RUNTIME checkpoint succeeds" [ $? = 0 ]
	check_mode "$mode" "the plugin checkpointed the container's init (pid $pid, ns pid 1) in $want mode" \
		log_has "$WORK/img-$mode.work/dump.log" "pid $pid \(ns pid 1\): CUDA process.*mode $want"
	check_mode "$mode" "the plugin read from criu that the container is not left running" \
		log_has "$WORK/img-$mode.work/dump.log" "criu does not leave running the dumped tree \(read from criu's options"
	check_mode "$mode" "the container is gone after the checkpoint" bash -c "[ -z \"\$($RUNC list -q | grep -x '$id')\" ]"
	wait_gone "$pid"
	ctr_restore c "$id" "$WORK/img-$mode"
	check_mode "$mode" "$RUNTIME restore succeeds" [ $? = 0 ]
	check_mode "$mode" "the plugin restored the GPU state" log_has "$WORK/img-$mode.rwork/restore.log" "GPU restore done"
	ctr_check_verdict "$mode" c "$id" "the restored container verified every byte of its GPU memory"
	timeout 20 "$RUNC" delete -f "$id" >/dev/null 2>&1
done
done_testing
