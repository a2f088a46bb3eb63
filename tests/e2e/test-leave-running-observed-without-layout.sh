#!/bin/bash
# With criu's private options unread (criu_options=no, as on a CRIU whose layout is unknown),
# leave-running is decided by watching what criu does to the tasks: a CRIU config file and RPC
# (criu swrk) leave the process running (-R is read from the command line) with every byte of its GPU memory; a plain dump
# (criu kills the tree) copies nothing back; -s leaves it stopped and checkpointed.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
RPC=$top_builddir/tests/e2e/criu-rpc
[ -x "$RPC" ] || bail "tests/e2e/criu-rpc not built"
plan 20
set_config "criu_options = no"
printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/libdir.conf"
printf 'leave-running\n' >"$WORK/lr.conf"
export HOME=$WORK/home
mkdir -p "$HOME"

# leave_case NAME RC: criu let the process run, the helper saw it and resumed its GPU state
leave_case() {
	local name=$1 rc=$2
	check "$name: dump succeeds" [ "$rc" = 0 ]
	check "$name: decision left to watching the tasks" \
		log_has "$WORK/$name/dump.log" "cudastore-helper will watch what criu does to the tasks"
	check_watched_resume "$name"
}

# -R on criu's command line needs no watching: resumed in the exit hook, as with a known layout
start_workload R --size 1m
criu_dump "$WORK/R" "$WPID" -R; rc=$?
check "R: dump succeeds" [ "$rc" = 0 ]
check "R: decision read from the command line" \
	log_has "$WORK/R/dump.log" "criu leaves running the dumped tree \(read from criu's command line"
check "R: resumed in the exit hook" log_has "$WORK/R/dump.log" "pid $WPID: resumed with its GPU memory in .*--leave-running"
check_verdict R "$WPID" "R: process runs on and verifies every byte"

leave_running_two_ways

# criu kills the tree: nothing is resumed, no guardian log is left in the images
start_workload plain --size 1m
t0=$(date +%s%N)
criu_dump "$WORK/plain" "$WPID"; rc=$?
check "plain: dump succeeds" [ "$rc" = 0 ]
check "plain: criu killed the process" wait_gone "$WPID"
sleep 0.5
check "plain: nothing resumed, no log left in the images" [ ! -e "$WORK/plain/cudastore-guardian.log" ]
diag "plain: criu dump took $(( ($(date +%s%N) - t0) / 1000000 )) ms"

start_workload swrkstop --size 1m
mkdir -p "$WORK/swrkstop"
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/swrkstop" --config "$WORK/libdir.conf" >/dev/null 2>"$WORK/swrkstop.rpc"
check "swrk without leave-running: dump succeeds" [ $? = 0 ]
check "swrk without leave-running: criu killed the process" wait_gone "$WPID"

# -s: criu leaves the tree stopped; it stays checkpointed (as with a known layout)
start_workload stopped --size 1m
criu_dump "$WORK/stopped" "$WPID" -s; rc=$?
check "-s: dump succeeds" [ "$rc" = 0 ]
sleep 0.5
check "-s: process left stopped" grep -q '^State:.*T (stopped)' "/proc/$WPID/status"
check "-s: nothing resumed" [ ! -e "$WORK/stopped/cudastore-guardian.log" ]
kill -9 "$WPID"
done_testing
