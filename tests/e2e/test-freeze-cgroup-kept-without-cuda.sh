#!/bin/bash
# criu --freeze-cgroup on a host with a (emulated) driver: a CPU-only tree keeps criu's cgroup
# freezer (criu does not thaw a frozen cgroup "for plugin compatibility"), a CUDA process's tree
# is seized thread by thread and dumps and restores with every byte of its GPU memory, and a
# process that maps the driver after init fails the dump cleanly (retry) and runs on untouched.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
FRZ=/sys/fs/cgroup/freezer
[ -f "$FRZ/freezer.state" ] || [ -d "$FRZ" ] || skip_all "no cgroup v1 freezer at $FRZ"
CG=$FRZ/cudastore-test-$$
mkdir "$CG" || skip_all "cannot create freezer cgroup $CG"
trap 'for p in $PIDS_TO_KILL; do kill -9 $p 2>/dev/null; done; echo THAWED >"$CG/freezer.state" 2>/dev/null; sleep 0.2; rmdir "$CG" 2>/dev/null; cleanup' EXIT
plan 12

# 1. CPU-only tree in a frozen cgroup (as after "runc pause"): criu keeps the freezer
mkdir -p "$WORK/status"
setsid -f sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" --pidfile "$3/pid" --status "$3/status" --outfile "$3/out"' \
	sh "$CG" "$top_builddir/tests/e2e/cpu-tree" "$WORK" </dev/null >/dev/null 2>&1
wait_file "$WORK/status/child" || bail "cpu-tree did not start"
PID=$(cat "$WORK/pid"); PIDS_TO_KILL="$PID"
echo FROZEN >"$CG/freezer.state"
criu_dump "$WORK/cpu" "$PID" --freeze-cgroup "$CG" -R; rc=$?
check "CPU-only tree: dump succeeds" [ "$rc" = 0 ]
check "CPU-only tree: the plugin keeps criu's cgroup freezer" \
	log_has "$WORK/cpu/dump.log" "cudastore: seizing: criu keeps its cgroup freezer: none of the [0-9]+ tasks"
check "CPU-only tree: criu does not unfreeze the cgroup for the plugin" \
	bash -c "! grep -aq 'unfreezing cgroup for plugin compatibility' '$WORK/cpu/dump.log'"
check "CPU-only tree: criu froze it with the freezer" log_has "$WORK/cpu/dump.log" "freezing cgroup $CG: "
echo THAWED >"$CG/freezer.state"
kill -9 "$PID"; wait_gone "$PID"

# 2. a CUDA process in the cgroup: seized thread by thread, dumped, restored, every byte verified
start_cg_workload() { # NAME: a daemonized workload whose starter joined the cgroup first
	local name=$1; shift
	rm -f "$WORK/$name.pid" "$WORK/$name.ready" "$WORK/$name.out"
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" "$WORKLOAD" --daemon \
		--pidfile "$WORK/$name.pid" --ready "$WORK/$name.ready" --outfile "$WORK/$name.out" "$@" \
		>"$WORK/$name.stdout" 2>>"$WORK/$name.err" </dev/null
	wait_file "$WORK/$name.ready" 60 || bail "workload $name did not get ready"
	WPID=$(cat "$WORK/$name.pid"); PIDS_TO_KILL="$PIDS_TO_KILL $WPID"
}
start_cg_workload cuda --size 1m
criu_dump "$WORK/cuda" "$WPID" --freeze-cgroup "$CG"; rc=$?
check "CUDA tree: dump succeeds" [ "$rc" = 0 ]
check "CUDA tree: seized thread by thread (interrupt-only)" \
	log_has "$WORK/cuda/dump.log" "cudastore: seizing: thread by thread: pid $WPID in the freeze cgroup uses the CUDA driver: maps .*/libcuda\.so"
wait_gone "$WPID"
criu_restore "$WORK/cuda"
check "CUDA tree: restore succeeds" [ $? = 0 ]
check_verdict cuda "$WPID" "CUDA tree: process verifies every byte after the restore"

# 3. the driver mapped after init: the helper parks at INIT while a CUDA child starts
mkdir -p "$WORK/late"
setsid -f sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/late.pid"; while [ ! -e "$2/go" ]; do sleep 0.05; done
	"$3" --pidfile "$2/late-child.pid" --ready "$2/late.ready" --outfile "$2/late.out" --size 1m; exec sleep 1000' \
	sh "$CG" "$WORK" "$WORKLOAD" </dev/null >/dev/null 2>"$WORK/late.err"
wait_file "$WORK/late.pid" 10 || bail "late tree did not start"
ROOT=$(cat "$WORK/late.pid"); PIDS_TO_KILL="$PIDS_TO_KILL $ROOT"
t0=$(date +%s)
CRIU_ENV="CUDASTORE_TEST_STALL=init CUDASTORE_TEST_STALL_FILE=$WORK/stall" \
	criu_dump "$WORK/late" "$ROOT" --freeze-cgroup "$CG" &
DUMP=$!
wait_file "$WORK/stall" 20 || bail "the helper did not stall at INIT"
touch "$WORK/go"
wait_file "$WORK/late.ready" 60 || bail "late CUDA child did not get ready"
LATE=$(cat "$WORK/late-child.pid"); PIDS_TO_KILL="$PIDS_TO_KILL $LATE"
rm -f "$WORK/stall"
wait $DUMP; rc=$?
check "late CUDA: the dump fails ($rc) in bounded time ($(( $(date +%s) - t0 )) s)" [ "$rc" != 0 ] && [ $(( $(date +%s) - t0 )) -lt 60 ]
check "late CUDA: the message says what happened and to retry" \
	log_has "$WORK/late/dump.log" "pid $LATE uses the CUDA driver now \(maps .*/libcuda\.so.*\), but no task did when the dump began.*retry the dump"
check "late CUDA: nothing was locked" bash -c "! grep -aq 'locked in' '$WORK/late/dump.log'"
sleep 0.5
check_verdict late "$LATE" "late CUDA: the process runs on and verifies every byte"
done_testing
