#!/bin/bash
# Leave-running is known with no cudastore configuration, however criu is asked: -R, bundled
# short options, --leave-running before the command, CRIU config files (CRIU_CONFIG_FILE,
# --config, ~/.criu/default.conf), and RPC (criu swrk as runc/crun/containerd/CRI-O use it;
# criu service). The plugin reads criu's own decision (opts.final_state through a validated
# layout): with leave-running the process runs on and verifies every byte of its GPU memory;
# without it criu kills the process and the plugin does not copy the memory back.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
RPC=$top_builddir/tests/e2e/criu-rpc
[ -x "$RPC" ] || bail "tests/e2e/criu-rpc not built"
plan 38
printf 'mode = auto\n' >"$WORK/cudastore.conf" # no leave_running: the plugin must find out itself
export CUDASTORE_CONFIG=$WORK/cudastore.conf
printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/libdir.conf"
printf 'leave-running\n' >"$WORK/lr.conf"
export HOME=$WORK/home # criu reads $HOME/.criu/default.conf; never /etc here
mkdir -p "$HOME"

# leave_case NAME: the dump succeeded, the plugin read criu's decision, the process verifies
leave_case() {
	local name=$1 rc=$2 dir=$WORK/$1
	check "$name: dump succeeds" [ "$rc" = 0 ]
	check "$name: decision read from criu's options" \
		log_has "$dir/dump.log" "criu leaves running the dumped tree \(read from criu's options"
	check "$name: GPU memory put back" log_has "$dir/dump.log" "pid $WPID: resumed with its GPU memory"
	check_verdict "$name" "$WPID" "$name: process runs on and verifies every byte"
}
# stop_case NAME: criu kills the tree; no copy back, no warning
stop_case() {
	local name=$1 rc=$2 dir=$WORK/$1
	check "$name: dump succeeds" [ "$rc" = 0 ]
	check "$name: decision read from criu's options" \
		log_has "$dir/dump.log" "criu does not leave running the dumped tree \(read from criu's options"
	check "$name: no copy back, process killed by criu" \
		bash -c "! grep -aq 'resumed with its GPU memory' '$dir/dump.log'" && wait_gone "$WPID"
}

start_workload R --size 1m
criu_dump "$WORK/R" "$WPID" -R; leave_case R $?

start_workload jR --size 1m
criu_dump "$WORK/jR" "$WPID" -jR; leave_case jR $?

start_workload first --size 1m
mkdir -p "$WORK/first"
timeout -k 5 120 "$CRIU" --leave-running dump -t "$WPID" -D "$WORK/first" -o dump.log -v4 -L "$PLUGINDIR" >/dev/null 2>&1
leave_case first $?

start_workload envconf --size 1m
CRIU_ENV="CRIU_CONFIG_FILE=$WORK/lr.conf" criu_dump "$WORK/envconf" "$WPID"; leave_case envconf $?

start_workload config --size 1m
criu_dump "$WORK/config" "$WPID" --config "$WORK/lr.conf"; leave_case config $?

start_workload homeconf --size 1m
mkdir -p "$HOME/.criu" && cp "$WORK/lr.conf" "$HOME/.criu/default.conf"
criu_dump "$WORK/homeconf" "$WPID"; leave_case homeconf $?
rm -f "$HOME/.criu/default.conf"

start_workload swrk --size 1m
mkdir -p "$WORK/swrk"
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/swrk" --leave-running --config "$WORK/libdir.conf" >/dev/null 2>"$WORK/swrk.rpc"
leave_case swrk $?

# criu service: a daemon that forks a worker per request
"$CRIU" service -d --address "$WORK/criu.sk" --pidfile "$WORK/service.pid" -o "$WORK/service.log" -v4 -W "$WORK" >/dev/null 2>&1 ||
	bail "criu service did not start"
wait_file "$WORK/service.pid" 10 && PIDS_TO_KILL="$PIDS_TO_KILL $(cat "$WORK/service.pid")"
start_workload service --size 1m
mkdir -p "$WORK/service"
timeout -k 5 120 "$RPC" service "$WORK/criu.sk" "$WPID" "$WORK/service" --leave-running --config "$WORK/libdir.conf" >/dev/null 2>"$WORK/service.rpc"
leave_case service $?

start_workload plain --size 1m
criu_dump "$WORK/plain" "$WPID"; stop_case plain $?

start_workload swrkstop --size 1m
mkdir -p "$WORK/swrkstop"
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/swrkstop" --config "$WORK/libdir.conf" >/dev/null 2>"$WORK/swrkstop.rpc"
stop_case swrkstop $?
done_testing
