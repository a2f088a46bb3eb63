#!/bin/bash
# A CustomStorage dump prepares the copy while the process still runs: cuInit, the planned GPUs'
# primary contexts and the pinned pool come before cuCheckpointProcessLock, so none of it falls
# into the frozen window; the copy then borrows the pool's buffers. If that preparation fails,
# the dump is refused before the lock and the process runs on untouched. The time the
# preparation takes comes off the lock's timeout, so the lock still ends before criu's alarm.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_MEM_MB=4096
plan 13

# first_line TRACE API: line number of the helper's first call of API (not the workload's), or 999999
first_line() {
	awk -v n="$2" -v w="$WPID" '$3 == n && $1 != w { print NR; found = 1; exit } END { if (!found) print 999999 }' "$1"
}

start_workload w --devices 2 --buffers 2 --size 8m
CRIU_ENV="CUDASTORE_EMU_TRACE=$WORK/ok.trace" criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
lock=$(first_line "$WORK/ok.trace" cuCheckpointProcessLock)
retain=$(first_line "$WORK/ok.trace" cuDevicePrimaryCtxRetain)
pin=$(first_line "$WORK/ok.trace" cuMemHostAlloc)
check "the helper retained the GPUs' contexts before the lock (trace lines $retain < $lock)" [ "$retain" -lt "$lock" ]
check "and pinned the pool before the lock (trace lines $pin < $lock)" [ "$pin" -lt "$lock" ]
check "the log says the copy was ready before the lock" \
	bash -c "grep -anE 'pid $WPID: GPU contexts and pinned buffers ready in [0-9.]+ s, before the lock' '$WORK/img/dump.log' | head -n1 | cut -d: -f1 |
		{ read a; b=\$(grep -an 'pid $WPID: locked in' '$WORK/img/dump.log' | head -n1 | cut -d: -f1); [ -n \"\$a\" ] && [ -n \"\$b\" ] && [ \"\$a\" -lt \"\$b\" ]; }"
check "both GPUs were copied out with the pool's buffers" \
	bash -c "[ \$(grep -acE 'dumped region [01] .*\\([0-9]+ from the pool\\)' '$WORK/img/dump.log') = 2 ]"
wait_gone "$WPID"
criu_restore "$WORK/img"
check_verdict w "$WPID" "the images restore and the process verifies every byte"

start_workload bad --devices 2 --buffers 2 --size 8m
CRIU_ENV="CUDASTORE_EMU_TRACE=$WORK/bad.trace CUDASTORE_EMU_FAULTS=cuDevicePrimaryCtxRetain:1:999" \
	criu_dump "$WORK/bad" "$WPID"
check "a context that cannot be retained fails the dump" [ $? != 0 ]
check "... before the lock, and says the process was not touched" \
	log_has "$WORK/bad/dump.log" "Error.*pid $WPID: the GPUs it uses cannot be prepared for the copy; the process was not touched"
check "... the lock was never called" [ "$(first_line "$WORK/bad.trace" cuCheckpointProcessLock)" = 999999 ]
check_verdict bad "$WPID" "... and the process runs on with every byte"
# a slow cuInit (1.5 s) under criu --timeout 5: the lock gets what the alarm leaves less that
start_workload slow --devices 2 --buffers 2 --size 8m
CRIU_ENV="CUDASTORE_EMU_DELAY=cuInit:1500 CUDASTORE_EMU_FAULTS=cuCheckpointProcessLock:1:999" \
	criu_dump "$WORK/slow" "$WPID" --timeout 5
check "slow set-up: the (failing) lock ends the dump" [ $? != 0 ]
t=$(sed -n "s/.*pid $WPID: cuCheckpointProcessLock (timeout \([0-9]*\) ms) failed.*/\1/p" "$WORK/slow/dump.log" | head -n1)
check "slow set-up: the lock's timeout ($t ms) is criu's 4 s cap less the 1.5 s spent preparing" \
	[ -n "$t" ] && [ "$t" -ge 100 ] && [ "$t" -le 2600 ]
check_verdict slow "$WPID" "slow set-up: the process runs on with every byte"
done_testing
