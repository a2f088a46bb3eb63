#!/bin/bash
# A workload with a 1 ms ITIMER_REAL and a SIGALRM handler, also sent SIGALRM from outside every
# few ms, is dumped and restored: the driver's thread runs with every signal blocked while criu
# waits in the driver (the emulator's driver thread keeps the application's mask, as the real
# one does, so a deliverable signal would park it in a signal-delivery stop and hang criu), the
# restore finishes in bounded time, and the timer still ticks afterwards. Then `restore -s`,
# whose SIGSTOP is queued before the GPU restore: the restore finishes, the process is stopped,
# and it runs on after SIGCONT.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_TRACE=$WORK/trace
CRIU_TIMEOUT=60
plan 16

pelt() { # pelt PID: SIGALRM every 5 ms until killed
	while kill -ALRM "$1" 2>/dev/null || true; do sleep 0.005; done
}
no_unblocked() { # no_unblocked OP: the driver thread served OP, always with every signal blocked
	[ "$(tr_count "$CUDASTORE_EMU_TRACE" "drv:$1:sigmask" 1)" -ge 1 ] &&
		[ "$(tr_count "$CUDASTORE_EMU_TRACE" "drv:$1:sigmask" 0)" = 0 ]
}

drv_sigblk() { # SigBlk of the process's driver thread
	local t
	for t in /proc/$1/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = cs-emu-driver ] && sed -n 's/^SigBlk:\t*//p' "$t/status"
	done
}

start_workload w --size 4m --itimer-us 1000
blk=$(drv_sigblk "$WPID")
check "the driver thread blocks no signal before the dump (SigBlk ${blk:-?})" [ "$blk" = 0000000000000000 ]
pelt "$WPID" & PELTER=$!
PIDS_TO_KILL="$PIDS_TO_KILL $PELTER"
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds with signals arriving" [ $? = 0 ]
check "the driver thread checkpointed with every signal blocked" no_unblocked checkpoint
wait_gone "$WPID"
: >"$CUDASTORE_EMU_TRACE"
t0=$(date +%s)
criu_restore "$WORK/img"
rc=$?
check "criu restore succeeds in bounded time (rc $rc, $(($(date +%s) - t0)) s)" [ $rc = 0 ]
check "plugin restored the GPU state" log_has "$WORK/img/restore.log" "cudastore: pid $WPID: GPU restore done"
check "the driver thread restored with every signal blocked" no_unblocked restore
check "... and unlocked with every signal blocked" no_unblocked unlock
check "restored process runs" alive "$WPID"
blk=$(drv_sigblk "$WPID")
check "its driver thread has its own signal mask back (SigBlk ${blk:-?})" [ "$blk" = 0000000000000000 ]
check_verdict w "$WPID" "memory intact and the interval timer still ticks after restore"
kill "$PELTER" 2>/dev/null; wait "$PELTER" 2>/dev/null

start_workload s --size 4m --itimer-us 1000
criu_dump "$WORK/img-s" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
t0=$(date +%s)
criu_restore "$WORK/img-s" -s
rc=$?
check "criu restore -s succeeds in bounded time (rc $rc, $(($(date +%s) - t0)) s)" [ $rc = 0 ]
check "plugin restored the GPU state" log_has "$WORK/img-s/restore.log" "cudastore: pid $WPID: GPU restore done"
stopped() { for i in $(seq 50); do grep -q '^State:.*T' "/proc/$1/status" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
check "restore -s leaves the process stopped" stopped "$WPID"
kill -CONT "$WPID" 2>/dev/null
check "after SIGCONT it runs" alive "$WPID"
check_verdict s "$WPID" "memory intact and the interval timer still ticks after restore -s"
done_testing
