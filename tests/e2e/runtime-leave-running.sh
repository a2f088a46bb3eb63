# runtime-leave-running.sh - RUNTIME (runc or crun) checkpoint --leave-running (criu swrk,
# leave_running in the RPC request) with no
# leave-running setting for cudastore: the plugin reads criu's decision, the container keeps
# running and verifies every byte of its GPU memory; the images then restore as a clone under
# a new container id while the original still exists, and the clone verifies every byte too.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/$RUNTIME-lib.sh"
need_$RUNTIME
plan 18
make_bundle lr --size 4m --zero-percent 25
for mode in driver auto; do
	configure_plugin "$mode"
	id=cs-$$-$mode
	ctr_run lr "$id"
	pid=$(ctr_pid "$id")
	ctr_checkpoint lr "$id" "$WORK/img-$mode" --leave-running
	check_mode "$mode" "$RUNTIME checkpoint --leave-running succeeds" [ $? = 0 ]
	check_mode "$mode" "no leave_running in cudastore's config" bash -c "! grep -q leave_running '$CUDASTORE_CONFIG'"
	check_mode "$mode" "the plugin read leave-running from criu's options (RPC)" \
		log_has "$WORK/img-$mode.work/dump.log" "criu leaves running the dumped tree \(read from criu's options"
	check_mode "$mode" "the plugin put the GPU memory back" \
		log_has "$WORK/img-$mode.work/dump.log" "pid $pid: resumed with its GPU memory"
	sleep 0.5
	now=$(ctr_pid "$id")
	check_mode "$mode" "the container still runs, same init ($now)" \
		bash -c "[ '$now' = '$pid' ] && [ \"\$($RUNC list -q | grep -x '$id')\" ] && [ ! -s '$WORK/lr/cw/w.out' ]"
	# restore the images as a clone under another id, the original still running
	ctr_restore lr "$id-clone" "$WORK/img-$mode"
	check_mode "$mode" "$RUNTIME restore under a new id succeeds next to the original" [ $? = 0 ]
	check_mode "$mode" "the clone's GPU state was restored" log_has "$WORK/img-$mode.rwork/restore.log" "GPU restore done"
	ctr_check_verdict "$mode" lr "$id-clone" "the clone verified every byte of its GPU memory"
	ctr_check_verdict "$mode" lr "$id" "the original container, left running, verified every byte"
	timeout 20 "$RUNC" delete -f "$id" >/dev/null 2>&1
	timeout 20 "$RUNC" delete -f "$id-clone" >/dev/null 2>&1
done
done_testing
