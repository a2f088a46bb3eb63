#!/bin/bash
# A CPU-only process tree is dumped and restored through real CRIU with the plugin loaded:
# the tree runs on with its state intact, and the plugin writes nothing into the images dir.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu
setup_work
plan 9

# no GPU driver here on purpose: the plugin must load, disable itself and stay out of the way
unset CUDASTORE_LIBCUDA
export CUDASTORE_LIBCUDA=$WORK/no-such-libcuda.so.1
mkdir -p "$WORK/status"
setsid -f "$top_builddir/tests/e2e/cpu-tree" --pidfile "$WORK/pid" --status "$WORK/status" \
	--outfile "$WORK/out" </dev/null >/dev/null 2>&1
wait_file "$WORK/status/child" || bail "cpu-tree did not start"
PID=$(cat "$WORK/pid")
PIDS_TO_KILL="$PID"
CHILD=$(cat "/proc/$PID/task/$PID/children" | awk '{print $1}')
sleep 0.3
before=$(cat "$WORK/status/parent")

criu_dump "$WORK/img" "$PID"
check "criu dump succeeds" [ $? = 0 ]
# 13 hooks (POST_FORKING) for a criu >= 4.2, which exports collect_madv_guards; 12 for 4.0/4.1
hooks=12
nm -D "$CRIU" 2>/dev/null | grep -qw collect_madv_guards && hooks=13
check "criu loaded the plugin (max_hooks $hooks)" log_has "$WORK/img/dump.log" "Plugin \"cudastore\" \\(version 512 hooks $hooks\\)"
check "plugin disabled itself without a driver and said why" log_has "$WORK/img/dump.log" 'cudastore: plugin disabled: .*no-such-libcuda.so.1.*No such file'
wait_gone "$PID"; wait_gone "$CHILD"
check "the plugin wrote nothing into the images dir" \
	[ -z "$(ls "$WORK/img" | grep -i cudastore)" ]

criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
check "parent and child run again with the same pids" alive "$PID" && alive "$CHILD"
sleep 0.5
after=$(cat "$WORK/status/parent")
check "state continued from the dump (counter $before -> $after, not reset)" [ "$after" -gt "$before" ]
v=$(verdict "$PID" "$WORK/out")
check "the tree verified its own memory after restore ($v)" [ "$v" = PASS ]
check "restore log shows no plugin error" bash -c "! grep -q 'Error.*cudastore' '$WORK/img/restore.log'"
done_testing
