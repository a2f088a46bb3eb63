#!/bin/bash
# A CUDA process that is the init of its own pid namespace (as in a container): images are named
# by its pid inside the namespace, which CRIU keeps, while its host pid changes across restore.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
command -v unshare >/dev/null || skip_all "unshare not installed"
plan 8
setsid unshare --pid --fork setsid "$WORKLOAD" --pidfile "$WORK/w.pid" --ready "$WORK/w.ready" \
	--outfile "$WORK/w.out" --size 4m --log "$WORK/w.log" >"$WORK/unshare.out" 2>&1 </dev/null &
wait_file "$WORK/w.ready" 30 || bail "workload in a pid namespace did not start: $(cat "$WORK/w.log")"
HOSTPID=
for p in $(pgrep -f -- "--pidfile $WORK/w.pid"); do
	grep -q '^NSpid:.*[[:space:]]1$' "/proc/$p/status" && HOSTPID=$p
done
[ -n "$HOSTPID" ] || bail "cannot find the namespace init"
PIDS_TO_KILL="$HOSTPID"
check "the workload is pid 1 of its namespace (host pid $HOSTPID)" [ "$(cat "$WORK/w.pid")" = 1 ]
criu_dump "$WORK/img" "$HOSTPID"
check "criu dump succeeds" [ $? = 0 ]
check "the plugin saw the namespace pid" log_has "$WORK/img/dump.log" "pid $HOSTPID \(ns pid 1\): CUDA process"
check "images are named by the namespace pid" [ -f "$WORK/img/cudastore-1.img" ] && [ -f "$WORK/img/cudastore-1-gpu0.ext" ]
wait_gone "$HOSTPID"
criu_restore "$WORK/img" --pidfile "$WORK/restored.pid"
check "criu restore succeeds" [ $? = 0 ]
NEWPID=$(cat "$WORK/restored.pid" 2>/dev/null)
PIDS_TO_KILL="$NEWPID"
check "the plugin restored it under its new host pid $NEWPID" log_has "$WORK/img/restore.log" "pid $NEWPID: GPU restore done"
check "the restored process is pid 1 of a new namespace" grep -q '^NSpid:.*[[:space:]]1$' "/proc/$NEWPID/status"
check_verdict w "$NEWPID" "it verified every byte after restore"
done_testing
